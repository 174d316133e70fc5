#!/usr/bin/env bash
# Prepares what a GPU machine without LLVM/MLIR needs to validate tessera
# there: the built tree (the `tessera` tool is MLIR-free; runtime, plugins,
# runtime-side tests) and bundles cross-compiled here for the chip, in a
# folder `.devcarry/` that git ignores.
#   scripts/gpu/prepare.sh [chip]   (default sm_90a)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
chip="${1:-sm_90a}"
cd "$root"
# (.git is a file in a worktree: ask git where its exclude file is.)
exclude="$(git rev-parse --git-path info/exclude)"
mkdir -p "$(dirname "$exclude")"
grep -qx '/.devcarry/' "$exclude" 2>/dev/null || echo '/.devcarry/' >> "$exclude"
scripts/build.sh default >/dev/null
rm -rf .devcarry && mkdir -p .devcarry/bundles .devcarry/build
TESSERA_NO_CACHE=1 bench/gpu/compile-bundles.sh build/default/bin .devcarry/bundles "$chip"
# gemm.mlir's PTX and cubins (the twins' too) for scripts/gpu/jit-vs-ptxas.sh.
mkdir -p .devcarry/dump
TESSERA_CUDA_TWINS=cubin build/default/bin/tessera compile examples/gemm.mlir \
  --target "nvptx64-nvidia-cuda:$chip" --no-cache --dump-dir .devcarry/dump \
  -o .devcarry/dump/gemm.tsb >/dev/null
rm -f .devcarry/dump/*.ll
# The runtime side of the build: tools, libraries, plugins, runtime tests.
cp -r build/default/bin build/default/lib .devcarry/build/
rm -f .devcarry/build/bin/tessera-opt .devcarry/build/lib/libtessera_compiler.so \
      .devcarry/build/lib/tessera/plugins/libtessera_*_compiler.so
cp -r build/default/tests .devcarry/build/tests 2>/dev/null || true
find .devcarry/build/tests -name '*.o' -delete 2>/dev/null || true
# lit keeps its outputs (compiled bundles, PTX) there: not needed on the GPU.
rm -rf .devcarry/build/tests/lit
du -sh .devcarry
