#!/usr/bin/env bash
# Here: builds for scripts/gpu/persistent-ab.sh in .devcarry/p/<build>/
# (after scripts/gpu/prepare.sh): def (the tree's defaults), pers
# (TESSERA_PERSISTENT=1) and the builds NAME:SETTINGS given after the chip
# (e.g. "pers1:TESSERA_PERSISTENT=1 TESSERA_EARLY_COPIES=1") of the q128
# flash program, gemm, gemm_bf16 and the zoo's d128 attention kernels, each
# with the host image.
#   scripts/gpu/prepare-persistent-ab.sh [chip [NAME:SETTINGS...]]
#   (default sm_90a)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
chip="${1:-sm_90a}"; host="$(uname -m)-unknown-linux-gnu"
[ -d .devcarry/build ] || scripts/gpu/prepare.sh "$chip"
builds=(def:TESSERA_NO_CACHE=1 pers:TESSERA_PERSISTENT=1
        "${@:2}")
rm -rf .devcarry/p
for b in "${builds[@]}"; do mkdir -p ".devcarry/p/${b%%:*}"; done
for k in examples/flash_attention_fwd_q128.mlir examples/gemm.mlir examples/gemm_bf16.mlir \
         examples/zoo/attn_gqa_d128_causal.mlir examples/zoo/attn_fwd_d64_causal_bf16.mlir; do
  n=$(basename "$k" .mlir)
  for b in "${builds[@]}"; do
    env TESSERA_NO_CACHE=1 ${b#*:} build/default/bin/tessera compile "$k" \
      --target "nvptx64-nvidia-cuda:$chip" --target "$host" -o ".devcarry/p/${b%%:*}/$n.tsb" >/dev/null
  done
done
du -sh .devcarry
