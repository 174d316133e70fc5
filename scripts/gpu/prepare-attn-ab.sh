#!/usr/bin/env bash
# Here: the attention programs built twice for scripts/gpu/attn-ab.sh (after
# scripts/gpu/prepare.sh): the tree's defaults into .devcarry/aab/on, with
# the environment setting VAR=VALUE into .devcarry/aab/off, each with the
# host image.
#   scripts/gpu/prepare-attn-ab.sh VAR=VALUE [chip]   e.g. TESSERA_WAIT_FENCE=0
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
setting="${1:?usage: scripts/gpu/prepare-attn-ab.sh VAR=VALUE [chip]}"
chip="${2:-sm_90a}"; host="$(uname -m)-unknown-linux-gnu"
[ -d .devcarry/build ] || scripts/gpu/prepare.sh "$chip"
rm -rf .devcarry/aab && mkdir -p .devcarry/aab/on .devcarry/aab/off
echo "$setting" > .devcarry/aab/setting.txt
for f in examples/flash_attention_fwd_q128.mlir examples/flash_attention_fwd.mlir \
         examples/zoo/attn_gqa_d128_causal.mlir examples/zoo/attn_prefill_prefix_causal_d128.mlir \
         examples/zoo/attn_mqa_d64_bf16.mlir examples/zoo/attn_fwd_d256_q128_f16.mlir \
         examples/zoo/attn_fwd_d64_causal_bf16.mlir examples/zoo/attn_decode_splitkv_d128.mlir; do
  n=$(basename "$f" .mlir)
  TESSERA_NO_CACHE=1 build/default/bin/tessera compile "$f" --target "nvptx64-nvidia-cuda:$chip" \
    --target "$host" -o ".devcarry/aab/on/$n.tsb" >/dev/null
  env TESSERA_NO_CACHE=1 "$setting" build/default/bin/tessera compile "$f" \
    --target "nvptx64-nvidia-cuda:$chip" --target "$host" -o ".devcarry/aab/off/$n.tsb" >/dev/null
done
du -sh .devcarry
