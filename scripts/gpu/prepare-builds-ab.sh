#!/usr/bin/env bash
# Here: compiles kernels once per build (a name and the compiler switches
# it sets) into .devcarry/kab/<build>/<kernel>.tsb, for the chip and the
# host (checks compare the two), and writes the list scripts/gpu/builds-ab.sh
# times on the GPU machine.
#   BUILDS="def:TESSERA_NO_CACHE=1 pp:TESSERA_PINGPONG=1,TESSERA_X=0" \
#   scripts/gpu/prepare-builds-ab.sh 'kernel.mlir|timed shape args|check shape args;...' ...
# Each argument: a kernel source, then '|'-separated shapes (+ tessera run
# arguments) to time, after a ';' the shapes to check.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
chip="${CHIP:-sm_90a}"
host="${HOST_TRIPLE:-x86_64-unknown-linux-gnu}"
rm -rf .devcarry/kab && mkdir -p .devcarry/kab
for spec in "$@"; do
  src="${spec%%|*}"; k="$(basename "$src" .mlir)"
  rest="${spec#*|}"; timed="${rest%%;*}"; checks=""; [[ "$rest" == *";"* ]] && checks="${rest#*;}"
  for b in ${BUILDS:?}; do
    mkdir -p ".devcarry/kab/${b%%:*}"
    env TESSERA_NO_CACHE=1 $(echo "${b#*:}" | tr , " ") build/default/bin/tessera compile "$src" --no-cache \
      --target "nvptx64-nvidia-cuda:$chip" --target "$host" -o ".devcarry/kab/${b%%:*}/$k.tsb" >/dev/null
  done
  IFS='|' read -ra ts <<< "$timed"; for t in "${ts[@]}"; do echo "time $k $t" >> .devcarry/kab/list.txt; done
  IFS='|' read -ra cs <<< "$checks"; for t in "${cs[@]}"; do [ -n "$t" ] && echo "check $k $t" >> .devcarry/kab/list.txt; done
done
cat .devcarry/kab/list.txt
