#!/usr/bin/env bash
# On the GPU machine, over scripts/gpu/prepare-session.sh's .devcarry/: one
# call's worth (under 10 minutes on an H200), most important first, each
# step with a time limit, results in $OUT (at most 8 files):
#   checks.txt        every zoo kernel and example on odd shapes against the
#                     bundle's host image, then compute-sanitizer on a twin
#                     (gemm, K odd) and the q128 flash program
#   fp8-variants.jsonl  bench/gpu/fp8_blockscale_variants.py at 8192
#   ab.jsonl          twins with one copy form vs both (K or N odd), and
#                     persistent vs default GEMMs at 4096 and 8192
#   bench-gpu.jsonl   bench/gpu/run.sh: examples and peers (cuBLAS, cuDNN,
#                     SDPA flash), compare table in bench-log.txt
#   zoo.jsonl         bench/gpu/zoo.py: every zoo kernel against torch
#   checks-log.txt    the tool's output of the checks
# Usage (device tool, carry .devcarry): bash scripts/gpu/session.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
export PYTHONUNBUFFERED=1
Z=.devcarry/zoo; B=.devcarry/bundles; P=.devcarry/p
log=$out/checks-log.txt; : > "$log"
{
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
while read -r b args; do check $b $args; done < $Z/list.txt
grep -v '^#' scripts/gpu/odd-shapes.txt | while read -r k args; do
  if [ -f "$Z/$k.tsb" ]; then check "$Z/$k.tsb" $args; elif [ -f "$B/$k.tsb" ]; then check "$B/$k.tsb" $args; fi
done
for k in gemm gemm_bf16; do for b in full pers; do
  check $P/$b/$k.tsb --shape M=1000,N=1000,K=999; check $P/$b/$k.tsb --shape M=4097,N=1000,K=1000
done; done
} > "$out/checks.txt" 2>&1
echo "checks: $(grep -c '^ok' "$out/checks.txt") ok, $(grep -c '^FAIL' "$out/checks.txt") failed"
grep '^FAIL' "$out/checks.txt"
sanitize "$P/def/gemm.tsb --shape M=1000,N=520,K=999" \
         "$B/flash_attention_fwd_q128.tsb --shape B=2,H=3,S=1000 --scalar causal=1 --scalar sm_scale=0.088" \
  | tee -a "$out/checks.txt"
timeout 150 python3 bench/gpu/fp8_blockscale_variants.py run .devcarry/v "$bin/tessera" 8192 \
  | tee "$out/fp8-variants.jsonl"
ab=$out/ab.jsonl; : > "$ab"
tA() { # build kernel shape
  local j; j=$(timeout 60 "$bin/tessera" run "$P/$1/$2.tsb" --device cuda --shape "$3" --iters 30 \
    --warmup 5 --no-check --json --fill normal 2>&1 | grep '^{' | tail -1)
  echo "{\"build\": \"$1\", \"kernel\": \"$2\", \"shape\": \"$3\", \"ms\": $(echo "$j" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])' 2>/dev/null || echo null)}" >> "$ab"
}
for r in 1 2; do for k in gemm gemm_bf16; do
  for b in def full; do tA $b $k M=4096,N=4096,K=4095; tA $b $k M=4095,N=4095,K=4096; done
  for n in 4096 8192; do for b in def pers; do tA $b $k M=$n,N=$n,K=$n; done; done
done; done
cat "$ab"
timeout 240 bash bench/gpu/run.sh "$bin" "$B" gemm attention > "$out/bench-log.txt" 2>&1
tail -30 "$out/bench-log.txt"
timeout 200 python3 bench/gpu/zoo.py "$bin/tessera" "$Z" > "$out/zoo.jsonl" 2>/dev/null
python3 - "$out/zoo.jsonl" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    try: r = json.loads(l)
    except Exception: continue
    print(f"{r.get('case', '?'):34s} tessera {r.get('tessera_ms')}  {r.get('peer')} {r.get('peer_ms')}  ratio {r.get('ratio')}  cudnn {r.get('cudnn_ratio', '')}")
PY
