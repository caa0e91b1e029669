#!/usr/bin/python3
"""Checks pipecheck.prom files with the Prometheus client library's own parser (Debian's
python3-prometheus-client), then holds them to the naming rules pipecheck follows: one family per
quantity in base units, every family a documented gauge, no duplicate series, and GPU series
labelled as dcgm-exporter labels them. Prints one line per problem; exit 0 clean, 1 problems,
3 the parser is not installed.

Usage: /usr/bin/python3 tests/check_prometheus.py FILE.prom...
"""
import math
import re
import sys

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    print("check_prometheus: python3-prometheus-client is not installed", file=sys.stderr)
    sys.exit(3)

# What a family name may end in: a base unit (Prometheus naming), a ratio, a count-like gauge or an
# info/verdict gauge that has no unit.
BASE_UNIT_SUFFIXES = ("_bytes_per_second", "_flop_per_second", "_operations_per_second",
                      "_images_per_second", "_items_per_second", "_samples_per_second", "_seconds",
                      "_ratio", "_info")
UNITLESS = {"pipecheck_verdict", "pipecheck_overall_verdict", "pipecheck_probe_ok", "pipecheck_findings"}
# Units that are not base units must not appear in a name ("_gb", "_tflops", "_percent", ...).
NOT_BASE = re.compile(r"_(gb|gib|mb|mib|kb|tflops?|gflops?|tops|iops|percent|ms|us|ns|minutes|hours)(_|$)")
# A label that says the unit means one family mixes units.
FORBIDDEN_LABELS = {"unit"}
GPU_LABELS = ("gpu", "UUID", "pci_bus_id", "Hostname")
BUS_ID = re.compile(r"^[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\.[0-7]$")


def check(path, text):
    problems = []
    try:
        families = list(text_string_to_metric_families(text))
    except Exception as error:  # the parser's own words name the line
        return [f"{path}: does not parse: {error}"]
    names = set()
    for family in families:
        name = family.name
        if name in names:
            problems.append(f"{path}: family {name} declared twice")
        names.add(name)
        if family.type != "gauge":
            problems.append(f"{path}: {name} is a {family.type}, pipecheck writes gauges")
        if not family.documentation:
            problems.append(f"{path}: {name} has no HELP")
        if not name.startswith("pipecheck_"):
            problems.append(f"{path}: {name} lacks the pipecheck_ prefix")
        if name not in UNITLESS and not name.endswith(BASE_UNIT_SUFFIXES):
            problems.append(f"{path}: {name} does not end in a base unit")
        if NOT_BASE.search(name):
            problems.append(f"{path}: {name} names a unit that is not a base unit")
        seen = set()
        for sample in family.samples:
            labels = sample.labels
            key = (sample.name, tuple(sorted(labels.items())))
            if key in seen:
                problems.append(f"{path}: duplicate series {sample.name}{labels}")
            seen.add(key)
            if not math.isfinite(sample.value):
                problems.append(f"{path}: {sample.name}{labels} is {sample.value}")
            for label in FORBIDDEN_LABELS & set(labels):
                problems.append(f"{path}: {sample.name} has a '{label}' label: one family per quantity")
            if "key" in labels and len(labels) <= 2:
                problems.append(f"{path}: {sample.name} packs its dimensions into 'key'")
            if any(label in labels for label in ("UUID", "pci_bus_id")):
                missing = [label for label in GPU_LABELS if label not in labels]
                if missing:
                    problems.append(f"{path}: GPU series {sample.name}{labels} lacks {missing}")
                elif not BUS_ID.match(labels["pci_bus_id"]):
                    problems.append(f"{path}: pci_bus_id {labels['pci_bus_id']} is not in NVML's form")
            if name == "pipecheck_ceiling_ratio" and not 0 <= sample.value < 10:
                problems.append(f"{path}: ceiling ratio {sample.value} is not a ratio")
    return problems


def main(paths):
    if not paths:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    problems = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            problems += check(path, f.read())
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
