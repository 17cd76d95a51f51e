#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the reader fuzzer's seeds for issue 11 point 2 (inputs that claim far more work
than their size): tests/fuzz/gen_seeds.py tests/fuzz/corpus   (needs the zstd CLI)

  bomb_body.bin     3 frame runs of 65536 frames each, 60 bytes: fuzz_reader wraps every
                    input as a chunk body too, so this is a chunk of 196608 frames (over
                    the 131072-record limit of FORMAT.md 4.1).
  bomb_capture.frc  a format 1.1 capture, one chunk of 64 such runs (4 M frames) in ~3 KB
                    that declares 1 record.
Built from format/FORMAT.md with tests/format/gen_future.py's helpers, not libfrc_format.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "format"))
from gen_future import crc32c, entry, skippable, varint, zstd_frame  # noqa: E402


def run_65536():
    # n, npids=1, pid 1, m, base, period 16666667, width 0, rmin 0, kflag 0,
    # (no residual bytes), ndict 1, buffer 0x10, nruns 1, tid 1, length 65536
    n = 65536
    p = (varint(n) + varint(1) + varint(1) + varint(n) + varint(1000) + varint(16666667) +
         b"\x00" + varint(0) + b"\x00" + varint(1) + varint(0x10) + varint(1) + varint(1) +
         varint(n))
    return entry(1, p)


def bomb_capture(nruns, nrec):
    hp = b"FRCP" + struct.pack("<HH", 1, 1) + varint(0)
    hcrc = struct.pack("<I", crc32c(hp))
    hp += hcrc
    seed = crc32c(hcrc)
    body = run_65536() * nruns
    z = zstd_frame(body)
    d = varint(0) + varint(len(z)) + varint(len(body)) + varint(nrec)
    d += struct.pack("<I", crc32c(z))
    d += struct.pack("<I", crc32c(d, seed))
    return skippable(0x184D2A5A, hp) + skippable(0x184D2A5B, d) + z


def main(out):
    with open(os.path.join(out, "bomb_body.bin"), "wb") as f:
        f.write(run_65536() * 3)
    with open(os.path.join(out, "bomb_capture.frc"), "wb") as f:
        f.write(bomb_capture(64, 1))


if __name__ == "__main__":
    main(sys.argv[1])
