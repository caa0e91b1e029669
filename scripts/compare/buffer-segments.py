#!/usr/bin/env python3
"""Physical layout of a running process's large anonymous buffers (root: /proc/PID/pagemap).

For each 1 MiB of every read-write anonymous mapping of at least --min-mib MiB, counts the runs
of physically consecutive 4 KiB pages: the scatter-gather segments a 1 MiB read into it needs
(where the device takes segments of any size). On a virtio disk without indirect descriptors
(VIRTIO_RING_F_INDIRECT_DESC, bit 28 of /sys/bus/virtio/devices/*/features) each request takes
its segments + 2 of the queue's descriptors, so buffers of many segments leave few requests in
flight. Used to explain the sequential-read figures of scripts/compare/compare-fio.sh.

usage: scripts/compare/buffer-segments.py PID [--min-mib 16]
"""
import argparse
import statistics
import struct
import sys

PFN_MASK = (1 << 55) - 1
PAGES_PER_MIB = 256


def large_anonymous_mappings(pid, min_mib):
    for line in open(f"/proc/{pid}/maps"):
        parts = line.split()
        lo, hi = (int(x, 16) for x in parts[0].split("-"))
        anonymous = len(parts) < 6 or parts[5].startswith("[") or parts[5].startswith("/SYSV")
        if hi - lo >= min_mib << 20 and parts[1].startswith("rw") and anonymous:
            yield lo, hi


def segments_per_mib(pagemap, lo, hi):
    pagemap.seek(lo // 4096 * 8)
    entries = struct.iter_unpack("<Q", pagemap.read((hi - lo) // 4096 * 8))
    pfns = [e & PFN_MASK if e >> 63 else None for (e,) in entries]
    counts = []
    for start in range(0, len(pfns) - PAGES_PER_MIB + 1, PAGES_PER_MIB):
        chunk = pfns[start:start + PAGES_PER_MIB]
        if None in chunk or not any(chunk):
            continue  # not faulted in, or PFNs hidden (not root)
        counts.append(1 + sum(1 for a, b in zip(chunk, chunk[1:]) if b != a + 1))
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pid", type=int)
    parser.add_argument("--min-mib", type=int, default=16)
    args = parser.parse_args()
    try:
        pagemap = open(f"/proc/{args.pid}/pagemap", "rb")
        mappings = list(large_anonymous_mappings(args.pid, args.min_mib))
    except OSError as error:
        sys.exit(f"buffer-segments: pid {args.pid}: {error.strerror}")
    found = False
    for lo, hi in mappings:
        counts = segments_per_mib(pagemap, lo, hi)
        if counts:
            found = True
            print(f"{(hi - lo) >> 20} MiB at {lo:#x}: segments per 1 MiB median {statistics.median(counts):g} "
                  f"[{min(counts)}, {max(counts)}] over {len(counts)} MiB")
    if not found:
        sys.exit(f"buffer-segments: pid {args.pid}: no faulted-in anonymous mapping of {args.min_mib} MiB or more "
                 "(or PFNs hidden: run as root)")


if __name__ == "__main__":
    main()
