#!/usr/bin/env bash
# On the GPU machine, over scripts/gpu/prepare-unseen.sh's bundles:
#   unseen-checks.txt  each program against its host image on odd shapes
#                      (the f16-accumulator GEMM at short K: its tensor cores
#                      round partial sums otherwise than the host's f16
#                      FMAs -- 0.48% apart at K 1000 on an H200),
#                      compute-sanitizer on two of them
#   unseen-sass.txt    HGMMA (wgmma) count of each program's cubin
#   unseen.jsonl       bench/gpu/unseen.py: each against its torch peer
# Usage (device tool, carry .devcarry): bash scripts/gpu/unseen.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
U=.devcarry/unseen; log=$out/unseen-checks-log.txt; : > "$log"
{
  while read -r k shape; do check "$U/$k.tsb" --shape "$shape"; done <<'SHAPES'
gemm_residual_f16 M=300,N=257,K=1000
gemm_residual_f16 M=1,N=1,K=1
gemm_swiglu_dual_bf16 M=257,N=300,K=130
gemm_swiglu_dual_bf16 M=1000,N=1000,K=1000
gemm_at_f16_64x256 M=300,N=257,K=1000
gemm_at_f16_64x256 M=65,N=1000,K=33
gemm_i8_dequant_f16 M=300,N=257,K=1000
gemm_i8_dequant_f16 M=129,N=1000,K=64
gemm_rownorm_bf16 M=300,N=257,K=1000
gemm_rownorm_bf16 M=1,N=1,K=1
gemm_nt_bf16_256x128 M=300,N=257,K=1000
gemm_nt_bf16_256x128 M=513,N=129,K=72
gemm_f16acc_residual M=300,N=257,K=96
gemm_f16acc_residual M=1,N=1,K=1
SHAPES
  for c in 0 1; do
    check $U/attn_headdim_q128.tsb --shape B=2,H=3,S=1000,D=96 --scalar causal=$c --scalar sm_scale=0.102
    check $U/attn_headdim_q128.tsb --shape B=1,H=2,S=129,D=80 --scalar causal=$c --scalar sm_scale=0.11
    check $U/attn_bias_q128.tsb --shape B=2,H=3,S=1000 --scalar causal=$c --scalar sm_scale=0.0883883
    check $U/attn_bias_q128.tsb --shape B=1,H=2,S=129 --scalar causal=$c --scalar sm_scale=0.0883883
  done
  sanitize "$U/attn_bias_q128.tsb --shape B=1,H=2,S=300 --scalar causal=1 --scalar sm_scale=0.0883883" \
           "$U/attn_headdim_q128.tsb --shape B=1,H=2,S=300,D=96 --scalar causal=1 --scalar sm_scale=0.102" \
           "$U/gemm_swiglu_dual_bf16.tsb --shape M=257,N=300,K=130"
} > "$out/unseen-checks.txt" 2>&1
echo "checks: $(grep -c '^ok' "$out/unseen-checks.txt") ok, $(grep -c '^FAIL' "$out/unseen-checks.txt") failed"
grep -E '^FAIL|rc=' "$out/unseen-checks.txt"
for b in $U/*.tsb; do
  python3 scripts/gpu/extract-cubin.py "$b" /tmp/u.cubin >/dev/null 2>&1 &&
    echo "$(basename "$b" .tsb): $(cuobjdump -sass /tmp/u.cubin | grep -cE "[HIQ]GMMA") wgmma, $(cuobjdump -sass /tmp/u.cubin | grep -c HMMA) HMMA"
done | tee "$out/unseen-sass.txt"
timeout 300 python3 bench/gpu/unseen.py "$bin/tessera" $U 2>/dev/null | tee "$out/unseen.jsonl"
