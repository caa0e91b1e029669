#!/bin/sh
# A probe that prints 70 MB on stdout (more than the 64 MiB a probe's JSON may take): the driver
# must call it failed without reading it whole (300 MB once took the driver to 595 MB RSS).
head -c 70000000 /dev/zero | tr '\0' ' '
