#!/usr/bin/env bash
# Random tile programs (tests/fuzz/gen_tile_programs.py: GEMMs, attention,
# back-to-back GEMMs, multi-reduction kernels) on a GPU, each result checked
# against its bundle's CPU image by `tessera run`.
#
# Here, after scripts/gpu/prepare.sh (the runtime side of the build in
# .devcarry/build):
#   scripts/gpu/random-programs.sh prepare [FIRST LAST [TARGET [FAMILY]]]
#     compiles programs FIRST..LAST (default 0..999) of FAMILY (default mix:
#     seed s is family [gemm, attn, b2b, multi][s % 4]) for the host and
#     TARGET (default nvptx64-nvidia-cuda:sm_90a; spirv64-unknown-vulkan1.3:
#     nvidia-vk for the Vulkan driver) into
#     .devcarry/random/<plugin>-<chip>-FIRST-LAST.tar.xz (list.txt: "bundle
#     --shape ..." per program and shape; narrowed.txt: programs with a
#     narrowing cast inside and their retry bound) and prints its size:
#     about 14 MiB for 1000 programs, with .devcarry/build (21 MiB) under the
#     64 MiB a device run carries (carry .devcarry/build and .devcarry/random).
# On the GPU machine:
#   scripts/gpu/random-programs.sh [DEVICE]     (default cuda; spirv)
#     runs every bundle of .devcarry/random/<DEVICE>-*/list.txt (unpacked
#     from the .tar.xz) on DEVICE against the CPU image; a failure of a
#     program in narrowed.txt by less than its bound is retried on two other
#     random inputs (one cast element rounded the other way; see
#     gen_tile_programs.py run_shape) and counted as passed when both pass.
#     Prints the failures and counts per family; logs of failures in $OUT.
set -uo pipefail
if [ "${1:-}" = prepare ]; then
  root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
  first="${2:-0}"; last="${3:-999}"; target="${4:-nvptx64-nvidia-cuda:sm_90a}"; family="${5:-mix}"
  case "$target" in
    nvptx64*) plugin=cuda ;; spirv64*) plugin=spirv ;; amdgcn*) plugin=hip ;;
    *) echo "unknown target '$target'" >&2; exit 2 ;;
  esac
  name="$plugin-${target##*:}-$first-$last"
  [ -d .devcarry/build ] || { echo "run scripts/gpu/prepare.sh first (.devcarry/build)" >&2; exit 1; }
  rm -rf ".devcarry/random/$name" ".devcarry/random/$name.tar.xz"
  mkdir -p .devcarry/random
  python3 tests/fuzz/gen_tile_programs.py emit "$first" "$last" --family "$family" \
    --targets "$target" --out ".devcarry/random/$name" -j "$(nproc)"
  status=$?
  tar -C .devcarry/random -cf - "$name" | xz -T0 -6 > ".devcarry/random/$name.tar.xz"
  rm -rf ".devcarry/random/$name"
  du -sh ".devcarry/random/$name.tar.xz" .devcarry/build
  exit $status
fi

source "$(dirname "$0")/common.sh"
device="${1:-cuda}"
for t in .devcarry/random/"$device"-*.tar.xz; do [ -f "$t" ] && tar -xJf "$t" -C .devcarry/random; done
one() { # dir, bundle, run arguments
  local dir="$1"; shift
  local b="$1"; shift
  local log="$out/rand-${dir##*/}-$b-$RANDOM.log"
  if "$bin/tessera" run "$dir/$b" --device "$device" --iters 1 --warmup 0 "$@" > "$log" 2>&1 \
     && grep -q "check: passed" "$log"; then
    rm -f "$log"; echo "ok $b"; return
  fi
  # A narrowing cast inside and an error below its bound: other inputs.
  local bound err
  bound="$(awk -v b="$b" '$1 == b { print $2 }' "$dir/narrowed.txt" 2>/dev/null)"
  err="$(sed -n 's/.*check: FAILED.*max relative error \([0-9.e+-]*\).*/\1/p' "$log")"
  if [ -n "$bound" ] && [ -n "$err" ] && awk -v e="$err" -v b="$bound" 'BEGIN { exit !(e < b) }'; then
    local s
    for s in 2 3; do
      "$bin/tessera" run "$dir/$b" --device "$device" --iters 1 --warmup 0 --seed "$s" "$@" \
        >> "$log" 2>&1 && tail -n 3 "$log" | grep -q "check: passed" || { echo "FAIL ${dir##*/}/$b $*"; return; }
    done
    echo "ok $b (retried: error $err within the cast's rounding)"; return
  fi
  echo "FAIL ${dir##*/}/$b $*"
}
export -f one; export bin out device
for d in .devcarry/random/"$device"-*/; do
  d="${d%/}"
  [ -f "$d/list.txt" ] || continue
  sed "s|^|$d |" "$d/list.txt" | xargs -P 12 -L 1 bash -c 'one "$@"' _
done > "$out/random-programs.txt"
grep FAIL "$out/random-programs.txt"
for f in gemm attn b2b multi p; do
  ok=$(grep -c "^ok $f[0-9]" "$out/random-programs.txt"); bad=$(grep -c "^FAIL .*/$f[0-9]" "$out/random-programs.txt")
  [ $((ok + bad)) -gt 0 ] && echo "  $f: $ok passed, $bad failed"
done
echo "random programs on $device: $(grep -c '^ok' "$out/random-programs.txt") runs passed" \
     "($(grep -c 'retried' "$out/random-programs.txt") after a retry), $(grep -c '^FAIL' "$out/random-programs.txt") failed"
