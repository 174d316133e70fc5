#!/usr/bin/env bash
# Runs tessera's GPU benchmarks and the peers in one go on a machine with an
# NVIDIA GPU, printing JSON lines (tessera rows from `tessera run --json`,
# peers from peers.py) and a ratio table at the end.
#
#   bench/gpu/run.sh <tessera bin dir> <bundle dir> [gemm] [attention]
#
# The bundles are compiled beforehand (on any machine) by
# bench/gpu/compile-bundles.sh, so the GPU machine needs no LLVM/MLIR.
set -uo pipefail
bin="$1"; bundles="$2"; shift 2
which="${*:-gemm attention}"
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-/tmp}/bench-gpu.jsonl"
: > "$out"

run() { # bundle, shape, flops, extra args...
  local b="$1" shape="$2" flops="$3"; shift 3
  "$bin/tessera" run "$bundles/$b" --device cuda --shape "$shape" --flops "$flops" \
    --iters 20 --warmup 5 --fill normal --json "$@" | tee -a "$out"
}

if [[ " $which " == *" gemm "* ]]; then
  for n in 1024 2048 4096 8192; do
    check=(); [ "$n" -gt 2048 ] && check=(--no-check)
    run gemm.tsb "M=$n,N=$n,K=$n" "2*M*N*K" "${check[@]}"
    [ -f "$bundles/gemm_bf16.tsb" ] && run gemm_bf16.tsb "M=$n,N=$n,K=$n" "2*M*N*K" "${check[@]}"
  done
  [ -f "$bundles/gemm_fp8.tsb" ] && run gemm_fp8.tsb "M=8192,N=8192,K=8192" "2*M*N*K" --no-check --kernel gemm_fp8
  run gemm_relu.tsb "M=4096,N=4096,K=4096" "2*M*N*K" --no-check
fi
if [[ " $which " == *" attention "* ]]; then
  for s in 512 1024 2048 4096 8192; do
    for causal in 0 1; do
      # Causal attention does half the work: count it so.
      flops="4*B*H*S*S*128"; [ $causal = 1 ] && flops="2*B*H*S*S*128"
      for k in flash_attention_fwd flash_attention_fwd_q128; do
        [ -f "$bundles/$k.tsb" ] || continue
        run $k.tsb "B=4,H=16,S=$s" "$flops" --no-check \
          --scalar causal=$causal --scalar sm_scale=0.08838834764831845
      done
    done
  done
fi
python3 "$here/peers.py" $which | tee -a "$out"
python3 "$here/compare.py" "$out"
