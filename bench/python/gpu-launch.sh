#!/usr/bin/env bash
# Runs on the GPU machine over .devcarry/launch (bench/python/prepare-gpu-launch.sh)
# and .tlsite/tlsite.tar.xz (TileLang 0.1.15 and its dependencies, unpacked
# to /tmp/tlsite): builds tessera._runtime for the Python there from this
# tree and from the BEFORE commit's source (before/), then
#  - python/tests/test_torch.py (CUDA tensors, current streams, fp8, bf16);
#  - bench/python/launch_overhead.py ROUNDS times with TileLang and Triton
#    (the first with --breakdown), then the BEFORE package and this tree in
#    alternating processes (tessera and torch.add only, twice each), then
#    this tree without torch's DLPack exchange API
#    (TESSERA_NO_DLPACK_EXCHANGE=1, with --breakdown);
#  - tessera-bench-launch (the C API alone, and cuLaunchKernel straight
#    through libcuda) with this tree's runtime library and BEFORE's.
# Every jit compile must be answered by the carried cache. Results in $OUT.
#   bench/python/gpu-launch.sh [ROUNDS]     (default 3)
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
out="${OUT:-/tmp/tessera-gpu}"; mkdir -p "$out"
rounds="${1:-3}"
d="$root/.devcarry/launch"
python3 -c 'import sys, torch; print(sys.version.split()[0], torch.__version__, torch.cuda.get_device_name())'
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
mkdir -p /tmp/tlsite && tar -xJf .tlsite/tlsite.tar.xz -C /tmp/tlsite &
tl=$!
build() {  # carried dir, module source, build dir
  cmake -S scripts/gpu/python-ext -B "$3" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DTESSERA_CARRIED="$1" -DTESSERA_MODULE_SOURCE="$2" \
    -DPython_EXECUTABLE="$(command -v python3)" > "$3.log" 2>&1 &&
    cmake --build "$3" >> "$3.log" 2>&1 || { tail -30 "$3.log"; return 1; }
}
build "$d" "$root/python/src/runtime_module.cpp" /tmp/pyext-new &
p1=$!
build "$d/before" "$d/before/runtime_module.cpp" /tmp/pyext-before &
p2=$!
wait $p1 || exit 1
wait $p2 || echo "the BEFORE extension did not build"
wait $tl
export TESSERA_CACHE_DIR="$d/cache" PYTHONUNBUFFERED=1
tests="$root/python/examples:$root/python/tests:$root/bench/python"
new="$d/python:$tests:/tmp/tlsite"
echo "== pytest python/tests/test_torch.py"
PYTHONPATH="$new" python3 -m pytest -q -p no:cacheprovider python/tests/test_torch.py 2>&1 |
  tee "$out/pytest.txt" | tail -4
bench() {  # name, PYTHONPATH, args...
  local name="$1" path="$2"; shift 2
  PYTHONPATH="$path" python3 bench/python/launch_overhead.py --device cuda \
    --json "$out/launch-$name.json" "$@" > "$out/launch-$name.out" 2>&1
  python3 - "$out/launch-$name.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(sys.argv[2], {k: (v["us_per_call"], v["min_us"]) if "us_per_call" in v
                    else v.get("skipped", "")[:60] for k, v in r.items()})
b = r.get("tessera", {}).get("breakdown_us")
if b:
    print("  breakdown", b, "exchange api:", r["tessera"].get("dlpack_exchange_api"))
PY
}
# With TileLang and Triton; rounds interleaved within each run.
for r in $(seq 1 "$rounds"); do
  extra=""; [ "$r" = 1 ] && extra="--breakdown"
  bench "run$r" "$new" --rounds 9 --iters 10000 $extra
done
# BEFORE and this tree in alternating processes (tessera and torch.add).
for r in 1 2; do
  bench "before$r" "$d/before/python:$tests" --peers tessera --rounds 9 --iters 10000
  bench "after$r" "$new" --peers tessera --rounds 9 --iters 10000
done
TESSERA_NO_DLPACK_EXCHANGE=1 bench attributes "$new" --peers tessera --breakdown --rounds 9 --iters 10000
echo "== C API (tessera-bench-launch, elementwise_add N=1024; raw cuLaunchKernel beside it)"
for lib in "$d/lib" "$d/before/lib"; do
  LD_LIBRARY_PATH="$lib" "$d/bin/tessera-bench-launch" --bundle "$d/bundles/elementwise_add.tsb" \
    --device cuda --n 1024 --iters 100000 --rounds 5 \
    --raw-cubin "$d/bin/cuda_test_kernels.sm_90a.cubin" --raw-kernel tessera_kernel_vadd 2>&1 |
    tail -1 | tee -a "$out/c-api.jsonl"
done
