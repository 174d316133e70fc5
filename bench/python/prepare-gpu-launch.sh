#!/usr/bin/env bash
# Assembles .devcarry/launch for bench/python/gpu-launch.sh (the launch
# overhead on a GPU machine, with the commit BEFORE timed beside this tree):
#  - the compile cache and the compiler libraries that key it, from
#    .devcarry/py (scripts/gpu/prepare-python.sh made it; the kernels and the
#    frontend must not have changed since, or the GPU run misses the cache);
#  - this build's runtime side: libtessera_runtime, the runtime plugins, the
#    static libraries tessera._runtime links, the package's .py files,
#    tessera-bench-launch, an elementwise_add bundle (sm_90a + host) and the
#    cuda runtime tests' cubin (its vadd kernel: the driver's floor);
#  - before/: BEFORE's python/tessera and runtime_module.cpp, with the
#    runtime library of .devcarry/py (built from BEFORE's runtime sources).
#   bench/python/prepare-gpu-launch.sh BEFORE      (a commit)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
before="${1:?usage: $0 BEFORE-COMMIT}"
src=.devcarry/py; d=.devcarry/launch; b=build/default
[ -d "$src/cache" ] || { echo "no $src/cache: run scripts/gpu/prepare-python.sh first" >&2; exit 1; }
ninja -C $b tessera_runtime tessera_py_runtime tessera-bench-launch >/dev/null
rm -rf "$d"; mkdir -p "$d/lib" "$d/python" "$d/bin" "$d/bundles" "$d/before/lib" "$d/before/python"
cp -a "$src/cache" "$d/"
cp -a "$src/lib/libtessera_compiler.so" "$src/lib/tessera" "$d/lib/"
cp -a $b/lib/libtessera_runtime.so* $b/lib/libtessera_cache.a $b/lib/libtessera_plugins.a \
  $b/lib/libtessera_bundle.a "$d/lib/"
cp $b/lib/tessera/plugins/lib*_runtime.so "$d/lib/tessera/plugins/"
cp -r $b/python/tessera "$d/python/"; rm -f "$d"/python/tessera/*.so
cp $b/bin/tessera-bench-launch "$d/bin/"
# The C API's bench bundle from scripts/gpu/prepare.sh (sm_90a and the host).
cp .devcarry/bundles/elementwise_add.tsb "$d/bundles/"
# The cuda runtime tests' kernels (tessera_kernel_vadd: the raw driver floor).
cp .devcarry/build/bin/cuda_test_kernels.sm_90a.cubin "$d/bin/"
git show "$before:python/src/runtime_module.cpp" > "$d/before/runtime_module.cpp"
git archive "$before" python/tessera | tar -x -C "$d/before"
cp -a $src/lib/libtessera_runtime.so* "$d/before/lib/"
for f in libtessera_compiler.so tessera libtessera_cache.a libtessera_plugins.a libtessera_bundle.a; do
  ln -s "../../lib/$f" "$d/before/lib/$f"
done
find "$d" -name __pycache__ -prune -exec rm -rf {} +
du -sh "$d"
