#!/usr/bin/env bash
# On the GPU machine: the driver's JIT of the PTX that `tessera compile
# --dump-dir` wrote, against the cubin ptxas made here (same dump): wall
# time of the JIT at module load, cold (CUDA_CACHE_DISABLE=1) and from the
# driver's cache, and whether the SASS is the same.
#   scripts/gpu/jit-vs-ptxas.sh <dump dir> [chip]   (results in $OUT)
# The dump dir holds kernel.<chip>.ptx / .cubin (the kernels) and
# kernel.<chip>.fallback.ptx (the twins without TMA, JIT-compiled only on
# demand at run time), and .fallback.cubin when compiled with
# TESSERA_CUDA_TWINS=cubin (as scripts/gpu/prepare.sh does).
set -uo pipefail
source "$(dirname "$0")/common.sh"
dump="$1"; chip="${2:-sm_90a}"
cc -O2 -o "$out/jit_ptx" scripts/gpu/jit_ptx.c -I"${CUDA_HOME:-/usr/local/cuda}/include" -lcuda || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/jit-device.txt"
for part in "" .fallback; do
  ptx="$dump/kernel.$chip$part.ptx"
  [ -f "$ptx" ] || continue
  for i in 1 2 3; do CUDA_CACHE_DISABLE=1 "$out/jit_ptx" "$ptx" "$out/jit$part.cubin"; done
  CUDA_CACHE_PATH="$out/jitcache" "$out/jit_ptx" "$ptx" "$out/jit$part.cubin" >/dev/null
  echo -n "from the driver's cache: "; CUDA_CACHE_PATH="$out/jitcache" "$out/jit_ptx" "$ptx" "$out/jit$part.cubin"
done | tee "$out/jit-times.txt"
sass() { cuobjdump -sass "$1" | grep -E '^\s+/\*[0-9a-f]{4}\*/' | sed 's@/\*[0-9a-f]*\*/@@; s@;.*@@'; }
for part in "" .fallback; do
  [ -f "$dump/kernel.$chip$part.cubin" ] && [ -f "$out/jit$part.cubin" ] || continue
  sass "$dump/kernel.$chip$part.cubin" > "$out/ptxas$part.sass"
  sass "$out/jit$part.cubin" > "$out/jit$part.sass"
  what=$([ -z "$part" ] && echo "the kernels" || echo "the twins")
  if cmp -s "$out/ptxas$part.sass" "$out/jit$part.sass"; then
    echo "SASS of $what: the driver's JIT = ptxas ($(wc -l < "$out/jit$part.sass") instructions)"
  else
    echo "SASS of $what differs: $(diff "$out/ptxas$part.sass" "$out/jit$part.sass" | grep -c '^[<>]') lines (ptxas$part.sass, jit$part.sass)"
  fi
done | tee -a "$out/jit-times.txt"
