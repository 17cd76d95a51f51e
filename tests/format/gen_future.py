#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write future_v1_9.frc: a capture from a writer of a later minor (1.9), built from
format/FORMAT.md alone (not with libfrc_format), with what FORMAT.md 9 lets a later minor
add: a record type this reader does not know (type 40, "gizmo"; 7 and 8 are entries
without records, 9 and 11..13 the display records, 10 the timestamp column, the types between left to later minors), one
more field in every footer index entry, per-type totals up to type 40, and a footer field
after max_ktime.

usage: tests/format/gen_future.py OUT.frc      (needs the zstd CLI)

Expected when today's reader reads it (test_format future_minor_capture): status complete,
the records below in this order, 3 entries of type 40 counted as unknown.
"""
import os
import struct
import subprocess
import sys
import tempfile

GIZMO = 40  # a record type no 1.1 reader knows


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zigzag(v):
    return (v << 1) ^ (v >> 63) if v >= 0 else ((v << 1) ^ -1) & (2**64 - 1)


def entry(t, payload):
    return varint(t) + varint(len(payload)) + payload


def skippable(magic, payload):
    return struct.pack("<II", magic, len(payload)) + payload


def zstd_frame(body):
    # A file, not a pipe: the zstd CLI then records the content size (FORMAT.md 4.2).
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "body")
        with open(p, "wb") as f:
            f.write(body)
        return subprocess.run(["zstd", "-q", "-3", "-c", p], check=True,
                              stdout=subprocess.PIPE).stdout


def main(out):
    meta = [(b"recorder", b"gen_future.py"), (b"clock", b"CLOCK_MONOTONIC")]
    hp = b"FRCP" + struct.pack("<HH", 1, 9) + varint(len(meta))
    for k, v in meta:
        hp += varint(len(k)) + k + varint(len(v)) + v
    hcrc = struct.pack("<I", crc32c(hp))
    hp += hcrc
    # FORMAT.md 3: descriptors and the footer continue their CRC from the header's CRC.
    seed = crc32c(hcrc)

    # chunk 0: gizmo 500, frame 1000 7 8 0x10, tick 1100 (no result), gizmo 1200
    # chunk 1: exit 4000 7, gizmo 5000
    frame_run = (varint(1) + varint(1) + varint(7) + varint(1) + varint(1000) +
                 varint(1) + varint(0x10) + varint(1) + varint(8) + varint(1))
    gizmo = lambda t, extra: varint(t) + extra
    chunks = [
        ([entry(GIZMO, gizmo(500, b"\x01\x02")), entry(1, frame_run), entry(6, varint(1100)),
          entry(GIZMO, gizmo(1200, b""))], 4, 1, 500, 1200),
        ([entry(5, varint(4000) + varint(7)), entry(GIZMO, gizmo(5000, b"xyz"))], 2, 0, 4000,
         5000),
    ]
    f = bytearray(skippable(0x184D2A5A, hp))
    index = bytearray()
    prev_off = prev_min = 0
    for seq, (entries, nrec, frames, tmin, tmax) in enumerate(chunks):
        body = b"".join(entries)
        z = zstd_frame(body)
        d = varint(seq) + varint(len(z)) + varint(len(body)) + varint(nrec)
        d += struct.pack("<I", crc32c(z))
        d += struct.pack("<I", crc32c(d, seed))
        off = len(f)
        f += skippable(0x184D2A5B, d) + z
        # 5 fields of 1.1, then a 6th field a later minor added (here: the body size).
        index += (varint(off - prev_off) + varint(nrec) + varint(frames) +
                  varint(zigzag(tmin - prev_min)) + varint(tmax - tmin) + varint(len(body)))
        prev_off, prev_min = off, tmin
    # types 1..40: frame, sysfs, drops, attach, exit, tick, the rest 0 but gizmo's
    by_type = [1, 0, 0, 0, 1, 1] + [0] * (GIZMO - 7) + [3]
    fp = (b"FRCI" + varint(len(chunks)) + varint(6) + index + varint(6) + varint(len(by_type)) +
          b"".join(varint(n) for n in by_type) + varint(500) + varint(5000) +
          varint(42))  # a footer field a later minor appended after max_ktime
    fp += struct.pack("<I", crc32c(fp, seed))
    size = 8 + len(fp) + 8
    f += struct.pack("<II", 0x184D2A5C, len(fp) + 8) + fp + struct.pack("<I", size) + b"FRCE"
    with open(out, "wb") as o:
        o.write(f)


if __name__ == "__main__":
    main(sys.argv[1])
