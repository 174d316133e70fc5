#!/usr/bin/env bash
# Tile-size variants of the zoo's attention programs (the same program with
# other key blocks, written by sed), cross-compiled with the host image into
# .devcarry/var/ for scripts/gpu/tile-variants.sh: GQA written with 32-,
# 64- (the zoo's) and 128-key blocks, and with 32 forced to 64 and 128
# (TESSERA_DEEPEN_KEYS); d256 cross attention written with 32 (the zoo's) and
# 64. A compiler that only re-tiles should give each family one speed.
#   scripts/gpu/prepare-tile-variants.sh [chip]   (after scripts/gpu/prepare.sh)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
chip="${1:-sm_90a}"; host="$(uname -m)-unknown-linux-gnu"
src=.devcarry/var/src; rm -rf .devcarry/var && mkdir -p "$src"
g=examples/zoo/attn_gqa_d128_causal.mlir; x=examples/zoo/attn_fwd_d256_cross_f16.mlir
cp "$g" "$src/gqa_k64.mlir"; cp "$x" "$src/cross_k32.mlir"
for kb in 32 128; do
  sed -e "s/%cbk = arith.constant 64 : index/%cbk = arith.constant $kb : index/" -e "s/64x128xf16/${kb}x128xf16/g" \
      -e "s/128x64xf32/128x${kb}xf32/g" -e "s/128x64xf16/128x${kb}xf16/g" -e "s/in \[128, 64\]/in [128, $kb]/g" \
      "$g" > "$src/gqa_k$kb.mlir"
done
sed -e "s/%cbk = arith.constant 32 : index/%cbk = arith.constant 64 : index/" -e "s/32x256xf16/64x256xf16/g" \
    -e "s/64x32xf32/64x64xf32/g" -e "s/64x32xf16/64x64xf16/g" -e "s/in \[64, 32\]/in [64, 64]/g" \
    "$x" > "$src/cross_k64.mlir"
build() { # variant build [VAR=VALUE]
  env TESSERA_NO_CACHE=1 ${3:-} build/default/bin/tessera compile "$src/$1.mlir" \
    --target "nvptx64-nvidia-cuda:$chip" --target "$host" -o ".devcarry/var/$1.$2.tsb"
}
build gqa_k32 def; build gqa_k32 d64 TESSERA_DEEPEN_KEYS=64; build gqa_k32 d128 TESSERA_DEEPEN_KEYS=128
build gqa_k64 def; build gqa_k128 def; build cross_k32 def; build cross_k64 def
ls .devcarry/var
