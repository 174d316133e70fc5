#!/usr/bin/env bash
# On the GPU machine, over .devcarry/ (scripts/gpu/prepare.sh,
# prepare-zoo.sh, then prepare-persistent-ab.sh with the twin builds, e.g.
# "unrolled:TESSERA_ROLLED_TWIN_COPIES=0" "full:TESSERA_COMPACT_TWINS=0"):
#   checks.txt   every zoo kernel and example on odd shapes against its host
#                image, each build's gemm twins (K or N odd) too, then
#                compute-sanitizer on the default build's gemm twin
#   ab.jsonl     the twins' speed (K or N odd: no tensor map) per build,
#                alternated, two rounds; the table at the end of the output
# Usage (device tool, carry .devcarry): bash scripts/gpu/twins-ab.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
export PYTHONUNBUFFERED=1
Z=.devcarry/zoo; B=.devcarry/bundles; P=.devcarry/p
log=$out/checks-log.txt; : > "$log"
builds="$(ls $P)"
{
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
while read -r b args; do check $b $args; done < $Z/list.txt
grep -v '^#' scripts/gpu/odd-shapes.txt | while read -r k args; do
  if [ -f "$Z/$k.tsb" ]; then check "$Z/$k.tsb" $args; elif [ -f "$B/$k.tsb" ]; then check "$B/$k.tsb" $args; fi
done
for b in $builds; do for k in gemm gemm_bf16; do
  check $P/$b/$k.tsb --shape M=1000,N=1000,K=999; check $P/$b/$k.tsb --shape M=999,N=1001,K=1000
  check $P/$b/$k.tsb --shape M=130,N=67,K=33
done; done
sanitize "$P/def/gemm.tsb --shape M=1000,N=520,K=999" "$P/def/gemm_bf16.tsb --shape M=999,N=1001,K=1000"
} > "$out/checks.txt" 2>&1
echo "checks: $(grep -c '^ok' "$out/checks.txt") ok, $(grep -c '^FAIL' "$out/checks.txt") failed"
grep -E '^FAIL|rc=' "$out/checks.txt"
ab=$out/ab.jsonl; : > "$ab"
for r in 1 2; do for k in gemm gemm_bf16; do for s in M=4096,N=4096,K=4095 M=4095,N=4095,K=4096; do
  for b in $builds; do timed $P $b $k $s; done
done; done; done
ab_table "$ab" $builds
