#!/usr/bin/env bash
# Builds everything and runs every test suite:
#   1. the default (Release) build: unit, lit, e2e tests; the Python
#      package's pytest suites (python/tests) on the build tree's package;
#      random tile programs (tests/fuzz/gen_tile_programs.py): 100 GEMMs and
#      40 each of attention, back-to-back GEMM and multi-reduction kernels on
#      the CPU vs the interpreter and a numpy oracle (the attention ones
#      again with their key blocks deepened); 20 + 3x12 also
#      compiled for sm_90a and sm_80; 60 + 3x8 on lavapipe (Vulkan) vs the
#      CPU image;
#   2. the sanitize build (ASan + UBSan): unit and lit tests;
#   3. the fuzz build: each libFuzzer target for 60 seconds -- the tile
#      parser, the bundle reader, plugin manifests, target descriptions.
# Installs what is missing first. Exits non-zero on any failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
jobs="$(nproc)"

scripts/install-deps.sh

echo "== default build and all tests"
scripts/build.sh default
ctest --preset default -j "$jobs" -E '^python\.pytest$'

echo "== python package: pytest (python/tests) on build/default/python"
python_exe="$(cat build/default/python/python-executable 2>/dev/null || true)"
if [ -z "$python_exe" ] || [ ! -e build/default/python/tessera/__init__.py ]; then
  echo "the Python package was not built (is nanobind installed? see scripts/install-deps.sh)" >&2
  exit 1
fi
PYTHONPATH="$root/build/default/python" "$python_exe" -m pytest -q -rs \
  -p no:cacheprovider python/tests

echo "== random tile programs: CPU image vs the tile interpreter and a numpy oracle (tests/fuzz/gen_tile_programs.py)"
fuzz() {
  PYTHONPATH="$root/build/default/python" TESSERA="$root/build/default/bin/tessera" \
    "$python_exe" tests/fuzz/gen_tile_programs.py "$@" -j "$jobs"
}
fuzz run 0 99 --oracle
for family in attn b2b multi; do fuzz run 0 39 --family "$family" --oracle; done
# ... attention with its key blocks deepened to 128 (tessera-deepen-keys,
# forced; the host keeps them by default): 27 of the first 40 deepen.
TESSERA_DEEPEN_KEYS=128 fuzz run 0 39 --family attn --oracle
# ... and programs compile for the GPU chips (PTX checked by ptxas).
cuda=nvptx64-nvidia-cuda:sm_90a,nvptx64-nvidia-cuda:sm_80
fuzz run 100 119 --targets "$cuda"
for family in attn b2b multi; do fuzz run 40 51 --family "$family" --targets "$cuda"; done
# ... and more on the Vulkan device (lavapipe), checked against the CPU image.
if build/default/bin/tessera plugins 2>/dev/null | grep '^spirv .*: ready' >/dev/null; then
  vk=spirv64-unknown-vulkan1.3:lavapipe
  fuzz run 200 259 --targets "$vk" --devices spirv
  for family in attn b2b multi; do fuzz run 60 67 --family "$family" --targets "$vk" --devices spirv; done
else
  echo "random tile programs on Vulkan: skipped: no Vulkan device"
fi

echo "== sanitize build (ASan + UBSan): unit and lit tests"
scripts/build.sh sanitize
# libMLIR.so is not instrumented; LLVM's allocator headers poison memory that
# the uninstrumented library then touches, so user poisoning is turned off.
ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=0" \
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  ctest --preset sanitize -j "$jobs" -E '^(e2e|bench|plugins\.install)'

# One target at a time, each for 60 s; a crash stops the script with the
# input written to build/fuzz/tests/fuzz/crash-*.
for fuzzer in parse bundle manifest target; do
  echo "== fuzz build: 60 s of the $fuzzer fuzzer"
  scripts/build.sh fuzz "run-$fuzzer-fuzzer"
done
