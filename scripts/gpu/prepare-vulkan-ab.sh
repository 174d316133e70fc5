#!/usr/bin/env bash
# A/B of the Vulkan lowerings on NVIDIA's Vulkan driver: compiles gemm,
# gemm_bf16 and flash_attention_fwd for nvidia-vk + the host (the reference)
# with the tree's defaults into .devcarry/vkab/on and with the switches off
# into .devcarry/vkab/off, and gemm for the CUDA chip (the ratio's
# denominator). The runtime side comes from scripts/gpu/prepare.sh
# (refreshed here: the spirv runtime plugin reports pipeline statistics),
# the Vulkan loader from .gl/ (prepare-vulkan.sh's packages).
# scripts/gpu/vulkan-ab.sh runs it there (carry .devcarry and .gl).
#   scripts/gpu/prepare-vulkan-ab.sh [cuda chip]   (default sm_90a)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
chip="${1:-sm_90a}"; host="$(uname -m)-unknown-linux-gnu"
vk="${VKAB_TARGET:-spirv64-unknown-vulkan1.3:nvidia-vk}"   # lavapipe: a dry run here
off="TESSERA_SPIRV_WARPS2D=0 TESSERA_SPIRV_STAGING_SPLIT=0 TESSERA_SPIRV_REPACK=1 TESSERA_SPIRV_STAGE_BUDGET=0"
# gemm with the defaults but for the staging budget: whole tiles staged (b0,
# the default), 16 registers (b16: half the tile), none (b1: every piece
# straight into its stage).
budgets="0 16 1"
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
echo "$off" > $a/switches.txt; echo "$budgets" > $a/budgets.txt
for k in gemm gemm_bf16 flash_attention_fwd; do
  build/default/bin/tessera compile "examples/$k.mlir" --target "$vk" --target "$host" -o "$a/on/$k.tsb"
  env $off build/default/bin/tessera compile "examples/$k.mlir" --target "$vk" --target "$host" -o "$a/off/$k.tsb"
done
for n in $budgets; do
  mkdir -p $a/b$n
  TESSERA_SPIRV_STAGE_BUDGET=$n build/default/bin/tessera compile examples/gemm.mlir --target "$vk" --target "$host" -o "$a/b$n/gemm.tsb"
done
# The switches that are off by default: piece addresses from piece 0's
# (sp1: TESSERA_STAGED_PIECE=1) and the staging reserve (res1:
# TESSERA_SPIRV_STAGE_RESERVE=1, with the per-piece addresses).
mkdir -p $a/bsp1 $a/bres1
TESSERA_STAGED_PIECE=1 build/default/bin/tessera compile examples/gemm.mlir --target "$vk" --target "$host" -o "$a/bsp1/gemm.tsb"
TESSERA_SPIRV_STAGE_RESERVE=1 build/default/bin/tessera compile examples/gemm.mlir --target "$vk" --target "$host" -o "$a/bres1/gemm.tsb"
echo "$budgets sp1 res1" > $a/budgets.txt
build/default/bin/tessera compile examples/gemm.mlir --target "nvptx64-nvidia-cuda:$chip" -o $a/cuda/gemm.tsb
# The loader and libglvnd (as prepare-vulkan.sh).
grep -qx '/.gl/' "$(git rev-parse --git-path info/exclude)" 2>/dev/null || echo '/.gl/' >> "$(git rev-parse --git-path info/exclude)"
mkdir -p .gl /tmp/amd64/partial
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
ls .gl/libglvnd0_*.deb >/dev/null 2>&1 || { apt-get $o update -qq && (cd .gl && apt-get $o download libvulkan1 libglvnd0 libglx0 libgl1 libegl1 libopengl0 libgles2); }
du -sh .devcarry .gl
