#!/usr/bin/env bash
# ctest build.cpu_burn_code: the CPU burn's hot loops really compute, in the object code this
# build made. For each variant function of stress/cpu_burn_kernel_<isa>.cpp, the innermost loop
# (a backward branch) must hold one multiply-add per accumulator on the variant's widest
# registers: 16 vfmadd on zmm (AVX-512), 12 on ymm (AVX2), 12 mulpd + 12 addpd on xmm (SSE2),
# 24 fmla on v registers (aarch64). The scalar references must stay scalar. A compiler that
# hoists, folds or drops the work (issue 12) leaves no such loop and fails this check.
# Usage: check_burn_code.sh LIBRARY.a [PROCESSOR]
set -euo pipefail
library=$(realpath "$1")
processor=${2:-$(uname -m)}
objdump=${OBJDUMP:-objdump}
# Only the variants' objects: the whole library takes minutes to disassemble.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
members=$(ar t "$library" | grep -E '^cpu_burn_kernel_[a-z0-9]+\.cpp\.o$' || true)
if [[ -z $members ]]; then
  echo "FAIL: no cpu_burn_kernel_*.cpp.o in $library"
  exit 1
fi
(cd "$scratch" && ar x "$library" $members)
listing=$(cd "$scratch" && "$objdump" -d --no-show-raw-insn -C $members)

# The most instructions matching $2 inside any one loop of function $1 (a backward branch to an
# address within the function, and the instructions from that address to the branch).
loop_count() {
  local name=$1 pattern=$2
  awk -v name="<pipecheck::$name(" -v pattern="$pattern" '
    function hex(text,   i, value) {
      value = 0
      for (i = 1; i <= length(text); i++) value = value * 16 + index("0123456789abcdef", substr(text, i, 1)) - 1
      return value
    }
    $0 ~ />:$/ { inside = index($0, name) > 0; next }
    inside && /^$/ { inside = 0 }
    inside {
      split($1, parts, ":"); address[n] = hex(parts[1]); text[n] = $0; n++
    }
    END {
      best = 0
      for (i = 0; i < n; i++) {
        if (!match(text[i], /\tj[a-z]+ +[0-9a-f]+ </)) continue
        split(substr(text[i], RSTART + 1, RLENGTH - 3), jump, " +")
        target = hex(jump[2])
        if (target >= address[i]) continue
        count = 0
        for (k = 0; k < i; k++) if (address[k] >= target && text[k] ~ pattern) count++
        if (count > best) best = count
      }
      print best
    }' <<<"$listing"
}

# Instructions matching $2 anywhere in function $1.
any_count() {
  awk -v name="<pipecheck::$1(" -v pattern="$2" '
    $0 ~ />:$/ { inside = index($0, name) > 0; next }
    inside && /^$/ { inside = 0 }
    inside && $0 ~ pattern { count++ }
    END { print count + 0 }' <<<"$listing"
}

failures=0
require_loop() {
  local name=$1 pattern=$2 minimum=$3 what=$4
  local found
  found=$(loop_count "$name" "$pattern")
  if [[ $found -lt $minimum ]]; then
    echo "FAIL: $name: $found $what in its hottest loop, expected at least $minimum (work hoisted, folded or dropped?)"
    failures=$((failures + 1))
  else
    echo "ok: $name: $found $what in one loop"
  fi
}
require_none() {
  local name=$1 pattern=$2 what=$3
  local found
  found=$(any_count "$name" "$pattern")
  if [[ $found -ne 0 ]]; then
    echo "FAIL: $name: $found $what: the scalar reference was vectorised"
    failures=$((failures + 1))
  else
    echo "ok: $name: scalar"
  fi
}

case $processor in
  x86_64 | AMD64 | amd64)
    for precision in fp64 fp32; do
      suffix=$([[ $precision == fp64 ]] && echo pd || echo ps)
      scalar=$([[ $precision == fp64 ]] && echo sd || echo ss)
      require_loop "burn_avx512_$precision" "vfmadd[0-9]+$suffix .*%zmm" 16 "vfmadd$suffix on zmm"
      require_loop "burn_avx2_$precision" "vfmadd[0-9]+$suffix .*%ymm" 12 "vfmadd$suffix on ymm"
      require_loop "burn_baseline_$precision" "\tmul$suffix +%xmm" 12 "mul$suffix on xmm"
      require_loop "burn_baseline_$precision" "\tadd$suffix +%xmm" 12 "add$suffix on xmm"
      require_loop "burn_avx512_reference_$precision" "vfmadd[0-9]+$scalar" 1 "scalar vfmadd$scalar"
      require_none "burn_avx512_reference_$precision" "vfmadd[0-9]+$suffix" "packed FMAs"
      require_loop "burn_avx2_reference_$precision" "vfmadd[0-9]+$scalar" 1 "scalar vfmadd$scalar"
      require_none "burn_avx2_reference_$precision" "vfmadd[0-9]+$suffix" "packed FMAs"
    done
    ;;
  aarch64 | arm64)
    require_loop burn_baseline_fp64 "\tfmla\tv[0-9]+\\.2d" 24 "fmla .2d"
    require_loop burn_baseline_fp32 "\tfmla\tv[0-9]+\\.4s" 24 "fmla .4s"
    ;;
  *)
    echo "no object-code check for $processor"
    ;;
esac
exit $((failures > 0))
