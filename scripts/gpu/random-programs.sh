#!/usr/bin/env bash
# On the GPU machine: runs the random tile programs that
#   tests/fuzz/gen_tile_programs.py emit FIRST LAST --targets <chip> --out .devcarry/random/<x>
# compiled here (bundles with the host image and the chip's), each on its
# shape, the CUDA result checked against the bundle's CPU image. Prints the
# failures and a count; logs go to $OUT.
set -uo pipefail
source "$(dirname "$0")/common.sh"
for t in .devcarry/random/*.tar.xz; do [ -f "$t" ] && tar -xJf "$t" -C .devcarry/random; done
one() { # dir, list line
  local dir="$1"; shift
  local b="$1"; shift
  if "$bin/tessera" run "$dir/$b" --device cuda --iters 1 --warmup 0 "$@" > "$out/rand-${dir##*/}-$b.log" 2>&1 \
     && grep -q "check: passed" "$out/rand-${dir##*/}-$b.log"; then
    rm -f "$out/rand-${dir##*/}-$b.log"; echo "ok $b"
  else echo "FAIL ${dir##*/}/$b $*"; fi
}
export -f one; export bin out
for d in .devcarry/random/*/; do
  d="${d%/}"
  [ -f "$d/list.txt" ] || continue
  sed "s|^|$d |" "$d/list.txt" | xargs -P 12 -L 1 bash -c 'one "$@"' _
done > "$out/random-programs.txt"
grep FAIL "$out/random-programs.txt"
echo "random programs on the GPU: $(grep -c '^ok' "$out/random-programs.txt") passed, $(grep -c '^FAIL' "$out/random-programs.txt") failed"
