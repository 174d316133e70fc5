#!/usr/bin/env bash
# Here: everything scripts/gpu/session.sh runs on the GPU machine in one
# call, in .devcarry/ (about 15 MB: only the `tessera` tool of the build,
# its libraries and plugins, the examples' and zoo bundles with host images,
# the fp8 block-scale variants, and the A/B builds below).
#   scripts/gpu/prepare-session.sh [chip]   (default sm_90a)
# A/B builds (.devcarry/p/<build>/<kernel>.tsb, gemm and gemm_bf16):
#   def  the tree's defaults;  full  TESSERA_COMPACT_TWINS=0 (twins with both
#   copy forms);  pers  TESSERA_PERSISTENT=1.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
chip="${1:-sm_90a}"; host="$(uname -m)-unknown-linux-gnu"
scripts/gpu/prepare.sh "$chip" >/dev/null
scripts/gpu/prepare-zoo.sh "$chip" >/dev/null
find .devcarry/build/bin -type f ! -name tessera -delete
rm -rf .devcarry/build/tests
mkdir -p .devcarry/p/def .devcarry/p/full .devcarry/p/pers
for k in gemm gemm_bf16; do
  for b in def:TESSERA_NO_CACHE=1 full:TESSERA_COMPACT_TWINS=0 pers:TESSERA_PERSISTENT=1; do
    env TESSERA_NO_CACHE=1 "${b#*:}" build/default/bin/tessera compile "examples/$k.mlir" \
      --target "nvptx64-nvidia-cuda:$chip" --target "$host" -o ".devcarry/p/${b%%:*}/$k.tsb"
  done
done
python3 bench/gpu/fp8_blockscale_variants.py gen .devcarry/v build/default/bin/tessera \
  "nvptx64-nvidia-cuda:$chip" "$host" >/dev/null
du -sh .devcarry
