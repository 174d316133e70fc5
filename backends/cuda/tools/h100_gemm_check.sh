#!/bin/bash
# One device call: correctness of the sm_90a GEMM (TMA + wgmma) and its
# fallback at edge shapes, timing at 4096^3 against torch.matmul, SASS
# greps, compute-sanitizer, ncu. Needs build/<dir>/{bin,lib} and the bundles
# in $CARRY (compiled on the build machine). Writes under $OUT.
B=${BUILD:-build/h100}/bin/tessera
C=${CARRY:-.devcarry}
OUT=${OUT:-/tmp/out}
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt 2>&1
cat $OUT/smi.txt
run() { timeout 120 $B run "$@" --device cuda --json 2>&1 | tail -c 600; echo; }
echo "== correctness"
for s in M=1000,N=1000,K=1000 M=1,N=1,K=1 M=257,N=130,K=4096 M=300,N=200,K=64 M=129,N=136,K=4097 M=513,N=257,K=77 M=128,N=129,K=128 M=640,N=384,K=1000; do
  echo "gemm $s"; run $C/gemm.tsb --shape $s
done
echo "gemm_relu 1000"; run $C/gemm_relu.tsb --shape M=1000,N=1000,K=1000
echo "gemm_bf16 1000"; run $C/gemm_bf16.tsb --shape M=1000,N=1000,K=1000
echo "gemm 2048 check"; run $C/gemm.tsb --shape M=2048,N=2048,K=2048
echo "== perf"
for i in 1 2; do
  run $C/gemm.tsb --shape M=4096,N=4096,K=4096 --flops 137438953472 --no-check --warmup 5 --iters 50
done
run $C/gemm_bf16.tsb --shape M=4096,N=4096,K=4096 --flops 137438953472 --no-check --warmup 5 --iters 50
python3 - <<'PY' 2>&1 | tee $OUT/torch.txt
import torch, triton.testing as tt
for dt in (torch.float16, torch.bfloat16):
    a = torch.randn(4096, 4096, device='cuda', dtype=dt); b = torch.randn(4096, 4096, device='cuda', dtype=dt)
    ms = tt.do_bench(lambda: torch.matmul(a, b), warmup=50, rep=300, return_mode='median')
    print(dt, 'torch.matmul 4096^3 median ms', ms, 'TFLOP/s', 2*4096**3/ms/1e9)
PY
echo "== sass"
cuobjdump -sass $C/g/kernel.sm_90a.cubin > $OUT/sass.txt 2>&1
echo "HGMMA $(grep -c HGMMA $OUT/sass.txt) UTMALDG $(grep -c UTMALDG $OUT/sass.txt) SYNCS $(grep -c SYNCS $OUT/sass.txt)"
echo "== unit tests"
timeout 120 ${BUILD:-build/h100}/bin/tessera_cuda_runtime_test 2>&1 | tail -5
echo "== sanitizer"
timeout 150 compute-sanitizer --tool memcheck $B run $C/gemm.tsb --device cuda --shape M=300,N=200,K=136 --iters 1 --warmup 0 > $OUT/memcheck.txt 2>&1; tail -4 $OUT/memcheck.txt
timeout 150 compute-sanitizer --tool racecheck $B run $C/gemm.tsb --device cuda --shape M=300,N=200,K=136 --iters 1 --warmup 0 > $OUT/racecheck.txt 2>&1; tail -4 $OUT/racecheck.txt
echo "== ncu"
timeout 200 ncu --kernel-name tessera_kernel_gemm --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats $B run $C/gemm.tsb --device cuda --shape M=4096,N=4096,K=4096 --no-check --iters 1 --warmup 0 > $OUT/ncu.txt 2>&1
grep -E "Duration|Throughput|Pipe|Occupancy|Stall|Registers|Shared Memory|L2 Hit|DRAM|Issue|Eligible|Warp Cycles" $OUT/ncu.txt | head -50
