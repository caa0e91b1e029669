#!/bin/sh
# Records the environment it was started with (one NAME=value a line in its log), then skips.
env >&2
echo "skipped: environment recorded" >&2
exit 0
