#!/usr/bin/env bash
# Runs on the GPU machine over what scripts/gpu/prepare.sh made: runtime
# tests, every example on odd shapes checked against the bundle's CPU image,
# compute-sanitizer on gemm and flash attention, the SASS of the gemm, and
# the benchmarks against cuBLAS / cuDNN / Triton. Results go to $OUT.
set -uo pipefail
source "$(dirname "$0")/common.sh"
b=.devcarry/bundles
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$out/device.txt"
"$bin/tessera" plugins | tee -a "$out/device.txt"

echo "== runtime tests on the GPU"
"$bin"/tessera_cuda_runtime_test --gtest_brief=1 2>&1 | tail -4 | tee "$out/unit.txt"

echo "== examples on odd shapes (checked against the CPU image)"
fail=0
check() { "$bin/tessera" run "$b/$1" --device cuda --iters 3 "${@:2}" >>"$out/examples.txt" 2>&1 \
            && echo "ok   $*" || { echo "FAIL $*"; fail=1; }; }
for s in M=1000,N=1000,K=1000 M=4097,N=1000,K=999 M=1,N=1,K=1 M=257,N=129,K=4097; do
  check gemm.tsb --shape $s; check gemm_relu.tsb --shape $s; check gemm_bf16.tsb --shape $s
  check gemm_bias_relu.tsb --shape $s
done
check gemm_f32.tsb --shape M=1000,N=1000,K=1000
for k in gemm_fp8 gemm_fp8_e5m2; do
  check gemm_fp8.tsb --kernel $k --shape M=1031,N=517,K=272
  check gemm_fp8.tsb --kernel $k --shape M=200,N=300,K=100
done
check softmax.tsb --shape M=1000,N=4097; check softmax.tsb --shape M=1,N=1
check rmsnorm.tsb --shape M=333,N=4097 --scalar eps=1e-5
check elementwise_add.tsb --shape N=4097; check elementwise_add.tsb --shape N=1
for c in 0 1; do
  check flash_attention_fwd.tsb --shape B=1,H=2,S=1000 --scalar causal=$c --scalar sm_scale=0.0883883
  check flash_attention_fwd.tsb --shape B=2,H=1,S=17 --scalar causal=$c --scalar sm_scale=0.0883883
done
grep -c "check: passed" "$out/examples.txt"

echo "== the twin without TMA, loaded from the on-demand image by the first launch that needs it"
# K = 1000 f16: rows of 2000 bytes, which no tensor map describes; the
# driver JIT-compiles the twin's PTX (cold: CUDA_CACHE_DISABLE=1). Whole
# `tessera run` processes (one launch, no check); the odd shapes above
# checked the twin's results.
TIMEFORMAT='%R s'
for s in M=1024,N=1024,K=1024 M=1024,N=1024,K=1000; do
  for cold in 1 0; do
    echo -n "$s, driver cache $([ $cold = 1 ] && echo off || echo on): "
    { time CUDA_CACHE_DISABLE=$cold CUDA_CACHE_PATH="$out/jitcache" "$bin/tessera" run "$b/gemm.tsb" \
        --device cuda --shape $s --iters 1 --warmup 0 --no-check > "$out/twin-$s-$cold.txt" 2>&1; } 2>&1
  done
done | tee "$out/twin-first-launch.txt"
[ -d .devcarry/dump ] && scripts/gpu/jit-vs-ptxas.sh .devcarry/dump

echo "== SASS of the gemm"
python3 scripts/gpu/extract-cubin.py "$b/gemm.tsb" "$out/gemm.cubin"
cuobjdump -sass "$out/gemm.cubin" > "$out/gemm.sass" 2>&1
for op in HGMMA UTMALDG HMMA LDGSTS; do printf '%s %s\n' "$op" "$(grep -c "$op" "$out/gemm.sass")"; done | tee "$out/sass-summary.txt"

echo "== compute-sanitizer"
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 "$bin/tessera" run "$b/gemm.tsb" --device cuda \
    --shape M=300,N=200,K=100 --iters 1 --warmup 0 --no-check > "$out/sanitizer-gemm-$tool.txt" 2>&1
  echo "gemm $tool exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-gemm-$tool.txt")"
  compute-sanitizer --tool $tool --error-exitcode 9 "$bin/tessera" run "$b/flash_attention_fwd.tsb" --device cuda \
    --shape B=1,H=1,S=130 --scalar causal=1 --scalar sm_scale=0.088 --iters 1 --warmup 0 --no-check \
    > "$out/sanitizer-fa-$tool.txt" 2>&1
  echo "flash $tool exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-fa-$tool.txt")"
done | tee "$out/sanitizer-summary.txt"

echo "== host cost of one launch through the C API"
"$bin/tessera-bench-launch" --bundle "$b/elementwise_add.tsb" --device cuda --n 1 \
  | tee "$out/launch.json"

if [ "${TESSERA_GPU_BENCH:-1}" = 1 ]; then
  echo "== benchmarks"
  OUT="$out" bench/gpu/run.sh "$bin" "$b" ${TESSERA_GPU_BENCH_WHICH:-gemm attention} > "$out/bench.txt" 2>&1
  tail -40 "$out/bench.txt"
fi
exit $fail
