#!/usr/bin/env bash
# On the GPU machine: the vector-FMA GEMMs' operand reads one K group ahead
# against the reads at the top of each group, and cuBLAS's SGEMM (no TF32)
# in the same call. Builds here (after scripts/gpu/prepare.sh), per kernel:
#   for b in off:TESSERA_FMA_PREFETCH=0 loop:TESSERA_NO_CACHE=1 ...; do
#     env ${b#*:} tessera compile K.mlir --target nvptx64-nvidia-cuda:sm_90a \
#       --target <host> -o .devcarry/fma/${b%%:*}/K.tsb; done
#   checks.txt   each build on small and odd shapes against its host image
#   ab.jsonl     the builds alternated, three rounds; the table at the end
# Usage (device tool, carry .devcarry): bash scripts/gpu/fma-ab.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
K=.devcarry/fma; log=$out/checks-log.txt; : > "$log"
builds="$(ls $K)"
{
for b in $builds; do
  for k in gemm_f32_256x128_colscale linear_f32_nt gemm_f32; do
    check $K/$b/$k.tsb --shape M=1,N=1,K=1
    check $K/$b/$k.tsb --shape M=257,N=129,K=100
    check $K/$b/$k.tsb --shape M=300,N=513,K=1000
  done
done
} > "$out/checks.txt" 2>&1
echo "checks: $(grep -c '^ok' "$out/checks.txt") ok, $(grep -c '^FAIL' "$out/checks.txt") failed"
grep '^FAIL' "$out/checks.txt"
python3 - > "$out/cublas.txt" 2>&1 <<'PY'
import torch
torch.backends.cuda.matmul.allow_tf32 = False
for n in (4096, 8192):
    a = torch.randn(n, n, device="cuda"); b = torch.randn(n, n, device="cuda")
    s = torch.randn(n, device="cuda")
    for name, f in (("matmul", lambda: a @ b), ("matmul*scale", lambda: (a @ b) * s),
                    ("linear", lambda: torch.nn.functional.linear(a, b, s))):
        for _ in range(3): f()
        e0, e1 = torch.cuda.Event(True), torch.cuda.Event(True)
        ts = []
        for _ in range(10):
            e0.record(); f(); e1.record(); torch.cuda.synchronize(); ts.append(e0.elapsed_time(e1))
        print(f"cublas {name} {n}: {sorted(ts)[len(ts)//2]:.4f} ms")
PY
cat "$out/cublas.txt"
ab=$out/ab.jsonl; : > "$ab"
for r in 1 2 3; do for b in $builds; do
  timed $K $b gemm_f32_256x128_colscale M=4096,N=4096,K=4096
  timed $K $b linear_f32_nt M=4096,N=4096,K=4096
  timed $K $b linear_f32_nt M=8192,N=8192,K=8192
  timed $K $b gemm_f32 M=4096,N=4096,K=4096
  timed $K $b gemm_f32_256x128_colscale M=8192,N=8192,K=8192
done; done
ab_table "$ab" $builds
