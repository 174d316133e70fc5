#!/usr/bin/env bash
# The main job: set everything up, then compile examples/gemm_relu.mlir for
# the best backend present (a GPU when one is usable, else this CPU), run it
# on random inputs, check it against a reference and print time and GFLOP/s.
# A second run is fast: the build is incremental and the compile is cached.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

scripts/install-deps.sh
scripts/build.sh default tessera tessera_cpu_compiler tessera_cpu_runtime \
  $( [ -d backends/cuda/compiler ] && echo tessera_cuda_compiler ) tessera_cuda_runtime >/dev/null

bin=build/default/bin
size="${TESSERA_MAIN_SIZE:-1024}"

# Every device a runtime plugin reports as ready, as "--target triple:chip".
targets=()
while read -r spec; do
  targets+=(--target "$spec")
done < <("$bin/tessera" plugins | sed -n 's/^  device [0-9]*: .*(\([^)]*\)).*/\1/p' | sort -u)
[ ${#targets[@]} -gt 0 ] || { echo "main-job: no usable device found" >&2; exit 1; }
# The host CPU image also serves as the reference for accelerator runs.
host="$("$bin/tessera" plugins | sed -n 's/^  device [0-9]*: .*(\(x86_64[^:)]*\|aarch64[^:)]*\).*/\1/p' | head -n1)"
if [ -n "$host" ] && [[ " ${targets[*]} " != *" $host:"* ]]; then
  targets+=(--target "$host")
fi

mkdir -p build/main-job
"$bin/tessera" compile examples/gemm_relu.mlir "${targets[@]}" -o build/main-job/gemm_relu.tsb --time
"$bin/tessera" run build/main-job/gemm_relu.tsb --kernel gemm_relu \
  --shape "M=$size,N=$size,K=$size" --flops "2*M*N*K"
