#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck and synccheck on the GEMM and the
# attention by distribution (.devcarry/nofast) and on zoo kernels, small
# shapes with edges. Prints one line per (tool, kernel); reports go to $OUT.
set -uo pipefail
source "$(dirname "$0")/common.sh"
z=.devcarry/zoo; n=.devcarry/nofast
while read -r name bundle args; do
  [ -z "$name" ] && continue
  for tool in memcheck racecheck synccheck; do
    log="$out/sanitize-$tool-$name.txt"
    compute-sanitizer --tool $tool --error-exitcode 9 \
      "$bin/tessera" run $bundle --device cuda --iters 1 --warmup 0 $args > "$log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    echo "$tool $name rc=$rc $summary"
  done
done <<LIST
gemm $n/gemm.tsb --shape M=300,N=260,K=200
attention $n/flash_attention_fwd.tsb --shape B=1,H=2,S=200 --scalar causal=1 --scalar sm_scale=0.088
gemm_bf16_128x256_silu $z/gemm_bf16_128x256_silu.tsb --shape M=129,N=257,K=130
attn_gqa_d128_causal $z/attn_gqa_d128_causal.tsb --shape B=1,Hq=4,Hkv=2,S=130 --scalar sm_scale=0.088
softmax_bf16_16k $z/softmax_bf16_16k.tsb --shape M=3,N=5000 --scalar scale=0.7
gemm_i8_i32 $z/gemm_i8_i32.tsb --shape M=129,N=130,K=65
LIST
