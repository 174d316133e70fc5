#!/usr/bin/env bash
# Here: program variants for scripts/gpu/variants.sh (after
# scripts/gpu/prepare.sh and prepare-zoo.sh): the fp8 block-scale variants
# (bench/gpu/fp8_blockscale_variants.py gen) in .devcarry/v, and the zoo's
# GQA program with 128-key blocks instead of its 64 (the program's tile
# choice against cuDNN) in .devcarry/var/gqa_k128.tsb, each with the host
# image.
#   scripts/gpu/prepare-variants.sh [chip]   (default sm_90a)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
chip="${1:-sm_90a}"; host="$(uname -m)-unknown-linux-gnu"
python3 bench/gpu/fp8_blockscale_variants.py gen .devcarry/v build/default/bin/tessera \
  "nvptx64-nvidia-cuda:$chip" "$host" >/dev/null
mkdir -p .devcarry/var
sed -e 's/64x128xf16/128x128xf16/g; s/128x64xf32/128x128xf32/g; s/128x64xf16/128x128xf16/g' \
    -e 's/in \[128, 64\]/in [128, 128]/g; s/%cbk = arith.constant 64 : index/%cbk = arith.constant 128 : index/' \
    examples/zoo/attn_gqa_d128_causal.mlir > .devcarry/var/gqa_k128.mlir
TESSERA_NO_CACHE=1 build/default/bin/tessera compile .devcarry/var/gqa_k128.mlir \
  --target "nvptx64-nvidia-cuda:$chip" --target "$host" -o .devcarry/var/gqa_k128.tsb >/dev/null
du -sh .devcarry
