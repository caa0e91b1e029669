#!/bin/sh
# A probe that exits 0 but prints something that is not benchmark JSON.
echo "Segmentation fault? no, just noise"
echo '[1, 2, 3'
