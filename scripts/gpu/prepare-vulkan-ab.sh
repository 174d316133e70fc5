#!/usr/bin/env bash
# A/B of the Vulkan lowerings on NVIDIA's Vulkan driver: compiles gemm,
# gemm_bf16 and flash_attention_fwd for nvidia-vk + the host (the reference)
# with the tree's defaults into .devcarry/vkab/on and with the earlier
# switches off into .devcarry/vkab/off, gemm.mlir once per variant (the
# defaults plus the switches of one line of .devcarry/vkab/variants.txt)
# into .devcarry/vkab/v-<label>, and gemm for the CUDA chip (the ratio's
# denominator). The runtime side comes from scripts/gpu/prepare.sh
# (refreshed here: the spirv runtime plugin reports pipeline statistics),
# the Vulkan loader from .gl/ (prepare-vulkan.sh's packages).
# scripts/gpu/vulkan-ab.sh runs it there (carry .devcarry and .gl).
#   scripts/gpu/prepare-vulkan-ab.sh [cuda chip]   (default sm_90a)
# Variants: VKAB_VARIANTS names a file of lines "label VAR=value ..." to use
# instead of the list below (the threads split, tessera-split-threads:
# TESSERA_SPLIT_THREADS=64 gives gemm.mlir's tile 256 threads; no shipped
# target sets the key since it measured slower); VKAB_SWITCHES=1
# adds the rest of the lowering switches measured on 2026-11-27;
# VKAB_OLD=1 adds the staging budgets and piece-0 addresses measured then
# (b16, b1, sp1, res1).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
chip="${1:-sm_90a}"; host="$(uname -m)-unknown-linux-gnu"
vk="${VKAB_TARGET:-spirv64-unknown-vulkan1.3:nvidia-vk}"   # lavapipe: a dry run here
off="TESSERA_SPIRV_WARPS2D=0 TESSERA_SPIRV_STAGING_SPLIT=0 TESSERA_SPIRV_REPACK=1 TESSERA_SPIRV_STAGE_BUDGET=0 TESSERA_SPLIT_THREADS=0"
# The threads split (256 threads for gemm.mlir's 128x128 tile: 0.941 ms
# against 0.587 on the H200, 2026-11-27) and the switches whose effect the
# register count may change.
variants="split TESSERA_SPLIT_THREADS=64
carry+early TESSERA_SPIRV_CARRY=1 TESSERA_SPIRV_EARLY_LOADS=1
split+carry+early TESSERA_SPLIT_THREADS=64 TESSERA_SPIRV_CARRY=1 TESSERA_SPIRV_EARLY_LOADS=1
splitr TESSERA_SPIRV_SPLIT_REFILL=1
unroll TESSERA_SPIRV_LOOP_CONTROL=unroll
rows TESSERA_SPIRV_WARPS2D=0"
# The switches of docs/backends/spirv.md "Switches for the next A/B", one
# by one, then the combinations expected to add up (2026-11-27), on the
# default.
if [ "${VKAB_SWITCHES:-0}" = 1 ]; then
  variants="$variants
sw-splitr+early TESSERA_SPIRV_SPLIT_REFILL=1 TESSERA_SPIRV_EARLY_LOADS=1
sw-ro0 TESSERA_SPIRV_READONLY=0
sw-cont TESSERA_SPIRV_CONTINUE=1
sw-nounroll TESSERA_SPIRV_LOOP_CONTROL=dont_unroll
sw-all TESSERA_SPIRV_CARRY=1 TESSERA_SPIRV_EARLY_LOADS=1 TESSERA_SPIRV_SPLIT_REFILL=1 TESSERA_SPIRV_CONTINUE=1"
fi
if [ "${VKAB_OLD:-0}" = 1 ]; then
  variants="$variants
b16 TESSERA_SPIRV_STAGE_BUDGET=16
b1 TESSERA_SPIRV_STAGE_BUDGET=1
sp1 TESSERA_STAGED_PIECE=1
res1 TESSERA_SPIRV_STAGE_RESERVE=1"
fi
[ -n "${VKAB_VARIANTS:-}" ] && variants="$(cat "$VKAB_VARIANTS")"
if [ -d .devcarry/build ]; then
  scripts/build.sh default >/dev/null
  cp build/default/bin/tessera .devcarry/build/bin/
  cp -r build/default/lib/. .devcarry/build/lib/
  rm -f .devcarry/build/lib/libtessera_compiler.so .devcarry/build/lib/tessera/plugins/libtessera_*_compiler.so
else
  scripts/gpu/prepare.sh "$chip" >/dev/null
fi
export TESSERA_NO_CACHE=1
a=.devcarry/vkab; rm -rf $a && mkdir -p $a/on $a/off $a/cuda
echo "$off" > $a/switches.txt
for k in gemm gemm_bf16 flash_attention_fwd; do
  build/default/bin/tessera compile "examples/$k.mlir" --target "$vk" --target "$host" -o "$a/on/$k.tsb"
  env $off build/default/bin/tessera compile "examples/$k.mlir" --target "$vk" --target "$host" -o "$a/off/$k.tsb"
done
printf '%s\n' "$variants" | grep -v '^ *$' > $a/variants.txt
while read -r label envs; do
  mkdir -p "$a/v-$label"
  env $envs build/default/bin/tessera compile examples/gemm.mlir --target "$vk" --target "$host" \
    -o "$a/v-$label/gemm.tsb"
  echo "$label: $envs"
done < $a/variants.txt
build/default/bin/tessera compile examples/gemm.mlir --target "nvptx64-nvidia-cuda:$chip" -o $a/cuda/gemm.tsb
# The loader and libglvnd (as prepare-vulkan.sh).
grep -qx '/.gl/' "$(git rev-parse --git-path info/exclude)" 2>/dev/null || echo '/.gl/' >> "$(git rev-parse --git-path info/exclude)"
mkdir -p .gl /tmp/amd64/partial
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
ls .gl/libglvnd0_*.deb >/dev/null 2>&1 || { apt-get $o update -qq && (cd .gl && apt-get $o download libvulkan1 libglvnd0 libglx0 libgl1 libegl1 libopengl0 libgles2); }
du -sh .devcarry .gl
