#!/usr/bin/env bash
# On the GPU machine, over scripts/gpu/prepare-variants.sh's bundles:
#   fp8-variants.jsonl  bench/gpu/fp8_blockscale_variants.py run at 8192
#   gqa.jsonl           the zoo's GQA (64-key blocks) and its 128-key
#                       variant, checked on odd shapes and timed at B4 Hq16
#                       Hkv4 S4096, with the zoo's cuDNN / SDPA peers
# Usage (device tool, carry .devcarry): bash scripts/gpu/variants.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
timeout 200 python3 bench/gpu/fp8_blockscale_variants.py run .devcarry/v "$bin/tessera" 8192 \
  | tee "$out/fp8-variants.jsonl"
log=$out/gqa-checks.txt; : > "$log"; ab=$out/gqa.jsonl; : > "$ab"
for b in zoo/attn_gqa_d128_causal var/gqa_k128; do
  for s in B=2,Hq=8,Hkv=2,S=1000 B=1,Hq=4,Hkv=1,S=130; do
    check .devcarry/$b.tsb --shape $s --scalar sm_scale=0.088
  done
done
for r in 1 2; do for b in zoo/attn_gqa_d128_causal var/gqa_k128; do
  timed .devcarry ${b%%/*} ${b#*/} B=4,Hq=16,Hkv=4,S=4096 --scalar sm_scale=0.0883883
done; done
cat "$ab"
timeout 100 python3 bench/gpu/zoo.py "$bin/tessera" .devcarry/zoo attn_gqa_d128_causal | tee -a "$ab"
