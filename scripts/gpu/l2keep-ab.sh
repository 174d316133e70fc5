#!/usr/bin/env bash
# On the GPU machine: loads kept in L2 for a later pass (planKeptLoads,
# TargetHooks::loadGlobalKept) against the ordinary loads, on the kernels
# that re-read their rows. Builds here (after scripts/gpu/prepare.sh):
#   for b in def:TESSERA_NO_CACHE=1 nokeep:TESSERA_L2_KEEP=0; do  # per kernel
#     env ${b#*:} tessera compile K.mlir --target nvptx64-nvidia-cuda:sm_90a \
#       --target <host> -o .devcarry/k/${b%%:*}/K.tsb; done
#   checks.txt   each build on small and odd shapes against its host image
#   ab.jsonl     the builds alternated, three rounds; the table at the end
# Usage (device tool, carry .devcarry): bash scripts/gpu/l2keep-ab.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
K=.devcarry/k; log=$out/checks-log.txt; : > "$log"
builds="$(ls $K)"
{
for b in $builds; do
  check $K/$b/layernorm_f32_16k.tsb --shape M=5,N=2100 --scalar eps=1e-5
  check $K/$b/layernorm_f32_16k.tsb --shape M=37,N=16385 --scalar eps=1e-5
  check $K/$b/rmsnorm_f16_16k.tsb --shape M=3,N=5000 --scalar eps=1e-5
  check $K/$b/rmsnorm_f16_16k.tsb --shape M=37,N=16385 --scalar eps=1e-5
  check $K/$b/softmax_bf16_16k.tsb --shape M=3,N=5000 --scalar scale=0.7
  check $K/$b/softmax_bf16_16k.tsb --shape M=37,N=16385 --scalar scale=0.7
  check $K/$b/swiglu_fp8_quant.tsb --shape T=5,N=1100
  check $K/$b/swiglu_fp8_quant.tsb --shape T=37,N=8193
  check $K/$b/rmsnorm.tsb --shape M=1000,N=999 --scalar eps=1e-5
  check $K/$b/softmax.tsb --shape M=1000,N=999
done
} > "$out/checks.txt" 2>&1
echo "checks: $(grep -c '^ok' "$out/checks.txt") ok, $(grep -c '^FAIL' "$out/checks.txt") failed"
grep '^FAIL' "$out/checks.txt"
ab=$out/ab.jsonl; : > "$ab"
for r in 1 2 3; do for b in $builds; do
  timed $K $b layernorm_f32_16k M=4096,N=16384 --scalar eps=1e-5
  timed $K $b rmsnorm_f16_16k M=4096,N=16384 --scalar eps=1e-5
  timed $K $b softmax_bf16_16k M=4096,N=16384 --scalar scale=0.5
  timed $K $b swiglu_fp8_quant T=8192,N=8192
  timed $K $b rmsnorm M=4096,N=16384 --scalar eps=1e-5
  timed $K $b softmax M=4096,N=16384
done; done
ab_table "$ab" $builds
