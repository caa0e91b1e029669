#!/bin/sh
# A probe that hangs (and leaves a child that must be killed with it).
echo "hanging" >&2
sleep 300 &
sleep 300
