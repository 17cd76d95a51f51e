#!/usr/bin/env python3
# perfetto_budget.py TRACE FRAMES - where a `frameanalyze perfetto` trace's bytes go. The
# file is compressed_packets bundles: first the file's bytes per frame (FRAMES) and the
# bundles', then every byte of the packets inside them (opened by
# tests/analyzer/perfetto_inflate.py; the raw protobuf wire format, read here without
# protoc or the exporter's code) charged to its packet's kind (the TrackEvent type, or
# "setup" for descriptors, the first packet, ...) and to the field that holds it, in bytes
# per frame before compression. The per-field lines of a kind add up to its total; the
# kinds add up to the inflated packets. Field names are Perfetto's
# (tests/analyzer/perfetto_subset.proto has the numbers). Used by bench_perfetto.sh; not a
# test.
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "analyzer"))
import perfetto_inflate  # noqa: E402 (found through the path above)

PACKET = {6: "clock_snapshot", 8: "timestamp", 10: "trusted_packet_sequence_id",
          11: "track_event", 12: "interned_data", 13: "sequence_flags",
          58: "timestamp_clock_id", 59: "trace_packet_defaults", 60: "track_descriptor"}
EVENT = {4: "debug_annotations", 9: "type", 10: "name_iid", 11: "track_uuid",
         12: "extra_counter_values", 30: "counter_value", 31: "extra_counter_track_uuids",
         44: "double_counter_value", 45: "extra_double_counter_track_uuids",
         46: "extra_double_counter_values", 47: "flow_ids", 48: "terminating_flow_ids"}
ANNOTATION = {1: "name_iid", 3: "uint_value", 5: "double_value", 17: "string_value_iid"}
TYPES = {1: "SLICE_BEGIN", 2: "SLICE_END", 3: "INSTANT", 4: "COUNTER"}


varint = perfetto_inflate.varint  # the one wire reader of the two scripts


def fields(b):
    """(number, value: int or bytes, bytes of key + length, bytes in all) of each field."""
    i = 0
    while i < len(b):
        start = i
        key, i = varint(b, i)
        wire = key & 7
        if wire == 0:
            v, i = varint(b, i)
            yield key >> 3, v, i - start, i - start
        elif wire == 1 or wire == 5:
            n = 8 if wire == 1 else 4
            yield key >> 3, b[i:i + n], i - start, i + n - start
            i += n
        elif wire == 2:
            n, j = varint(b, i)
            yield key >> 3, b[j:j + n], j - start, j + n - start
            i = j + n
        else:
            sys.exit("perfetto_budget.py: wire type %d at byte %d" % (wire, start))


def charge_event(cost, kind, te):
    for f, v, head, size in fields(te):
        name = "track_event." + EVENT.get(f, str(f))
        if f != 4:
            cost[kind, name] += size
            continue
        cost[kind, name + " (key, length)"] += head
        for af, _, _, asize in fields(v):
            cost[kind, name + "." + ANNOTATION.get(af, str(af))] += asize


def budget(data):
    cost, count = collections.Counter(), collections.Counter()
    for _, pkt, head, _ in fields(data):
        parts = list(fields(pkt))
        te = next((v for f, v, _, _ in parts if f == 11), None)
        kind = "setup"
        if te is not None:
            kind = next((TYPES.get(v, str(v)) for f, v, _, _ in fields(te) if f == 9), "?")
        count[kind] += 1
        cost[kind, "Trace.packet (key, length)"] += head
        for f, v, fhead, size in parts:
            if f == 11:
                cost[kind, "track_event (key, length)"] += fhead
                charge_event(cost, kind, v)
            else:
                cost[kind, PACKET.get(f, str(f))] += size
    return cost, count


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: perfetto_budget.py TRACE FRAMES")
    with open(sys.argv[1], "rb") as f:
        packed = f.read()
    frames = int(sys.argv[2])
    try:
        data, bundles = perfetto_inflate.inflate(packed)
    except perfetto_inflate.Fault as e:
        sys.exit("perfetto_budget.py: %s" % e)
    cost, count = budget(data)
    total = collections.Counter()
    for (kind, _), c in cost.items():
        total[kind] += c
    print("file:    %.2f bytes/frame in %d bytes: %d compressed_packets bundles, %.2fx "
          "smaller than their packets" % (len(packed) / frames, len(packed), bundles,
                                          len(data) / len(packed)))
    print("budget:  %.2f bytes/frame in %d bytes of packets before compression" %
          (len(data) / frames, len(data)))
    for kind in sorted(total, key=lambda k: (-total[k], k)):
        print("  %-12s %6.2f bytes/frame, %d packets" % (kind, total[kind] / frames,
                                                        count[kind]))
        for (k, field), c in sorted(cost.items(), key=lambda kv: (-kv[1], kv[0])):
            if k == kind and c * 100 >= frames:  # 0.01 byte/frame and more
                print("    %-48s %6.2f" % (field, c / frames))


main()
