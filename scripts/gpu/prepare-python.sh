#!/usr/bin/env bash
# Prepares the Python package's run on a GPU machine that has no LLVM/MLIR
# and another Python (scripts/gpu/python.sh runs it there), in .devcarry/py:
#  - the MLIR-free runtime side of the build (libtessera_runtime, plugins,
#    the static libraries tessera._runtime links) and the package's .py
#    files; python.sh builds tessera._runtime there for its Python;
#  - a compile cache filled here: every kernel the GPU run builds
#    (python/tests/torch_kernels.py, the examples, bench/python's kernel) is
#    compiled for the host and, through TESSERA_JIT_ALSO_COMPILE_FOR, for the
#    GPU chip. Cache keys hash the source without locations and the compiler
#    libraries' build ids, so the carried copies of the compiler plugins and
#    libtessera_compiler.so (never loaded there) key the same entries and the
#    jit there compiles nothing.
#   scripts/gpu/prepare-python.sh [chip]   (default sm_90a)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
chip="${1:-sm_90a}"
grep -qx '/.devcarry/' .git/info/exclude 2>/dev/null || echo '/.devcarry/' >> .git/info/exclude
scripts/build.sh default >/dev/null
b=build/default; d=.devcarry/py
rm -rf "$d" && mkdir -p "$d/lib" "$d/python"
cp -a $b/lib/libtessera_runtime.so* $b/lib/libtessera_compiler.so $b/lib/tessera "$d/lib/"
cp $b/lib/libtessera_cache.a $b/lib/libtessera_plugins.a $b/lib/libtessera_bundle.a "$d/lib/"
cp -r $b/python/tessera "$d/python/"
rm -f "$d"/python/tessera/*.so
py="$(cat $b/python/python-executable)"
export TESSERA_CACHE_DIR="$root/$d/cache" TESSERA_JIT_ALSO_COMPILE_FOR="nvptx64-nvidia-cuda:$chip"
export PYTHONPATH="$root/$b/python:$root/python/examples:$root/python/tests:$root/bench/python"
"$py" -c "import torch_kernels; torch_kernels.build_all()" >/dev/null
"$py" -c "import launch_overhead as l; l.tessera_add(1024, 1024)"
echo "cache entries: $(find "$d/cache" -type f | wc -l)"
du -sh "$d"
