#!/bin/sh
# A probe that puts its own arguments into its label, as pipecheck-storage puts its scratch
# folder there: shows what a probe's output says about the paths the driver gave it.
args=$(printf '%s ' "$@" | sed 's/"/_/g')
cat <<JSON
{"context": {"pipecheck_stage": "storage"},
 "benchmarks": [{"name": "storage/seq_read/args", "run_name": "storage/seq_read/args", "run_type": "iteration",
   "repetitions": 1, "repetition_index": 0, "iterations": 1, "real_time": 1.0, "cpu_time": 1.0, "time_unit": "s",
   "bytes_per_second": 1.0e9, "label": "what=seq read;args=$args"}]}
JSON
