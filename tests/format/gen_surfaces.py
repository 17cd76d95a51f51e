#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write surfaces_v1_1.frc: a 1.1 capture whose frame runs carry surface columns (entry
type 7, FORMAT.md 4.5), built from format/FORMAT.md alone (not with libfrc_format).

usage: tests/format/gen_surfaces.py OUT.frc      (needs the zstd CLI)

One chunk: a column in run-length form (0x5000 0x5000 0x6000) before a 3-frame run, a tick,
then a column whose dictionary steps back to 0 (0xa000 0xa000 0x0) before another run.
Expected (test_format surfaces_foreign_capture): status complete, frames with those
surfaces; the two columns count as entries (nrec 9) but are not records.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_future import crc32c, entry, skippable, varint, zigzag, zstd_frame  # noqa: E402


def frame_run(pid, times, tids, buffers):
    """One PID's run (FORMAT.md 4.4): times on a 1000 ns line, a cyclic buffer dictionary."""
    m = len(times)
    period = times[1] - times[0]
    assert all(times[i] == times[0] + i * period for i in range(m))
    dict_ = list(dict.fromkeys(buffers))
    assert all(buffers[i] == dict_[i % len(dict_)] for i in range(m))
    p = varint(m) + varint(1) + varint(pid) + varint(m)
    # base, period, width 0, zigzag(rmin) 0, kflag 0 (k_i = i): no packed residuals
    p += varint(times[0]) + varint(period) + bytes([0]) + varint(0) + bytes([0])
    p += varint(len(dict_)) + varint(dict_[0])
    p += b"".join(varint(zigzag(dict_[j] - dict_[j - 1])) for j in range(1, len(dict_)))
    p += bytes([1])  # cyclic
    runs = []
    for t in tids:
        if runs and runs[-1][0] == t:
            runs[-1][1] += 1
        else:
            runs.append([t, 1])
    p += varint(len(runs)) + b"".join(varint(t) + varint(n) for t, n in runs)
    return p


def column(surfaces):
    """FORMAT.md 4.5: n, the dictionary, then (ndict > 1) run-length dictionary indexes."""
    dict_ = list(dict.fromkeys(surfaces))
    p = varint(len(surfaces)) + varint(len(dict_)) + varint(dict_[0])
    p += b"".join(varint(zigzag(dict_[j] - dict_[j - 1])) for j in range(1, len(dict_)))
    if len(dict_) > 1:
        runs = []
        for s in surfaces:
            k = dict_.index(s)
            if runs and runs[-1][0] == k:
                runs[-1][1] += 1
            else:
                runs.append([k, 1])
        p += varint(len(runs)) + b"".join(varint(k) + varint(n) for k, n in runs)
    return p


def main(out):
    meta = [(b"recorder", b"gen_surfaces.py")]
    hp = b"FRCP" + struct.pack("<HH", 1, 1) + varint(len(meta))
    for k, v in meta:
        hp += varint(len(k)) + k + varint(len(v)) + v
    hcrc = struct.pack("<I", crc32c(hp))
    hp += hcrc
    seed = crc32c(hcrc)  # FORMAT.md 3: descriptors and footer continue from the header CRC

    body = b"".join([
        entry(7, column([0x5000, 0x5000, 0x6000])),
        entry(1, frame_run(7, [1000, 2000, 3000], [8, 9, 8], [0x10, 0x20, 0x10])),
        entry(6, varint(3500)),
        entry(7, column([0xA000, 0xA000, 0x0])),
        entry(1, frame_run(7, [4000, 5000, 6000], [8, 8, 8], [0x30, 0x40, 0x50])),
    ])
    nrec, frames, tmin, tmax = 9, 6, 1000, 6000
    z = zstd_frame(body)
    d = varint(0) + varint(len(z)) + varint(len(body)) + varint(nrec)
    d += struct.pack("<I", crc32c(z))
    d += struct.pack("<I", crc32c(d, seed))
    f = bytearray(skippable(0x184D2A5A, hp))
    off = len(f)
    f += skippable(0x184D2A5B, d) + z
    index = (varint(off) + varint(nrec) + varint(frames) + varint(zigzag(tmin)) +
             varint(tmax - tmin))
    by_type = [6, 0, 0, 0, 0, 1, 2]  # frames, sysfs, drops, attach, exit, tick, columns
    fp = (b"FRCI" + varint(1) + varint(5) + index + varint(nrec) + varint(len(by_type)) +
          b"".join(varint(n) for n in by_type) + varint(tmin) + varint(tmax))
    fp += struct.pack("<I", crc32c(fp, seed))
    f += struct.pack("<II", 0x184D2A5C, len(fp) + 8) + fp + struct.pack("<I", 8 + len(fp) + 8)
    f += b"FRCE"
    with open(out, "wb") as o:
        o.write(f)


if __name__ == "__main__":
    main(sys.argv[1])
