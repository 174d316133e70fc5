#!/usr/bin/env bash
# Compiles the GPU benchmark bundles (sm_90a plus a host image for checking)
# into <out dir>. Runs where the compiler is built; the bundles then travel.
#   bench/gpu/compile-bundles.sh <tessera bin dir> <out dir> [chip]
set -euo pipefail
bin="$1"; out="$2"; chip="${3:-sm_90a}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
mkdir -p "$out"
host="$(uname -m)-unknown-linux-gnu"
for k in gemm gemm_bf16 gemm_fp8 gemm_relu gemm_bias_relu flash_attention_fwd flash_attention_fwd_q128 softmax rmsnorm elementwise_add gemm_f32; do
  "$bin/tessera" compile "$root/examples/$k.mlir" --target "nvptx64-nvidia-cuda:$chip" \
    --target "$host" -o "$out/$k.tsb"
done
