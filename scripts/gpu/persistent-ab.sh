#!/usr/bin/env bash
# On the GPU machine, over scripts/gpu/prepare-persistent-ab.sh's builds:
#   checks.txt     each build on odd shapes against its host image, then
#                  compute-sanitizer (memcheck, racecheck, synccheck) on the
#                  persistent q128 program and gemm
#   waves.jsonl    bench/gpu/attn_waves.py: fixed and per-key-block costs
#   ab.jsonl       q128 B4 H16 S 1024-8192 causal and not, zoo GQA and d64
#                  causal: the builds alternated, two rounds
# Usage (device tool, carry .devcarry): bash scripts/gpu/persistent-ab.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
export PYTHONUNBUFFERED=1
P=.devcarry/p; log=$out/checks-log.txt; : > "$log"
builds="$(ls $P)"
{
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
for b in $builds; do
  for c in 0 1; do
    check $P/$b/flash_attention_fwd_q128.tsb --shape B=2,H=3,S=1000 --scalar causal=$c --scalar sm_scale=0.088
    check $P/$b/flash_attention_fwd_q128.tsb --shape B=1,H=2,S=130 --scalar causal=$c --scalar sm_scale=0.088
  done
  check $P/$b/gemm.tsb --shape M=1000,N=1000,K=999
  check $P/$b/gemm.tsb --shape M=4097,N=1000,K=1000
  check $P/$b/gemm_bf16.tsb --shape M=1000,N=520,K=1000
  check $P/$b/attn_gqa_d128_causal.tsb --shape B=2,Hq=8,Hkv=2,S=1000 --scalar sm_scale=0.088
  check $P/$b/attn_fwd_d64_causal_bf16.tsb --shape B=2,H=3,S=1000 --scalar sm_scale=0.125
done
# Few units: several rounds of tiles a block, the last one partial.
for u in 5 7; do
  TESSERA_COMPUTE_UNITS=$u check $P/pers/flash_attention_fwd_q128.tsb --shape B=2,H=3,S=1000 --scalar causal=1 --scalar sm_scale=0.088
  TESSERA_COMPUTE_UNITS=$u check $P/pers/attn_gqa_d128_causal.tsb --shape B=2,Hq=8,Hkv=2,S=1000 --scalar sm_scale=0.088
done
sanitize "$P/pers/flash_attention_fwd_q128.tsb --shape B=2,H=3,S=1000 --scalar causal=1 --scalar sm_scale=0.088" \
         "$P/pers/gemm.tsb --shape M=1000,N=520,K=999"
} > "$out/checks.txt" 2>&1
cat "$out/checks.txt"
timeout 200 python3 bench/gpu/attn_waves.py "$bin/tessera" def=$P/def/flash_attention_fwd_q128.tsb \
  pers=$P/pers/flash_attention_fwd_q128.tsb > "$out/waves.jsonl"
grep fit "$out/waves.jsonl"
ab=$out/ab.jsonl; : > "$ab"
t() { timed $P "$@"; }
for r in 1 2; do
  for s in 1024 2048 4096 8192; do for c in 0 1; do for b in $builds; do
    t $b flash_attention_fwd_q128 B=4,H=16,S=$s --scalar causal=$c --scalar sm_scale=0.0883883
  done; done; done
  for b in $builds; do
    t $b attn_gqa_d128_causal B=4,Hq=16,Hkv=4,S=4096 --scalar sm_scale=0.0883883
    t $b attn_fwd_d64_causal_bf16 B=4,H=16,S=4096 --scalar sm_scale=0.125
  done
done
ab_table "$ab" $builds
