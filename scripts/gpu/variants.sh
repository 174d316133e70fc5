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
g=$out/gqa.jsonl; : > "$g"
for b in .devcarry/zoo/attn_gqa_d128_causal.tsb .devcarry/var/gqa_k128.tsb; do
  for s in B=2,Hq=8,Hkv=2,S=1000 B=1,Hq=4,Hkv=1,S=130; do
    "$bin/tessera" run $b --device cuda --shape $s --scalar sm_scale=0.088 --iters 1 --warmup 0 2>&1 \
      | grep check: | sed "s|^|$b $s |" | tee -a "$out/gqa-checks.txt"
  done
done
for r in 1 2; do for b in .devcarry/zoo/attn_gqa_d128_causal.tsb .devcarry/var/gqa_k128.tsb; do
  j=$("$bin/tessera" run $b --device cuda --shape B=4,Hq=16,Hkv=4,S=4096 --scalar sm_scale=0.0883883 \
    --iters 30 --warmup 5 --no-check --json --fill normal 2>&1 | grep '^{' | tail -1)
  echo "{\"round\": $r, \"bundle\": \"$b\", \"ms\": $(echo "$j" | python3 -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])')}" | tee -a "$g"
done; done
timeout 100 python3 bench/gpu/zoo.py "$bin/tessera" .devcarry/zoo attn_gqa_d128_causal | tee -a "$g"
