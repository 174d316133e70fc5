#!/usr/bin/env bash
# On the GPU machine: A/B timings of bundle pairs listed in
# .devcarry/abl/list.txt, one per line:
#   <label> <bundle with the tree's defaults> <bundle with a switch off> <tessera run args...>
# (scripts/gpu/prepare-ab-list.sh writes it). Each pair runs alternately
# for AB_ROUNDS rounds (default 2); prints one JSON line per pair with
# both medians of each round, to $OUT/ab-list.jsonl.
set -uo pipefail
source "$(dirname "$0")/common.sh"
rounds="${AB_ROUNDS:-2}"
while read -r label on off args; do
  [ -z "$label" ] && continue
  ons=(); offs=()
  for r in $(seq "$rounds"); do
    for side in on off; do
      b=$on; [ $side = off ] && b=$off
      ms=$("$bin/tessera" run "$b" --device cuda --iters 20 --warmup 5 --no-check --json $args 2>/dev/null | tail -1 |
           python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["median_ms"])' 2>/dev/null || echo null)
      [ $side = on ] && ons+=("$ms") || offs+=("$ms")
    done
  done
  echo "{\"label\": \"$label\", \"args\": \"$args\", \"on_ms\": [$(IFS=,; echo "${ons[*]}")], \"off_ms\": [$(IFS=,; echo "${offs[*]}")]}"
done < .devcarry/abl/list.txt | tee "$out/ab-list.jsonl"
