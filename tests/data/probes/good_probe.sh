#!/bin/sh
# A probe that works: prints recorded Google Benchmark JSON.
cat "$(dirname "$0")/hostmem_sample.json"
