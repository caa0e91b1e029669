#!/bin/sh
# A probe whose label and context carry a file name with raw bytes (Latin-1 0xe9, ESC, 0x01,
# 0xff), unescaped, as Google Benchmark prints whatever it is given.
export LC_ALL=C
name=$(printf 'caf\351\033[31m\001\377')
sed "s|\"pipecheck_mode\": \"standard\"|\"pipecheck_mode\": \"standard\", \"pipecheck_path\": \"/d/$name\"|; s|op=memcpy|op=memcpy;path=/d/$name|" \
  "$(dirname "$0")/hostmem_sample.json"
