#!/usr/bin/env bash
# Runs on the GPU machine over what scripts/gpu/prepare-python.sh made:
# builds tessera._runtime for the Python there, then the torch tests
# (python/tests/test_torch.py: CUDA tensors on torch's current stream, the
# TileLang examples against torch), each example's main(), and
# bench/python/launch_overhead.py against TileLang and Triton. Every jit
# compile must be answered by the carried cache (no compiler there): the
# run fails if one is not. Results go to $OUT.
# Carry: .devcarry (and .whl/.whl2 wheels for TileLang, installed to /tmp/site)
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
out="${OUT:-/tmp/tessera-gpu}"; mkdir -p "$out"
d="$root/.devcarry/py"
python3 -c 'import sys, sysconfig; print(sys.version); print(sysconfig.get_paths()["include"])'
cmake -S scripts/gpu/python-ext -B /tmp/tessera-pyext -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTESSERA_CARRIED="$d" -DPython_EXECUTABLE="$(command -v python3)" > "$out/pyext-build.txt" 2>&1 &&
  cmake --build /tmp/tessera-pyext >> "$out/pyext-build.txt" 2>&1 || { tail -30 "$out/pyext-build.txt"; exit 1; }
ls "$d/python/tessera/"
echo "C++ symbols the extension exports: $(nm -D --defined-only "$d"/python/tessera/_runtime*.so | c++filt | grep -c 'std::')"
export TESSERA_CACHE_DIR="$d/cache" PYTHONUNBUFFERED=1
export PYTHONPATH="$d/python:$root/python/examples:$root/python/tests:$root/bench/python${PYTHONPATH:+:$PYTHONPATH}"
# Wheels carried for the peers (TileLang), installed with --target .site.
[ -d .site ] && export PYTHONPATH="$PYTHONPATH:$root/.site"
python3 -c 'import tessera.runtime as rt; [print(x.plugin, x.target) for x in rt.devices()]'
echo "exit status of a process that imported tessera and listed devices: $?"
# Exit status of whole processes (an abort at exit hides behind a pass).
for probe in 'import sys; sys.modules["torch"] = None; import elementwise_add as e; e.main()' \
             'import elementwise_add as e; e.main()'; do
  python3 -c "$probe" > /dev/null 2>&1; rc=$?
  echo "exit status $rc: $probe"
  if [ $rc -ne 0 ] && command -v cuda-gdb >/dev/null; then
    cuda-gdb -batch -ex run -ex "bt 40" --args python3 -c "$probe" 2>&1 | grep -v "^\[" | tail -45
  fi
done
echo "== pytest python/tests/test_torch.py"
python3 -m pytest -q -p no:cacheprovider python/tests/test_torch.py 2>&1 | tee "$out/pytest.txt" | tail -15
echo "== examples"
for e in gemm elementwise_add softmax rmsnorm flash_attention; do
  python3 -c "import $e; $e.main()" 2>&1 | tail -2
done | tee "$out/examples.txt"
echo "== launch overhead"
python3 bench/python/launch_overhead.py --device cuda --breakdown > "$out/launch_overhead.json" 2> "$out/launch_overhead.err"
cat "$out/launch_overhead.json"; tail -5 "$out/launch_overhead.err"
