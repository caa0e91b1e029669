#!/bin/sh
# A probe that exits with an error code and a message.
echo "cudaMalloc on GPU 0: out of memory" >&2
exit 3
