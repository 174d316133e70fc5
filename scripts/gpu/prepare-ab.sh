#!/usr/bin/env bash
# A/B of a compiler setting on the GPU machine: compiles the GEMM-like and
# attention examples and zoo kernels twice, with the tree's defaults into
# .devcarry/ab/on and with the environment setting VAR=VALUE into
# .devcarry/ab/off (each bundle with the host image, which checks the GPU's
# results), after scripts/gpu/prepare.sh has put the runtime side there.
# scripts/gpu/ab.sh runs them (scripts/gpu/attn-ab.sh, the attention ones).
#   scripts/gpu/prepare-ab.sh VAR=VALUE [chip]   e.g. TESSERA_CLUSTERS=0
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
setting="${1:?usage: scripts/gpu/prepare-ab.sh VAR=VALUE [chip]}"
chip="${2:-sm_90a}"; host="$(uname -m)-unknown-linux-gnu"
[ -d .devcarry/build ] || scripts/gpu/prepare.sh "$chip"
rm -rf .devcarry/ab && mkdir -p .devcarry/ab/on .devcarry/ab/off
echo "$setting" > .devcarry/ab/setting.txt
kernels="examples/gemm.mlir examples/gemm_bf16.mlir examples/gemm_relu.mlir
  examples/gemm_bias_relu.mlir examples/gemm_fp8.mlir examples/flash_attention_fwd.mlir
  $(ls examples/zoo/gemm_*.mlir examples/zoo/linear_f32_nt.mlir)
  examples/zoo/attn_fwd_d64_causal_bf16.mlir examples/zoo/attn_sliding_window_d64.mlir
  examples/zoo/attn_prefill_prefix_causal_d128.mlir examples/zoo/attn_gqa_d128_causal.mlir
  examples/zoo/attn_mqa_d64_bf16.mlir examples/flash_attention_fwd_q128.mlir
  examples/zoo/attn_fwd_d256_q128_f16.mlir examples/zoo/attn_decode_splitkv_d128.mlir
  examples/zoo/attn_fwd_d256_cross_f16.mlir examples/zoo/attn_decode_combine.mlir"
for f in $kernels; do
  name="$(basename "$f" .mlir)"
  TESSERA_NO_CACHE=1 build/default/bin/tessera compile "$f" --target "nvptx64-nvidia-cuda:$chip" \
    --target "$host" -o ".devcarry/ab/on/$name.tsb"
  env TESSERA_NO_CACHE=1 "$setting" build/default/bin/tessera compile "$f" \
    --target "nvptx64-nvidia-cuda:$chip" --target "$host" -o ".devcarry/ab/off/$name.tsb"
done
du -sh .devcarry
