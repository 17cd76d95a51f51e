#!/usr/bin/env python3
"""display_truth.py FRAMEANALYZE CAPTURE TRUTH.zst RIGHT ROWS

A recorded display capture (fixtures/display/NAME.frc) against the stand-in compositor's
truth of the same run (NAME.present.zst: record.sh's --present-truth file), through
`frameanalyze db` (analyzer.display_truth_NAME):
  - the content layer's rows are the truth's latches, in order (two latches may share a
    desired time: a burst acquired at one latch), from the first whose desired time is the
    first row's (the compositor ran before the capture's first poll);
  - a row is linked right when its call is the one that queued the latched buffer: the
    newest call at or before the latch's queue time with that buffer (a call's probe entry
    comes before its buffer reaches the queue). Exactly RIGHT of the ROWS rows are (the
    figures fixtures/README.md quotes; a change in the link moves them);
  - `dropped` (calls never presented for certain: between two anchored rows of one
    segment) equals the truth's drops among the calls between those rows.
Exit 0, 1 (a check failed, says which), 77 (no zstd or sqlite3 module: SKIPPED).
"""
import bisect
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import sqlite3
except ImportError:
    print("SKIP: python3 has no sqlite3 module")
    sys.exit(77)


def truth_lines(path):
    """The truth's latch (desired, buffer, queue) and drop (buffer, queue) lines."""
    out = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True, text=True)
    latches, drops = [], []
    for line in out.stdout.splitlines():
        f = line.split()
        if f and f[0] == "latch":
            latches.append((int(f[3]), int(f[1], 16), int(f[2])))
        elif f and f[0] == "drop":
            drops.append((int(f[1], 16), int(f[2])))
    return latches, drops


def call_of(frames, ktimes, buf, queue):
    """Index (in ktime order) of the call that queued buf at queue: newest at or before it."""
    i = bisect.bisect_right(ktimes, queue) - 1
    while i >= 0 and frames[i][2] != buf:
        i -= 1
    return i


def main():
    fa, capture, truth, right_want, rows_want = sys.argv[1:6]
    if not shutil.which("zstd"):
        print("SKIP: no zstd (scripts/setup.sh installs it)")
        return 77
    latches, drops = truth_lines(truth)
    with tempfile.TemporaryDirectory() as tmp:
        dbp = os.path.join(tmp, "t.db")
        subprocess.run([fa, "db", capture, "-o", dbp], check=True, capture_output=True)
        db = sqlite3.connect(dbp)
        layer = db.execute("SELECT layer FROM layers WHERE content = 1").fetchone()[0]
        rows = db.execute("SELECT desired_ns, frame_seq, anchored, segment FROM presents"
                          " WHERE layer = ? ORDER BY layer_row", (layer,)).fetchall()
        frames = db.execute("SELECT seq, ktime_ns, buffer FROM frames f JOIN layers l ON"
                            " l.capture_id = f.capture_id AND l.layer = ? AND f.pid ="
                            " l.link_pid AND f.surface = l.link_surface ORDER BY ktime_ns",
                            (layer,)).fetchall()
        dropped = db.execute("SELECT dropped FROM display_summary WHERE content = 1").fetchone()[0]
    ktimes = [f[1] for f in frames]
    index = {f[0]: i for i, f in enumerate(frames)}
    start = next((k for k, l in enumerate(latches) if l[0] == rows[0][0]), None)
    bad = 0
    if start is None or start + len(rows) > len(latches) or any(
            latches[start + n][0] != r[0] for n, r in enumerate(rows)):
        print("FAIL %s: the rows are not the truth's latches in order" % capture)
        return 1
    right = sum(1 for n, r in enumerate(rows) if r[1] is not None and index[r[1]] ==
                call_of(frames, ktimes, latches[start + n][1], latches[start + n][2]))
    if (right, len(rows)) != (int(right_want), int(rows_want)):
        print("FAIL %s: %d of %d rows linked right, want %s of %s" %
              (capture, right, len(rows), right_want, rows_want))
        bad = 1
    gone = {call_of(frames, ktimes, b, q) for b, q in drops}
    anchors = [(index[r[1]], r[3]) for r in rows if r[2] == 1]
    between = [c for (a, sa), (b, sb) in zip(anchors, anchors[1:]) if sa == sb
               for c in range(a + 1, b)]
    truth_between = sum(1 for c in between if c in gone)
    if dropped != truth_between:
        print("FAIL %s: dropped %d, the truth's drops between anchored rows %d" %
              (capture, dropped, truth_between))
        bad = 1
    if not bad:
        print("ok %s: %d/%d linked right, dropped %d = the truth's" %
              (capture, right, len(rows), dropped))
    return bad


if __name__ == "__main__":
    sys.exit(main())
