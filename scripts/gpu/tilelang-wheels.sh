#!/usr/bin/env bash
# Here: downloads TileLang 0.1.15 and the packages it needs that the GPU
# machine's image lacks, as wheels for its Python 3.12, into two folders
# that git ignores (one call carries at most 64 MiB, so they travel in two):
#   .whl/   tilelang, apache-tvm-ffi, torch-c-dlpack-ext   (~51 MB)
#   .whl2/  z3-solver                                      (~29 MB)
# There (bench/gpu/tilelang_peers.py, bench/gpu/run.sh's peers):
#   call 1 (carry .whl):   python3 -m pip install -q --no-index --no-deps \
#       --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
#   call 2 (carry .whl2 and .devcarry, right after: the machine stays warm
#       30 s): the same for .whl2, then
#       PYTHONPATH=/tmp/site:bench/gpu python3 bench/gpu/tilelang_peers.py
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
exclude="$(git rev-parse --git-path info/exclude)"
for d in .whl .whl2; do
  grep -qx "/$d/" "$exclude" 2>/dev/null || echo "/$d/" >> "$exclude"
  mkdir -p "$d"
done
get() {
  local dir="$1"; shift
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
    --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d "$dir" "$@"
}
get .whl tilelang==0.1.15 "apache-tvm-ffi>=0.1.11,<0.1.13" torch-c-dlpack-ext
get .whl2 "z3-solver>=4.13.0,<4.15.5"
du -sh .whl .whl2
