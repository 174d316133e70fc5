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
check() { if timeout 60 "$bin/tessera" run "$1" --device cuda --iters 2 --warmup 1 "${@:2}" >>"$log" 2>&1; then echo "ok   $*"; else echo "FAIL $*"; fi; }
{
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
while read -r b args; do check $b $args; done < $Z/list.txt
while read -r k args; do check $Z/$k.tsb $args; done <<LIST
gemm_bf16_64x64_rowbias --shape M=4097,N=1000,K=999
gemm_bf16_128x128_colbias_gelu --shape M=4097,N=1000,K=999
gemm_bf16_128x256_silu --shape M=4097,N=1000,K=999
gemm_f16_at_rowscale --shape M=4097,N=1000,K=999
gemm_bf16_tt --shape M=4097,N=1000,K=999
gemm_fp8_128x256_scaled --shape M=4097,N=1000,K=1001
gemm_fp8_blockscale --shape M=4097,N=1000,K=1008,KB=8,NB=8
gemm_i8_i32 --shape M=4097,N=1000,K=1001
gemm_splitk_f32 --shape M=1000,N=1000,K=4097
gemm_batched_bf16 --shape Bt=3,M=1000,N=257,K=333
gemm_f32_256x128_colscale --shape M=1000,N=1000,K=999
linear_f32_nt --shape M=1000,N=1000,K=999
mlp_b2b_bf16 --shape M=1000,F=999
attn_fwd_d64_causal_bf16 --shape B=1,H=2,S=1000 --scalar sm_scale=0.125
attn_sliding_window_d64 --shape B=1,H=2,S=1000 --scalar sm_scale=0.125 --scalar window=100
attn_prefill_prefix_causal_d128 --shape B=1,H=2,Sq=300,Skv=1000 --scalar sm_scale=0.0883883
attn_gqa_d128_causal --shape B=1,Hq=4,Hkv=2,S=1000 --scalar sm_scale=0.0883883
attn_mqa_d64_bf16 --shape B=1,H=2,S=1000 --scalar sm_scale=0.125
attn_fwd_d256_cross_f16 --shape B=2,H=3,Sq=1000,Skv=777 --scalar sm_scale=0.0625
attn_fwd_d256_q128_f16 --shape B=2,H=3,Sq=999,Skv=1000 --scalar sm_scale=0.0625
LIST
while read -r k args; do check $B/$k.tsb $args; done <<LIST
gemm --shape M=1000,N=1000,K=1000
gemm --shape M=4097,N=1000,K=999
gemm --shape M=300,N=261,K=1001
gemm --shape M=1,N=1,K=1
gemm_bf16 --shape M=257,N=129,K=4097
gemm_relu --shape M=1000,N=1001,K=1000
gemm_bias_relu --shape M=4097,N=1000,K=999
gemm_fp8 --kernel gemm_fp8 --shape M=1031,N=517,K=272
gemm_fp8 --kernel gemm_fp8 --shape M=1031,N=517,K=275
gemm_f32 --shape M=300,N=260,K=101
flash_attention_fwd --shape B=1,H=2,S=1000 --scalar causal=1 --scalar sm_scale=0.0883883
flash_attention_fwd_q128 --shape B=2,H=3,S=1000 --scalar causal=1 --scalar sm_scale=0.0883883
flash_attention_fwd_q128 --shape B=1,H=2,S=129 --scalar causal=0 --scalar sm_scale=0.0883883
softmax --shape M=1000,N=999
rmsnorm --shape M=1000,N=999
elementwise_add --shape N=100001
LIST
for k in gemm gemm_bf16; do for b in full pers; do
  check $P/$b/$k.tsb --shape M=1000,N=1000,K=999; check $P/$b/$k.tsb --shape M=4097,N=1000,K=1000
done; done
} > "$out/checks.txt" 2>&1
echo "checks: $(grep -c '^ok' "$out/checks.txt") ok, $(grep -c '^FAIL' "$out/checks.txt") failed"
grep '^FAIL' "$out/checks.txt"
for tool in memcheck racecheck synccheck; do
  for run in "$P/def/gemm.tsb --shape M=1000,N=520,K=999" \
             "$B/flash_attention_fwd_q128.tsb --shape B=2,H=3,S=1000 --scalar causal=1 --scalar sm_scale=0.088"; do
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 "$bin/tessera" run $run \
      --device cuda --iters 1 --warmup 0 > /tmp/san.txt 2>&1; rc=$?
    echo "$tool rc=$rc ${run%% *}: $(grep -E 'check:|SUMMARY|Error' /tmp/san.txt | head -3 | tr '\n' ' ')"
  done
done | tee -a "$out/checks.txt"
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
