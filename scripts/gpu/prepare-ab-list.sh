#!/usr/bin/env bash
# Here: compiles the kernels each compiler switch touches twice (the tree's
# defaults and the switch off) into .devcarry/abl/ and writes the list
# scripts/gpu/ab-list.sh runs on the GPU machine. Each line of the table
# below: switch, kernel source, tessera run args.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
chip="${1:-sm_90a}"
rm -rf .devcarry/abl && mkdir -p .devcarry/abl
n=0
while read -r setting src args; do
  [ -z "$setting" ] && continue
  n=$((n + 1)); k="$(basename "$src" .mlir)"
  TESSERA_NO_CACHE=1 build/default/bin/tessera compile "$src" --target "nvptx64-nvidia-cuda:$chip" -o ".devcarry/abl/$n-on.tsb"
  env TESSERA_NO_CACHE=1 "$setting" build/default/bin/tessera compile "$src" --target "nvptx64-nvidia-cuda:$chip" -o ".devcarry/abl/$n-off.tsb"
  echo "$k:$setting .devcarry/abl/$n-on.tsb .devcarry/abl/$n-off.tsb $args" >> .devcarry/abl/list.txt
done <<LIST
${AB_LIST:-}
LIST
wc -l .devcarry/abl/list.txt
