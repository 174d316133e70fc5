#!/usr/bin/env bash
# Here: bench/gpu/unseen/*.mlir compiled for the chip and the host (checks
# compare the two) into .devcarry/unseen/, for scripts/gpu/unseen.sh (after
# scripts/gpu/prepare.sh).
#   scripts/gpu/prepare-unseen.sh [chip]   (default sm_90a)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
chip="${1:-sm_90a}"; host="$(uname -m)-unknown-linux-gnu"
rm -rf .devcarry/unseen && mkdir -p .devcarry/unseen
for f in bench/gpu/unseen/*.mlir; do
  TESSERA_NO_CACHE=1 build/default/bin/tessera compile "$f" --no-cache \
    --target "nvptx64-nvidia-cuda:$chip" --target "$host" \
    -o ".devcarry/unseen/$(basename "$f" .mlir).tsb" >/dev/null
done
ls .devcarry/unseen
