#!/bin/sh
# Builds one hip runtime test kernel: compile_kernel.sh <tessera> <readelf>
# <source.mlir> <chip> <out-prefix>. Writes <out>.tsb (the bundle),
# <out>.hsaco (its code object), <out>.notes (`llvm-readelf --notes` of it)
# and <out>.info (`tessera info` of the bundle). Everything is made in a
# private temporary folder and moved into place at the end, so that an
# interrupted or concurrent build never leaves a partial file that looks up
# to date.
set -eu
tessera=$1 readelf=$2 src=$3 chip=$4 out=$5
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d "$out.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$tessera" compile "$src" --target "amdgcn-amd-amdhsa:$chip" --no-cache \
  -o "$tmp/bundle.tsb" --dump-dir "$tmp"
"$readelf" --notes "$tmp/kernel.$chip.hsaco" > "$tmp/notes"
"$tessera" info "$tmp/bundle.tsb" > "$tmp/info"
mv -f "$tmp/kernel.$chip.hsaco" "$out.hsaco"
mv -f "$tmp/notes" "$out.notes"
mv -f "$tmp/info" "$out.info"
mv -f "$tmp/bundle.tsb" "$out.tsb"
