#!/usr/bin/env bash
# On the GPU machine: the builds scripts/gpu/prepare-builds-ab.sh made in
# .devcarry/kab/, each checked against its host image on the listed check
# shapes, then timed alternately (AB_ROUNDS rounds, default 3) on the
# listed shapes; the table at the end (the first build is the reference).
# Usage (device tool, carry .devcarry): bash scripts/gpu/builds-ab.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
K=.devcarry/kab; log=$out/checks-log.txt; : > "$log"
builds="${AB_BUILDS:-$(ls -d $K/*/ | xargs -n1 basename)}"
while read -r kind k shape rest; do
  [ "$kind" = check ] || continue
  for b in $builds; do check $K/$b/$k.tsb --shape $shape $rest; done
done < $K/list.txt > "$out/checks.txt" 2>&1
echo "checks: $(grep -c '^ok' "$out/checks.txt") ok, $(grep -c '^FAIL' "$out/checks.txt") failed"
grep '^FAIL' "$out/checks.txt"
ab=$out/ab.jsonl; : > "$ab"
for r in $(seq "${AB_ROUNDS:-3}"); do
  while read -r kind k shape rest; do
    [ "$kind" = time ] || continue
    for b in $builds; do timed $K $b $k $shape $rest; done
  done < $K/list.txt
done
ab_table "$ab" $builds
