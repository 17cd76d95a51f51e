#!/usr/bin/env python3
# perfetto_inflate.py [--bundles] < TRACE > PACKETS - a `frameanalyze perfetto` trace with its bundles
# opened, as trace processor opens them (src/trace_processor/importers/proto/
# proto_trace_tokenizer.h): each TracePacket of the file must be a bundle, a packet whose
# only field is compressed_packets (50, trace_packet.proto) holding one zlib stream; the
# stream must inflate to whole Trace.packet fields (tag 0x0a, a length, that many bytes),
# which are written out as they are, so protoc can decode the result as a plain Trace. Also
# checks trace_packet.proto's size rule: a bundle, its field ids and sizes included, under
# 512 KB. Python's zlib and this file's wire reader, none of the exporter's code. Exits 1
# naming the first fault (a cut or damaged file among them), 2 on usage. --bundles prints
# the number of bundles instead of the packets.
# Used by perfetto_test.sh and bench/analyzer/perfetto_budget.py; not a test of its own.
import sys
import zlib

PACKET_TAG = 1 << 3 | 2  # Trace.packet, length-delimited
COMPRESSED_TAG = 50 << 3 | 2  # TracePacket.compressed_packets, length-delimited
BUNDLE_MAX = 512 * 1024  # trace_packet.proto: "should be less than 512KB"


class Fault(Exception):
    pass


def varint(b, i):
    v = shift = 0
    while True:
        if i >= len(b) or shift > 63:
            raise Fault("a varint runs past the end at byte %d" % i)
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def packets(b, what):
    """(offset, bytes of the packet field: tag, length, body) of each Trace.packet in b."""
    i = 0
    while i < len(b):
        start = i
        tag, i = varint(b, i)
        if tag != PACKET_TAG:
            raise Fault("%s byte %d: tag %d, not Trace.packet" % (what, start, tag))
        n, i = varint(b, i)
        if i + n > len(b):
            raise Fault("%s byte %d: a packet of %d bytes is cut at %d" % (what, start, n,
                                                                          len(b) - i))
        yield start, b[start:i + n], b[i:i + n]
        i += n


def bundle_stream(offset, field, body):
    """The zlib stream of a bundle packet, or a Fault."""
    if len(field) >= BUNDLE_MAX:
        raise Fault("byte %d: a bundle of %d bytes, trace_packet.proto wants < 512 KB" %
                    (offset, len(field)))
    tag, i = varint(body, 0)
    if tag != COMPRESSED_TAG:
        raise Fault("byte %d: a packet outside a bundle (field %d)" % (offset, tag >> 3))
    n, i = varint(body, i)
    if i + n != len(body):
        raise Fault("byte %d: a bundle with more than compressed_packets" % offset)
    return body[i:]


def inflate(data):
    """The Trace's packets with every bundle opened: (bytes, number of bundles)."""
    out, bundles = bytearray(), 0
    for offset, field, body in packets(data, "trace"):
        z = zlib.decompressobj()
        try:
            inner = z.decompress(bundle_stream(offset, field, body))
        except zlib.error as e:
            raise Fault("byte %d: the bundle does not inflate: %s" % (offset, e))
        if not z.eof or z.unused_data:
            raise Fault("byte %d: the bundle is not exactly one zlib stream" % offset)
        for _, f, b in packets(inner, "bundle at byte %d, inflated" % offset):
            if b and varint(b, 0)[0] == COMPRESSED_TAG:
                raise Fault("byte %d: a bundle inside a bundle" % offset)
            out += f
        bundles += 1
    return bytes(out), bundles


def main():
    if sys.argv[1:] not in ([], ["--bundles"]):
        print("usage: perfetto_inflate.py [--bundles] < TRACE > PACKETS", file=sys.stderr)
        sys.exit(2)
    try:
        out, bundles = inflate(sys.stdin.buffer.read())
    except Fault as e:
        print("perfetto_inflate.py: %s" % e, file=sys.stderr)
        sys.exit(1)
    if sys.argv[1:]:
        print(bundles)  # --bundles: how many, instead of the packets
    else:
        sys.stdout.buffer.write(out)


if __name__ == "__main__":
    main()
