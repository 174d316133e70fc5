#!/usr/bin/env bash
# On the GPU machine: scripts/gpu/builds-ab.sh over .devcarry/kab (checks,
# then alternated timings), compute-sanitizer on the last build's bundles at
# SANITIZE shapes, and bench/gpu/zoo.py's torch peer beside each build's
# bundles for the ZOO_CASES (zoo case names, ';'-separated) -- one call for a compiler
# switch's A/B with its peers.
#   SANITIZE="gemm_fp8_blockscale M=..;..." ZOO_CASES="gemm_fp8_blockscale;gemm_fp8_blockscale 8192" \
#   bash scripts/gpu/stage-ab.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
bash "$(dirname "$0")/builds-ab.sh" | tee "$out/ab-table.txt"
K=.devcarry/kab
last="$(ls -d $K/*/ | xargs -n1 basename | tail -1)"
IFS=';' read -ra runs <<< "${SANITIZE:-}"
args=()
for r in "${runs[@]}"; do
  [ -n "$r" ] || continue
  set -- $r
  args+=("$K/$last/$1.tsb --shape $2 ${*:3}")
done
[ ${#args[@]} -gt 0 ] && sanitize "${args[@]}" | tee "$out/sanitize.txt"
IFS=';' read -ra cases <<< "${ZOO_CASES:-}"
for b in $(ls -d $K/*/ | xargs -n1 basename); do
  [ ${#cases[@]} -gt 0 ] || break
  timeout 200 python3 bench/gpu/zoo.py "$bin/tessera" "$K/$b" "${cases[@]}" 2>&1 \
    | sed "s/^{/{\"build\": \"$b\", /" | tee -a "$out/zoo.jsonl"
done
