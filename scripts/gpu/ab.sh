#!/usr/bin/env bash
# On the GPU machine, over .devcarry/ab (scripts/gpu/prepare-ab.sh): times
# the attention kernels at S=4096, the GEMMs at 4096 (and the examples at
# 8192) alternating the two builds (AB_ROUNDS rounds, default "1 2"),
# checks every kernel of the default build (both with AB_CHECK_BOTH=1) on
# odd shapes against the bundle's CPU image,
# and runs compute-sanitizer on the default build's gemm where the grid's y
# size is odd. Results: $OUT/ab-checks.txt, $OUT/ab-bench.jsonl,
# $OUT/ab-sanitize.txt; a table at the end.
set -uo pipefail
source "$(dirname "$0")/common.sh"
a=.devcarry/ab; log="$out/ab-checks.txt"; : > "$log"; bench="$out/ab-bench.jsonl"; : > "$bench"
time1() { # build kernel shape [args]: a bundle the build lacks is skipped
  [ -f "$a/$1/$2.tsb" ] || return 0
  "$bin/tessera" run "$a/$1/$2.tsb" --device cuda --shape "$3" --flops 2*M*N*K --iters 20 --warmup 5 --no-check --json "${@:4}" 2>&1 \
    | tail -1 | sed "s|^{|{\"build\": \"$1\", \"kernel\": \"$2\", \"shape\": \"$3\", |" >> "$bench"
}
timeA() { # attention: build kernel shape [args], no FLOP count
  [ -f "$a/$1/$2.tsb" ] || return 0
  "$bin/tessera" run "$a/$1/$2.tsb" --device cuda --shape "$3" --iters 20 --warmup 5 --no-check --json "${@:4}" 2>&1 \
    | tail -1 | sed "s|^{|{\"build\": \"$1\", \"kernel\": \"$2\", \"shape\": \"$3\", |" >> "$bench"
}
for round in ${AB_ROUNDS:-1 2}; do
  for s in ${AB_BUILDS:-on off}; do
    timeA $s flash_attention_fwd B=4,H=16,S=4096 --scalar causal=1 --scalar sm_scale=0.0883883
    timeA $s attn_fwd_d64_causal_bf16 B=4,H=16,S=4096 --scalar sm_scale=0.125
    timeA $s attn_sliding_window_d64 B=4,H=16,S=4096 --scalar sm_scale=0.125 --scalar window=512
    timeA $s attn_prefill_prefix_causal_d128 B=4,H=16,Sq=1024,Skv=4096 --scalar sm_scale=0.0883883
    timeA $s attn_gqa_d128_causal B=4,Hq=16,Hkv=4,S=4096 --scalar sm_scale=0.0883883
    timeA $s attn_mqa_d64_bf16 B=4,H=16,S=4096 --scalar sm_scale=0.125
  done
  for k in gemm gemm_bf16 gemm_relu gemm_bias_relu gemm_bf16_64x64_rowbias gemm_bf16_128x128_colbias_gelu \
           gemm_bf16_128x256_silu gemm_f16_at_rowscale gemm_bf16_tt gemm_fp8_128x256_scaled gemm_i8_i32 gemm_splitk_f32; do
    for s in ${AB_BUILDS:-on off}; do time1 $s $k M=4096,N=4096,K=4096; done
  done
  for s in ${AB_BUILDS:-on off}; do time1 $s gemm_fp8 M=8192,N=8192,K=8192 --kernel gemm_fp8; done
  for n in 4096 8192; do for s in ${AB_BUILDS:-on off}; do
    time1 $s gemm_fp8_blockscale M=$n,N=$n,K=$n,KB=$((n / 128)),NB=$((n / 128)); done; done
  for s in ${AB_BUILDS:-on off}; do time1 $s gemm_batched_bf16 Bt=8,M=2048,N=2048,K=2048; done
  for k in gemm gemm_bf16; do for s in ${AB_BUILDS:-on off}; do time1 $s $k M=8192,N=8192,K=8192; done; done
done
python3 - "$bench" <<'PY'
import json, sys, collections
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for l in open(sys.argv[1]):
    try: r = json.loads(l)
    except Exception: continue
    if "median_ms" in r: rows[(r["kernel"], r["shape"])][r["build"]].append(r["median_ms"])
for (k, s), d in rows.items():
    on, off = min(d.get("on", [0])), min(d.get("off", [0]))
    extra = "".join(f"  {b} {min(v):8.3f}" for b, v in d.items() if b not in ("on", "off"))
    print(f"{k:34s} {s:28s} on {on:8.3f}  off {off:8.3f}  off/on {off/on if on else 0:5.2f}{extra}")
PY
grep -v '^#' scripts/gpu/odd-shapes.txt | while read -r k args; do
  [ -f "$a/on/$k.tsb" ] || continue
  for s in on ${AB_CHECK_BOTH:+off}; do check "$a/$s/$k.tsb" $args; done
done
echo "checks passed: $(grep -c 'check: passed' "$log") of $(grep -c 'check:' "$log")"
s="$out/ab-sanitize.txt"; : > "$s"
for tool in memcheck racecheck synccheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 "$bin/tessera" run $a/on/gemm.tsb --device cuda \
    --shape M=300,N=260,K=1000 --iters 1 --warmup 0 >> "$s" 2>&1; echo "sanitize $tool gemm: rc=$?" | tee -a "$s"
done
# The peers, timed as bench/gpu/peers.py times them.
PYTHONPATH=bench/gpu python3 - <<'PY' | tee -a "$bench"
import torch
from peers import bench, emit
for n in (4096, 8192):
    for dt in (torch.half, torch.bfloat16):
        a = torch.randn(n, n, device="cuda", dtype=dt); b = torch.randn(n, n, device="cuda", dtype=dt)
        emit(peer=f"torch.matmul {dt}", n=n, ms=bench(lambda: a @ b))
PY
