#!/usr/bin/env bash
# Side-by-side ncu accounts (speed of light, tensor pipes, occupancy, warp
# stall reasons) and SASS of GEMM kernels at 4096, for finding why one
# lowering is slower than another. Bundles from .devcarry (prepare.sh).
#   scripts/gpu/ncu-compare.sh name=bundle...
set -uo pipefail
source "$(dirname "$0")/common.sh"
for pair in "$@"; do
  name="${pair%%=*}"; bundle="${pair#*=}"
  "$bin/tessera" run "$bundle" --device cuda --shape M=4096,N=4096,K=4096 --flops 2*M*N*K \
    --iters 20 --warmup 5 --no-check --json 2>&1 | tail -1 | sed "s|^{|{\"name\": \"$name\", |" | tee -a "$out/times.jsonl"
  ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis \
    --section LaunchStats -k regex:tessera_kernel --launch-skip 1 --launch-count 1 \
    "$bin/tessera" run "$bundle" --device cuda --shape M=4096,N=4096,K=4096 --iters 1 --warmup 1 --no-check \
    > "$out/ncu-$name.txt" 2>&1
  python3 scripts/gpu/extract-cubin.py "$bundle" "$out/$name.cubin"
  cuobjdump -sass "$out/$name.cubin" > "$out/sass-$name.txt" 2>&1; rm -f "$out/$name.cubin"
  echo "== $name"; grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Issue Slots Busy|Stall|Executed Ipc A" "$out/ncu-$name.txt" | head -20
done
