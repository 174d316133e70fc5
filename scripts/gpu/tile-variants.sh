#!/usr/bin/env bash
# On the GPU machine, over scripts/gpu/prepare-tile-variants.sh's builds:
# every variant on two odd shapes against its host image (var-checks.txt),
# compute-sanitizer on two, then each timed at B4 S1024 and S4096, two
# rounds (var.jsonl), the best of each in a table.
# Usage (device tool, carry .devcarry): bash scripts/gpu/tile-variants.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
log=$out/var-log.txt; V=.devcarry/var
{
for b in $V/gqa*.tsb; do
  check $b --shape B=1,Hq=4,Hkv=2,S=1000 --scalar sm_scale=0.088
  check $b --shape B=2,Hq=6,Hkv=3,S=333 --scalar sm_scale=0.088
done
for b in $V/cross*.tsb; do
  check $b --shape B=2,H=3,Sq=1000,Skv=777 --scalar sm_scale=0.0625
  check $b --shape B=1,H=2,Sq=65,Skv=1001 --scalar sm_scale=0.0625
done
sanitize "$V/cross_k64.def.tsb --shape B=1,H=2,Sq=300,Skv=777 --scalar sm_scale=0.0625" \
         "$V/gqa_k32.def.tsb --shape B=1,Hq=4,Hkv=2,S=1000 --scalar sm_scale=0.088"
} > "$out/var-checks.txt" 2>&1
grep -E '^FAIL|rc=' "$out/var-checks.txt"
ab=$out/var.jsonl; : > "$ab"
for r in 1 2; do
  for v in gqa_k32.def gqa_k32.d64 gqa_k32.d128 gqa_k64.def gqa_k128.def; do
    for s in 1024 4096; do timed $V . $v B=4,Hq=16,Hkv=4,S=$s --scalar sm_scale=0.0883883; done
  done
  for v in cross_k32.def cross_k64.def; do
    for s in 1024 4096; do timed $V . $v B=4,H=16,Sq=$s,Skv=$s --scalar sm_scale=0.0625; done
  done
done
ab_table "$ab" .
