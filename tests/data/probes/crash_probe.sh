#!/bin/sh
# A probe that crashes mid-run, after printing part of its output.
echo '{"context": {'
echo "about to crash" >&2
kill -SEGV $$
