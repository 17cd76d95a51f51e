#!/usr/bin/env python3
# perfetto_check.py DECODED.txt EXPORT.txt - check a decoded `frameanalyze perfetto` trace
# (protoc --decode=perfetto.protos.Trace, text format) against the capture's records
# (`frameanalyze export`, the canonical text), with Perfetto's own reading rules and none of
# the exporter's code. Prints "instants=N slices=M intervals=K" and exits 0, or names the
# first failure and exits 1. What it checks:
#   - timestamps: each packet's time is rebuilt as trace processor does (timestamp_clock_id,
#     else the sequence's TracePacketDefaults; a ClockSnapshot clock with is_incremental
#     makes a packet's timestamp a delta from the previous packet on that clock, the first
#     from the snapshot's value; the snapshot relates it to MONOTONIC, clock 3);
#   - names, tracks: name or name_iid (InternedData.event_names), track_uuid or the
#     sequence's TrackEventDefaults.track_uuid; an interned id must be emitted before use;
#   - one sequence (a nonzero trusted_packet_sequence_id): its first packet clears the
#     incremental state, every later one says it needs it (and none clears it again);
#   - one queueBuffer instant per frame record, in file order, at the record's ktime, on
#     the thread track of its (pid, tid), with annotations buffer and surface equal to the
#     record's (hex strings: interned, or inline);
#   - the counter "frame time" of the main surface (UNIT_TIME_NS; single samples or
#     extra_counter_values / extra_double_counter_values, mapped to tracks as trace
#     processor does: each list by its own uuid list, the event's or else the defaults')
#     is the truth series of REPORT.md "Ground truth", computed here from the records: one
#     sample per interval of the main PID's main surface, at its ktime, exactly the
#     interval in ns; no "submitted FPS" counter repeats it (1e9 / interval);
#   - per surface track: slices begin and end in turn, never end before they begin, and are
#     exactly the submission intervals of REPORT.md "Perfetto trace": each call of a
#     (pid, surface) ends the open slice at the call (at the slice's begin if the call is
#     earlier) and begins the next; exit of the pid, or the capture's end, ends the open
#     slice at its begin (its surface's last call: zero length);
#   - per display layer track ("display layer ID ..."): one slice "present" per present row
#     of the layer with a valid actual time (not one back in time), from it to the next
#     such row's actual when no present_gap lies between and it is later, else of zero
#     length; a present's terminating flow id F starts at exactly one instant "presented"
#     on the main surface's track at the ktime of the frame record number F - 1.
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def parse_text(text):
    """protoc's text format -> nested dicts of field name -> list of values."""
    root = {}
    stack = [root]
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.endswith("{"):
            child = {}
            stack[-1].setdefault(line[:-1].strip(), []).append(child)
            stack.append(child)
        elif line == "}":
            stack.pop()
        else:
            key, value = line.split(": ", 1)
            stack[-1].setdefault(key, []).append(value)
    if len(stack) != 1:
        fail("unbalanced braces in the decoded text")
    return root


def one(msg, field, default=None):
    values = msg.get(field)
    if not values:
        return default
    if len(values) != 1:
        fail("field %s repeated in an optional position" % field)
    return values[0]


def num(msg, field, default=None):
    v = one(msg, field)
    return default if v is None else int(v)


def text(msg, field):
    v = one(msg, field)
    if v is None:
        return None
    if not (v.startswith('"') and v.endswith('"')):
        fail("field %s is not a string: %s" % (field, v))
    return v[1:-1].encode("latin-1").decode("unicode_escape")


class Sequence:
    """What a reader keeps per trusted_packet_sequence_id."""

    def __init__(self):
        self.clear()

    def clear(self):
        self.default_clock = None
        self.default_track = None
        self.default_extras = {"int": [], "double": []}
        self.event_names = {}
        self.annotation_names = {}
        self.strings = {}
        self.incremental = {}  # clock id -> its current absolute value (its own domain)
        self.offset = {}  # clock id -> MONOTONIC minus that clock, from the snapshot


def read_defaults(seq, pkt):
    d = one(pkt, "trace_packet_defaults")
    if d is None:
        return
    seq.default_clock = num(d, "timestamp_clock_id")
    ted = one(d, "track_event_defaults") or {}
    seq.default_track = num(ted, "track_uuid")
    seq.default_extras = {
        "int": [int(v) for v in ted.get("extra_counter_track_uuids", [])],
        "double": [int(v) for v in ted.get("extra_double_counter_track_uuids", [])]}


def read_interned(seq, pkt):
    idata = one(pkt, "interned_data")
    if idata is None:
        return
    for field, table, key in (("event_names", seq.event_names, "name"),
                              ("debug_annotation_names", seq.annotation_names, "name"),
                              ("debug_annotation_string_values", seq.strings, "str")):
        for entry in idata.get(field, []):
            iid = num(entry, "iid", 0)
            if iid == 0:
                fail("interned %s entry without an iid" % field)
            table[iid] = text(entry, key)


def read_snapshot(seq, pkt):
    snap = one(pkt, "clock_snapshot")
    if snap is None:
        return
    clocks = {num(c, "clock_id"): c for c in snap.get("clocks", [])}
    if 3 not in clocks:
        fail("the clock snapshot has no MONOTONIC clock (3)")
    mono = num(clocks[3], "timestamp")
    for cid, c in clocks.items():
        if one(c, "is_incremental") == "true":
            if cid < 64 or cid > 127:
                fail("incremental clock %d is not a sequence-scoped clock (64..127)" % cid)
            seq.incremental[cid] = num(c, "timestamp")
            seq.offset[cid] = mono - num(c, "timestamp")


def packet_time(seq, pkt):
    """The packet's MONOTONIC time in ns, or None without a timestamp."""
    ts = num(pkt, "timestamp")
    if ts is None:
        return None
    clock = num(pkt, "timestamp_clock_id", seq.default_clock)
    if clock is None:
        fail("a timestamp with no clock (and no default clock)")
    if clock == 3:
        return ts
    if clock not in seq.incremental:
        fail("timestamp on clock %d, which no snapshot defined as incremental" % clock)
    seq.incremental[clock] += ts
    return seq.incremental[clock] + seq.offset[clock]


def resolve(seq, table, iid, what):
    if iid not in table:
        fail("%s iid %d used before it was interned" % (what, iid))
    return table[iid]


def check_sequence(trace):
    packets = trace.get("packet", [])
    if not packets:
        fail("no packet")
    if {num(p, "trusted_packet_sequence_id", 0) for p in packets} != {1}:
        fail("the packets are not all on trusted sequence 1")
    if num(packets[0], "sequence_flags", 0) != 1:
        fail("the first packet does not clear the incremental state (sequence_flags 1)")
    for i, p in enumerate(packets[1:], 1):
        if num(p, "sequence_flags", 0) != 2:
            fail("packet %d: sequence_flags %s, not SEQ_NEEDS_INCREMENTAL_STATE (2)" %
                 (i, num(p, "sequence_flags")))


def extra_samples(seq, te, t):
    """(track, t, value) of each extra_counter_values (int64, kept exact) and
    extra_double_counter_values entry: trace processor's tokenizer maps each list to its
    own uuid list (the event's, else the defaults'), needs as many uuids as values and at
    most 8 extra values in all (TrackEventData::kMaxNumExtraCounters)."""
    out = []
    for kind, conv, prefix in (("int", int, "extra_counter"),
                               ("double", float, "extra_double_counter")):
        values = [conv(v) for v in te.get(prefix + "_values", [])]
        uuids = [int(v) for v in te.get(prefix + "_track_uuids", [])] or \
            seq.default_extras[kind]
        if len(values) > len(uuids):
            fail("%d %s values for %d counter tracks" % (len(values), prefix, len(uuids)))
        out += [(u, t, v) for u, v in zip(uuids, values)]
    if len(out) > 8:
        fail("%d extra counter values in one event, trace processor takes 8" % len(out))
    return out


FLOWS = []  # (start | end, id, ktime, track, event name), filled by track_events


def track_events(trace):
    """Every track event as (ktime, type, track, name, annotations) in trace order, the
    track descriptors by uuid, and the counter samples as (track, ktime, value)."""
    seqs, tracks, events, samples = {}, {}, [], []
    for pkt in trace.get("packet", []):
        seq_id = num(pkt, "trusted_packet_sequence_id", 0)
        seq = seqs.setdefault(seq_id, Sequence())
        if num(pkt, "sequence_flags", 0) & 1:
            seq.clear()
        read_defaults(seq, pkt)
        read_interned(seq, pkt)
        read_snapshot(seq, pkt)
        if "clock_snapshot" in pkt:
            continue  # trace processor reads no timestamp from a snapshot packet
        t = packet_time(seq, pkt)
        td = one(pkt, "track_descriptor")
        if td is not None:
            tracks[num(td, "uuid")] = td
        te = one(pkt, "track_event")
        if te is None:
            continue
        if t is None:
            fail("a track event without a timestamp")
        track = num(te, "track_uuid", seq.default_track)
        if track is None or track not in tracks:
            fail("event on track %s, not described before it" % track)
        name = text(te, "name")
        if name is None and "name_iid" in te:
            name = resolve(seq, seq.event_names, num(te, "name_iid"), "event name")
        events.append((t, one(te, "type"), track, name, annotations(seq, te)))
        for f in te.get("flow_ids", []):
            FLOWS.append(("start", int(f), t, track, name))
        for f in te.get("terminating_flow_ids", []):
            FLOWS.append(("end", int(f), t, track, name))
        if one(te, "type") == "TYPE_COUNTER":
            if ("counter_value" in te) == ("double_counter_value" in te):
                fail("a counter event at %d without exactly one value" % t)
            v = num(te, "counter_value")
            samples.append((track, t, float(one(te, "double_counter_value")) if v is None
                            else v))
        samples.extend(extra_samples(seq, te, t))
    for track, _, _ in samples:
        if track not in tracks or one(tracks[track], "counter") is None:
            fail("a counter sample on track %d, which is no counter track" % track)
    return events, tracks, samples


def annotations(seq, te):
    out = {}
    for da in te.get("debug_annotations", []):
        name = text(da, "name")
        if name is None:
            name = resolve(seq, seq.annotation_names, num(da, "name_iid", 0), "annotation name")
        if "string_value_iid" in da:
            out[name] = resolve(seq, seq.strings, num(da, "string_value_iid"), "string value")
        elif "string_value" in da:
            out[name] = text(da, "string_value")
        else:
            out[name] = one(da, "uint_value") or one(da, "pointer_value") or one(da, "double_value")
    return out


def read_export(path):
    recs = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if w and w[0] == "frame":
                surface = int(w[5], 16) if len(w) > 5 else 0
                recs.append(("frame", int(w[1]), int(w[2]), int(w[3]), int(w[4], 16), surface))
            elif w and w[0] in ("exit", "attach"):
                recs.append((w[0], int(w[1]), int(w[2])))
            elif w and w[0] == "present":
                recs.append(("present", int(w[1]), int(w[2]), int(w[4])))
            elif w and w[0] == "present_gap":
                recs.append(("present_gap", int(w[1]), int(w[2])))
    return recs


def expected_slices(recs):
    """(pid, surface) -> [(begin, end)] by REPORT.md's rule, from the records alone."""
    open_at, out = {}, {}
    for r in recs:
        if r[0] == "frame":
            key, t = (r[2], r[5]), r[1]
            if key in open_at:
                out.setdefault(key, []).append((open_at[key], max(t, open_at[key])))
            open_at[key] = t
        elif r[0] == "exit":
            for key in [k for k in open_at if k[0] == r[2]]:
                out.setdefault(key, []).append((open_at[key], open_at.pop(key)))
    for key, t in open_at.items():
        out.setdefault(key, []).append((t, t))
    return out


def surface_key(tracks, td):
    """(pid, surface) of a surface track: its name and its parent process track."""
    name = text(td, "name") or ""
    if not name.startswith("surface "):
        return None
    parent = tracks.get(num(td, "parent_uuid"))
    proc = one(parent, "process") if parent else None
    if proc is None:
        fail("surface track %s has no process track as parent" % name)
    return (num(proc, "pid"), int(name.split()[1], 16))


def check_instants(events, tracks, recs):
    frames = [r for r in recs if r[0] == "frame"]
    calls = [e for e in events if e[3] == "queueBuffer"]
    if len(calls) != len(frames):
        fail("%d queueBuffer instants, %d frame records" % (len(calls), len(frames)))
    for i, (ev, rec) in enumerate(zip(calls, frames)):
        thread = one(tracks[ev[2]], "thread")
        if ev[1] != "TYPE_INSTANT" or thread is None:
            fail("queueBuffer %d is not an instant on a thread track" % i)
        got = (ev[0], num(thread, "pid"), num(thread, "tid"))
        if got != rec[1:4]:
            fail("queueBuffer %d: (ktime, pid, tid) %s, the record has %s" % (i, got, rec[1:4]))
        ann = ev[4]
        if set(ann) != {"buffer", "surface"}:
            fail("queueBuffer %d: annotations %s, not buffer and surface" % (i, sorted(ann)))
        got = (int(ann["buffer"], 16), int(ann["surface"], 16))
        if got != rec[4:6]:
            fail("queueBuffer %d: (buffer, surface) %s, the record has %s" % (i, got, rec[4:6]))
    return len(calls)


def truth_series(recs):
    """[(ktime, interval ns)] of the main PID's main surface (REPORT.md "Ground truth")."""
    frames = [r for r in recs if r[0] == "frame"]
    if not frames:
        return []
    per_pid, per_surface = {}, {}
    for r in frames:
        per_pid[r[2]] = per_pid.get(r[2], 0) + 1
        per_surface[(r[2], r[5])] = per_surface.get((r[2], r[5]), 0) + 1
    pid = min(per_pid, key=lambda p: (-per_pid[p], p))
    surface = min((s for p, s in per_surface if p == pid),
                  key=lambda s: (-per_surface[(pid, s)], s))
    out, prev = [], None
    for r in recs:
        if r[0] in ("attach", "exit") and r[2] == pid:
            prev = None
        elif r[0] == "frame" and (r[2], r[5]) == (pid, surface):
            if prev is not None and r[1] > prev:
                out.append((r[1], r[1] - prev))
            prev = r[1]
    return out


def check_counters(tracks, samples, recs):
    by_name = {}
    for track, t, v in samples:
        by_name.setdefault(text(tracks[track], "name"), []).append((t, v))
    # the submitted FPS per interval is 1e9 / the frame time at the same ktime: the trace
    # keeps the frame time only (REPORT.md "Perfetto trace"), a second copy is a regression
    if any(n.startswith("submitted FPS") for n in by_name):
        fail("a submitted FPS counter: it repeats the frame time counter")
    for name, td in ((text(td, "name"), td) for td in tracks.values()):
        cd = one(td, "counter") or {}
        if "unit_multiplier" in cd or "is_incremental" in cd:
            # trace processor would scale or accumulate them: the values read here as
            # they are would not be the ones it shows
            fail("counter %s has a unit_multiplier or is_incremental" % name)
        if name in ("frame time (main surface)", "tracker delta") and \
                one(one(td, "counter") or {}, "unit") != "UNIT_TIME_NS":
            fail("counter %s is not in UNIT_TIME_NS" % name)
    ns = by_name.get("frame time (main surface)", [])
    want = truth_series(recs)
    if len(ns) != len(want):
        fail("%d frame time samples, %d intervals" % (len(ns), len(want)))
    for i, ((t, d), (tm, m)) in enumerate(zip(want, ns)):
        if tm != t or not isinstance(m, int) or m != d:
            fail("interval %d (%d ns at %d): frame time %r at %d" % (i, d, t, m, tm))
    return len(want)


def check_slices(events, tracks, recs):
    got = {}
    for t, typ, track, name, _ in events:
        if typ not in ("TYPE_SLICE_BEGIN", "TYPE_SLICE_END"):
            continue
        if (text(tracks[track], "name") or "").startswith("display layer "):
            continue  # check_display
        key = surface_key(tracks, tracks[track])
        if key is None:
            fail("a slice on track %d, which is no surface track" % track)
        slices = got.setdefault(key, [])
        if typ == "TYPE_SLICE_BEGIN":
            if slices and slices[-1][1] is None:
                fail("surface %s: a slice begins at %d inside an open one" % (key, t))
            if name != "frame":
                fail("surface %s: a slice named %s" % (key, name))
            slices.append((t, None))
        else:
            if not slices or slices[-1][1] is not None:
                fail("surface %s: a slice ends at %d with none open" % (key, t))
            if t < slices[-1][0]:
                fail("surface %s: a slice ends at %d before it began" % (key, t))
            slices[-1] = (slices[-1][0], t)
    want = expected_slices(recs)
    if got != want:
        for key in sorted(set(got) | set(want)):
            if got.get(key) != want.get(key):
                a, b = got.get(key, []), want.get(key, [])
                diff = next((i for i, p in enumerate(zip(a, b)) if p[0] != p[1]),
                            min(len(a), len(b)))
                fail("surface %s: slice %d is %s, the records give %s (%d slices, %d expected)" %
                     (key, diff, a[diff] if diff < len(a) else None,
                      b[diff] if diff < len(b) else None, len(a), len(b)))
    return sum(len(v) for v in got.values())


def expected_presents(recs):
    """layer -> [(begin, end)] by REPORT.md's rule, from the present records alone."""
    out, last, gap = {}, {}, {}
    for r in recs:
        if r[0] == "present_gap":  # after a gap nothing is back in time
            gap[r[2]], last[r[2]] = True, 0
        if r[0] != "present" or not 0 < r[3] < 2**63 - 1:
            continue
        layer, a, slices = r[2], r[3], out.setdefault(r[2], [])
        if a < last.get(layer, 0):
            continue  # back in time: no slice
        if slices and not gap.get(layer) and a > slices[-1][0]:
            slices[-1] = (slices[-1][0], a)
        slices.append((a, a))
        last[layer], gap[layer] = a, False
    return out


def check_display(events, tracks, recs):
    got = {}
    for t, typ, track, name, _ in events:
        tname = text(tracks[track], "name") or ""
        if not tname.startswith("display layer ") or typ not in ("TYPE_SLICE_BEGIN",
                                                                  "TYPE_SLICE_END"):
            continue
        slices = got.setdefault(int(tname.split()[2]), [])
        if typ == "TYPE_SLICE_BEGIN":
            if name != "present" or (slices and slices[-1][1] is None):
                fail("display layer %s: slice %s begins at %d inside an open one" %
                     (tname, name, t))
            slices.append((t, None))
        else:
            if not slices or slices[-1][1] is not None or t < slices[-1][0]:
                fail("display %s: a slice ends at %d with none open or before it began" %
                     (tname, t))
            slices[-1] = (slices[-1][0], t)
    want = expected_presents(recs)
    if got != {k: v for k, v in want.items() if v}:
        fail("display slices %s, the records give %s" %
             ({k: len(v) for k, v in got.items()}, {k: len(v) for k, v in want.items()}))
    frames = [r for r in recs if r[0] == "frame"]
    starts = {}
    for kind, f, t, track, name in FLOWS:
        if kind == "start":
            if f in starts or name != "presented":
                fail("flow %d starts twice, or at %s" % (f, name))
            starts[f] = (t, track)
    ends = [f for kind, f, _, _, _ in FLOWS if kind == "end"]
    if sorted(ends) != sorted(starts) or len(set(ends)) != len(ends):
        fail("%d flows start, %d end" % (len(starts), len(ends)))
    for f, (t, track) in starts.items():
        if not 0 < f <= len(frames) or frames[f - 1][1] != t or \
                surface_key(tracks, tracks[track]) != (frames[f - 1][2], frames[f - 1][5]):
            fail("flow %d starts at %d, not at frame %d's call on its surface" % (f, t, f - 1))
    return sum(len(v) for v in got.values()), len(ends)


def main():
    if len(sys.argv) != 3:
        print("usage: perfetto_check.py DECODED.txt EXPORT.txt")
        sys.exit(2)
    with open(sys.argv[1]) as f:
        trace = parse_text(f.read())
    recs = read_export(sys.argv[2])
    check_sequence(trace)
    events, tracks, samples = track_events(trace)
    n_instants = check_instants(events, tracks, recs)
    n_slices = check_slices(events, tracks, recs)
    n_intervals = check_counters(tracks, samples, recs)
    n_presents, n_flows = check_display(events, tracks, recs)
    print("instants=%d slices=%d intervals=%d presents=%d flows=%d" %
          (n_instants, n_slices, n_intervals, n_presents, n_flows))


main()
