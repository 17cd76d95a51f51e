#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the reader fuzzer's seeds for issue 11 point 2 (inputs that claim far more work
than their size): tests/fuzz/gen_seeds.py tests/fuzz/corpus   (needs the zstd CLI)
and fuzz_analyze's: tests/fuzz/gen_seeds.py --analyze tests/fuzz/corpus_analyze

  bomb_body.bin     3 frame runs of 65536 frames each, 60 bytes: fuzz_reader wraps every
                    input as a chunk body too, so this is a chunk of 196608 frames (over
                    the 131072-record limit of FORMAT.md 4.1).
  bomb_capture.frc  a format 1.1 capture, one chunk of 64 such runs (4 M frames) in ~3 KB
                    that declares 1 record.
Built from format/FORMAT.md with tests/format/gen_future.py's helpers, not libfrc_format.

fuzz_symbols' hand-made seeds (tests/fuzz/gen_seeds.py --symbols tests/fuzz/corpus_symbols;
the build adds the stand-in's libgui.so builds to them):
  found.so          a 1 KB ELF64 .so: .dynstr, .dynsym with hook_queueBuffer and a
                    queueBuffer prefix match, one executable PT_LOAD holding both
  sections_bomb.so  an ELF64 header claiming 65535 sections past the end of the file
  elf32.so          an ELF32 header (refused as 32-bit)

fuzz_analyze's seeds are records in fuzz_records.h's 12-byte encoding after its 3 option
bytes: games the heuristics were made for, for the fuzzer to start from.
  steady_triple     62.5 Hz, one surface, 3 buffers in rotation, a tick every 60 frames
  two_surfaces      the same with a second surface queued between, sysfs samples
  pause_exit        a steady run, a 5 s pause, an exit and a new attach
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


# fuzz_records.h: byte 0 selects the type (sel % 16) and the time step (sel & 0x80: a jump),
# bytes 1-4 the step, 5.. the fields. A frame step of 0x80000 is exactly 16 ms.
STEP_16MS = struct.pack("<I", 0x80000)


def frame(pid, buf, surface_sel, sel=5, step=STEP_16MS):
    # p[7]: bit 0 = buffer 0x7f0000000000 + (p[8] % 4) * 0x1000; bits 1-3 the surface
    return bytes([sel]) + step + bytes([pid, pid, 1 | (surface_sel << 1), buf, 0, 0, 0])


# A frame after a pause: sel 0x95 is a frame (0x95 % 16 == 5) whose step is shifted by
# 0x95 & 0x3F = 21 bits: 2384 << 21 ns = 5.0 s.
PAUSE_5S = dict(sel=0x95, step=struct.pack("<I", 2384))


def tick():
    return bytes([0]) + STEP_16MS + bytes([0, 0, 0, 0, 0, 0, 0])


def sysfs(text):
    return bytes([1]) + STEP_16MS + bytes([len(text)]) + text.ljust(6, b"\0")


def record(sel, pid):
    return bytes([sel]) + STEP_16MS + bytes([pid, 3, 0, 0, 0, 0, 0])


def analyze_seeds():
    steady = [frame(1, i % 3, 2) for i in range(180)]
    for i in range(60, 180, 60):
        steady.insert(i, tick())
    two = []
    for i in range(120):
        two.append(frame(1, i % 3, 2))
        if i % 6 == 0:
            two.append(frame(1, 3, 3))
        if i % 15 == 0:
            two.append(sysfs(b"60.0\n"))
    pause = [record(3, 2)] + [frame(2, i % 2, 0) for i in range(60)]
    pause += [frame(2, 0, 0, **PAUSE_5S)] + [frame(2, i % 2, 0) for i in range(1, 30)]
    pause += [record(4, 2), record(3, 3)] + [frame(3, i % 3, 4) for i in range(30)]
    opts = bytes([49, 0, 0])  # 1 s chunks, no recorded tracker, the default one replayed
    return {"steady_triple": opts + b"".join(steady),
            "two_surfaces": bytes([49, 0x40, 4]) + b"".join(two),  # scored; main-surface
            "pause_exit": opts + b"".join(pause)}


def elf64(sections, phdrs, blobs, shnum=None, shoff=None):
    """An ELF64 little-endian ET_DYN x86-64: header, blobs at their offsets, then the
    section and program header tables. sections: (type, offset, size, link, entsize)."""
    body = bytearray(64)
    for off, data in blobs:
        body[len(body):off] = bytes(max(0, off - len(body)))
        body[off:off + len(data)] = data
    phoff = len(body)
    for ph in phdrs:
        body += struct.pack("<IIQQQQQQ", *ph)
    sh_at = len(body)
    for t, off, size, link, ent in sections:
        body += struct.pack("<IIQQQQIIQQ", 0, t, 0, 0, off, size, link, 0, 8, ent)
    hdr = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    hdr += struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, phoff if phdrs else 0,
                       shoff if shoff is not None else sh_at, 0, 64, 56, len(phdrs), 64,
                       shnum if shnum is not None else len(sections), 0)
    body[0:64] = hdr
    return bytes(body)


def symbols_seeds():
    names = [b"", b"_ZN7android7Surface16hook_queueBufferEP13ANativeWindowP19ANativeWindowBufferi",
             b"_ZN7android7Surface11queueBufferEv"]
    strtab = b"\0".join(names) + b"\0"
    offs = [strtab.index(n + b"\0") if n else 0 for n in names]
    syms = bytes(24)  # index 0: the null symbol
    for i, value in ((1, 0x400), (2, 0x410)):
        syms += struct.pack("<IBBHQQ", offs[i], 0x12, 0, 1, value, 16)  # GLOBAL FUNC
    code = b"\xc3" * 32
    found = elf64([(0, 0, 0, 0, 0), (3, 0x100, len(strtab), 0, 0),
                   (11, 0x200, len(syms), 1, 24)],
                  [(1, 5, 0x400, 0x400, 0x400, len(code), len(code), 0x1000)],
                  [(0x100, strtab), (0x200, syms), (0x400, code)])
    return {"found.so": found,
            "sections_bomb.so": elf64([], [], [], shnum=65535, shoff=64),
            "elf32.so": b"\x7fELF" + bytes([1, 1, 1]) + bytes(9) + bytes(36)}


def main(out):
    with open(os.path.join(out, "bomb_body.bin"), "wb") as f:
        f.write(run_65536() * 3)
    with open(os.path.join(out, "bomb_capture.frc"), "wb") as f:
        f.write(bomb_capture(64, 1))


if __name__ == "__main__":
    if sys.argv[1] in ("--analyze", "--symbols"):
        seeds = analyze_seeds() if sys.argv[1] == "--analyze" else symbols_seeds()
        for name, data in seeds.items():
            with open(os.path.join(sys.argv[2], name), "wb") as f:
                f.write(data)
    else:
        main(sys.argv[1])
