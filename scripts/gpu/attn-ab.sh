#!/usr/bin/env bash
# On the GPU machine, over scripts/gpu/prepare-ab.sh's builds (on: the
# tree's defaults, off: the setting in .devcarry/ab/setting.txt):
#   checks.txt   both builds on odd shapes against their host images, then
#                compute-sanitizer (memcheck, racecheck, synccheck) on the
#                default q128 program and GQA
#   ab.jsonl     the q128 program at B4 H16 S 1024-8192, causal and not, and
#                the zoo's attention kernels, the builds alternated, two
#                rounds; a table at the end
# Then, with the default bundles of scripts/gpu/prepare.sh: bench/gpu/run.sh
# attention (peers: cuDNN, SDPA flash) into bench-gpu.jsonl / bench-log.txt,
# and bench/gpu/zoo.py's attention cases into zoo.jsonl.
# Usage (device tool, carry .devcarry): bash scripts/gpu/attn-ab.sh
# (after scripts/gpu/prepare.sh, prepare-zoo.sh and prepare-ab.sh VAR=VALUE here)
set -uo pipefail
source "$(dirname "$0")/common.sh"
export PYTHONUNBUFFERED=1
A=.devcarry/ab; log=$out/checks-log.txt; : > "$log"
{
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
echo "off = $(cat $A/setting.txt)"
for b in on off; do
  for c in 0 1; do
    check $A/$b/flash_attention_fwd_q128.tsb --shape B=2,H=3,S=1000 --scalar causal=$c --scalar sm_scale=0.088
    check $A/$b/flash_attention_fwd_q128.tsb --shape B=1,H=2,S=130 --scalar causal=$c --scalar sm_scale=0.088
    check $A/$b/flash_attention_fwd.tsb --shape B=2,H=3,S=1000 --scalar causal=$c --scalar sm_scale=0.088
  done
  grep -v '^#' scripts/gpu/odd-shapes.txt | while read -r k args; do
    [ -f "$A/$b/$k.tsb" ] && check "$A/$b/$k.tsb" $args
  done
done
sanitize "$A/on/flash_attention_fwd_q128.tsb --shape B=2,H=3,S=1000 --scalar causal=1 --scalar sm_scale=0.088" \
         "$A/off/flash_attention_fwd_q128.tsb --shape B=2,H=3,S=1000 --scalar causal=1 --scalar sm_scale=0.088" \
         "$A/on/attn_gqa_d128_causal.tsb --shape B=2,Hq=8,Hkv=2,S=1000 --scalar sm_scale=0.088"
} > "$out/checks.txt" 2>&1
echo "checks: $(grep -c '^ok' "$out/checks.txt") ok, $(grep -c '^FAIL' "$out/checks.txt") failed"
grep -E '^FAIL|rc=' "$out/checks.txt"
ab=$out/ab.jsonl; : > "$ab"
t() { timed $A "$@"; }
for r in 1 2; do
  for s in 1024 2048 4096 8192; do for c in 0 1; do for b in on off; do
    t $b flash_attention_fwd_q128 B=4,H=16,S=$s --scalar causal=$c --scalar sm_scale=0.0883883
  done; done; done
  for b in on off; do
    t $b attn_gqa_d128_causal B=4,Hq=16,Hkv=4,S=4096 --scalar sm_scale=0.0883883
    t $b attn_prefill_prefix_causal_d128 B=4,H=16,Sq=1024,Skv=4096 --scalar sm_scale=0.0883883
    t $b attn_mqa_d64_bf16 B=4,H=16,S=4096 --scalar sm_scale=0.125
    t $b attn_fwd_d256_q128_f16 B=4,H=16,S=4096 --scalar sm_scale=0.0625
    t $b attn_fwd_d64_causal_bf16 B=4,H=16,S=4096 --scalar sm_scale=0.125
    t $b flash_attention_fwd B=4,H=16,S=4096 --scalar causal=1 --scalar sm_scale=0.0883883
    t $b flash_attention_fwd B=4,H=16,S=1024 --scalar causal=0 --scalar sm_scale=0.0883883
    t $b attn_sliding_window_d64 B=4,H=16,S=4096 --scalar sm_scale=0.125 --scalar window=512
    t $b attn_fwd_d256_cross_f16 B=4,H=16,Sq=4096,Skv=4096 --scalar sm_scale=0.0625
    t $b attn_decode_splitkv_d128 B=8,H=32,Sq=1,Skv=16384,HS=2048 --scalar sm_scale=0.0883883
  done
done
ab_table "$ab" on off
timeout 200 bash bench/gpu/run.sh "$bin" .devcarry/bundles attention > "$out/bench-log.txt" 2>&1
tail -25 "$out/bench-log.txt"
timeout 150 python3 bench/gpu/zoo.py "$bin/tessera" .devcarry/zoo attn_gqa_d128_causal attn_prefill_prefix_causal_d128 \
  attn_mqa_d64_bf16 attn_fwd_d256_q128_f16 attn_fwd_d64_causal_bf16 attn_fwd_d256_cross_f16 \
  attn_sliding_window_d64 attn_decode_splitkv_d128 > "$out/zoo.jsonl" 2>/dev/null
python3 - "$out/zoo.jsonl" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    try: r = json.loads(l)
    except Exception: continue
    print(f"{r.get('case', '?'):34s} tessera {r.get('tessera_ms')}  cudnn {r.get('cudnn_attention_ms')} ratio {r.get('cudnn_ratio')}  flash {r.get('flash_ratio')}")
PY
