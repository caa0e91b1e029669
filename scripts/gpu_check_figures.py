#!/usr/bin/env python3
"""Key figures of scripts/gpu-check.sh's steps, one line each for summary.txt (standard library
only: it runs under whatever python3 the GPU image has).

  gpu_check_figures.py run RESULTS_PARENT   `pipecheck run` results (the newest run folder)
  gpu_check_figures.py nccl JSON            pipecheck-comm's Google Benchmark JSON
  gpu_check_figures.py stress DIR           `pipecheck stress` summary.json

Prints the figures line; for `run` also the key measurements, one a line, after it. Exit 0
when the input was read, 1 (with one line saying why) when it could not be.
"""
import collections
import glob
import json
import os
import re
import sys


def newest_report(parent):
    reports = glob.glob(os.path.join(parent, "*", "report.json")) + glob.glob(os.path.join(parent, "report.json"))
    if not reports:
        raise ValueError(f"no report.json under {parent}")
    return max(reports, key=os.path.getmtime)


def best(measurements, stage, unit, **params):
    """The measurement of `stage` whose params match, with the highest median."""
    chosen = None
    for m in measurements:
        if m.get("stage") != stage or m.get("unit") != unit:
            continue
        p = m.get("params", {})
        if any(p.get(k) != v for k, v in params.items()):
            continue
        if chosen is None or m["stats"]["median"] > chosen["stats"]["median"]:
            chosen = m
    return chosen


def describe(label, m):
    if m is None:
        return None
    s = m["stats"]
    text = f"{label}: {s['median']:.4g} {m['unit']} (min {s['min']:.4g}, max {s['max']:.4g}"
    if m.get("percent_of_ceiling") is not None:
        text += f", {m['percent_of_ceiling']:.0f}% of {m['ceiling']['value']:.4g}"
    verified = m.get("params", {}).get("verified")
    if verified:
        text += f", verified {verified}"
    return text + f") {m['key']}"


def run_figures(parent):
    path = newest_report(parent)
    with open(path) as f:
        report = json.load(f)
    probes = report.get("probes", [])
    statuses = collections.Counter(p.get("status", "?") for p in probes)
    verdicts = collections.Counter(v.get("verdict", "?") for v in report.get("verdicts", []))
    problems = [f"{p['stage']} {p['status']}" + (f" ({p.get('reason', '')[:40]})" if p.get("reason") else "")
                for p in probes if p.get("status") not in ("ok",)]
    line = (f"overall {report.get('overall', '?')}; probes " + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())) +
            "; verdicts " + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())))
    if problems:
        line += "; " + "; ".join(problems[:3])
    print(line)
    ms = report.get("measurements", [])
    rows = [
        describe("GEMM bf16", best(ms, "compute", "TFLOP/s", dtype="bf16")),
        describe("HBM copy", best(ms, "memory", "GB/s", op="copy")),
        describe("HBM triad", best(ms, "memory", "GB/s", op="triad")),
        describe("H2D pinned", best(ms, "pcie", "GB/s", direction="h2d", host_memory="pinned")),
        describe("D2H pinned", best(ms, "pcie", "GB/s", direction="d2h", host_memory="pinned")),
    ]
    for row in rows:
        if row:
            print("  " + row)


def nccl_figures(path):
    with open(path) as f:
        doc = json.load(f)
    cases = [b for b in doc.get("benchmarks", []) if b.get("run_type", "iteration") == "iteration"]
    if not cases:
        raise ValueError(f"{path}: no cases")
    errors = [b for b in cases if b.get("error_occurred")]
    verified = collections.Counter()
    wrong = 0
    for b in cases:
        label = dict(item.split("=", 1) for item in b.get("label", "").split(";") if "=" in item)
        verified[label.get("verified", "?")] += 1
        wrong += int(b.get("wrong", 0) or 0)
    line = f"{len(cases)} cases, verified " + ", ".join(f"{v} {n}" for v, n in sorted(verified.items()))
    line += f", {wrong} wrong elements"
    if errors:
        line += f"; {len(errors)} errors, first: {errors[0].get('error_message', '')[:60]}"
    def size_of(b):
        found = re.search(r"/bytes:(\d+)", b["name"])
        return int(found.group(1)) if found else 0

    largest = max((b for b in cases if "/all_reduce/float/" in b["name"] and not b.get("error_occurred")),
                  key=size_of, default=None)
    if largest:
        size = size_of(largest)
        line += (f"; all_reduce float {size >> 20} MiB: algbw {largest.get('algbw_GBps', 0):.1f} GB/s, "
                 f"busbw {largest.get('busbw_GBps', 0):.1f}")
    print(line)


def stress_figures(folder):
    with open(os.path.join(folder, "summary.json")) as f:
        s = json.load(f)
    parts = [f"{s.get('verdict', '?')} after {s.get('duration_s', 0):.0f} s of {s.get('dtype', '?')}"]
    for g in s.get("gpus", []):
        text = (f"gpu{g.get('index')} {g.get('verdict', '?')}: peak {g.get('peak_tflops') or 0:.0f} TF, "
                f"{g.get('wrong_results', '?')} wrong, {g.get('memory_errors', '?')} memory errors, "
                f"max {g.get('max_temp_c') or '?'} C, {g.get('mean_power_w') or 0:.0f} W")
        if g.get("error"):
            text += f", error: {g['error'][:50]}"
        parts.append(text)
    print("; ".join(parts))


def main(argv):
    commands = {"run": run_figures, "nccl": nccl_figures, "stress": stress_figures}
    if len(argv) != 3 or argv[1] not in commands:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    try:
        commands[argv[1]](argv[2])
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"figures unreadable: {type(e).__name__}: {e}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
