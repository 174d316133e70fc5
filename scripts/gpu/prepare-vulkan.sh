#!/usr/bin/env bash
# Prepares the Vulkan run on the GPU machine (after scripts/gpu/prepare.sh):
# bundles with an nvidia-vk image (NVIDIA's Vulkan driver) and a host image
# (the reference) for the examples and the zoo, one bundle with images for
# sm_90a, nvidia-vk and the host, and the Vulkan loader as Debian packages in
# .gl/ (the GPU machine has NVIDIA's ICD but no loader; the device README's
# recipe). scripts/gpu/vulkan.sh runs it all there.
#   scripts/gpu/prepare-vulkan.sh [cuda chip]   (default sm_90a)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
chip="${1:-sm_90a}"; host="$(uname -m)-unknown-linux-gnu"
vk=spirv64-unknown-vulkan1.3:nvidia-vk
bin=build/default/bin
export TESSERA_NO_CACHE=1
rm -rf .devcarry/vk .devcarry/vkzoo && mkdir -p .devcarry/vk .devcarry/vkzoo
for k in gemm gemm_bf16 gemm_fp8 gemm_relu gemm_bias_relu flash_attention_fwd flash_attention_fwd_q128 softmax rmsnorm elementwise_add gemm_f32; do
  "$bin/tessera" compile "examples/$k.mlir" --target "$vk" --target "$host" -o ".devcarry/vk/$k.tsb"
done
# One bundle, three devices: the CUDA GPU, the same GPU through Vulkan, the host.
for k in gemm flash_attention_fwd; do
  "$bin/tessera" compile "examples/$k.mlir" --target "nvptx64-nvidia-cuda:$chip" --target "$vk" \
    --target "$host" -o ".devcarry/vk/$k.3.tsb"
done
for f in examples/zoo/*.mlir; do
  "$bin/tessera" compile "$f" --target "$vk" --target "$host" -o ".devcarry/vkzoo/$(basename "$f" .mlir).tsb"
done
sed 's#\.devcarry/zoo/#.devcarry/vkzoo/#' .devcarry/zoo/list.txt > .devcarry/vkzoo/list.txt 2>/dev/null || {
  scripts/gpu/prepare-zoo.sh "$chip" >/dev/null
  sed 's#\.devcarry/zoo/#.devcarry/vkzoo/#' .devcarry/zoo/list.txt > .devcarry/vkzoo/list.txt
}
# The loader, and libglvnd: NVIDIA's Vulkan driver lives in libGLX_nvidia, which
# needs its dispatch library.
grep -qx '/.gl/' .git/info/exclude 2>/dev/null || echo '/.gl/' >> .git/info/exclude
mkdir -p .gl /tmp/amd64/partial
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
ls .gl/libglvnd0_*.deb >/dev/null 2>&1 || { apt-get $o update -qq && (cd .gl && apt-get $o download libvulkan1 libglvnd0 libglx0 libgl1 libegl1 libopengl0 libgles2); }
du -sh .devcarry .gl
