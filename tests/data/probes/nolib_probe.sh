#!/bin/sh
# What ld.so prints when a probe's GPU library is not on this node (exit 127, nothing on stdout).
echo "$0: error while loading shared libraries: libcublas.so.13: cannot open shared object file: No such file or directory" >&2
exit 127
