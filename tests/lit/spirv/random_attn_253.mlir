// Regression from the random tile programs (attention seed 253, found on
// NVIDIA's Vulkan driver, fixed in 3ebb761): register staging kept both
// stages' tiles in private arrays beside this kernel's fragments (f32 attention,
// head dim 128, 64 threads, 4 requested stages) and asked for asynchronous-copy
// pointers a register-staging target has none of. Distribution now stages only
// where the registers fit and never emits asynchronous copies there. The
// program (Inputs/random_attn_253.mlir, `tests/fuzz/gen_tile_programs.py gen
// 253 --family attn --targets spirv64-unknown-vulkan1.3:nvidia-vk`) compiles
// to valid SPIR-V for nvidia-vk and lavapipe (which stages through registers)
// and runs right on lavapipe against the host image.
// REQUIRES: tessera, plugin-spirv, spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %S/Inputs/random_attn_253.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/n.tsb --dump-dir %t/n
// RUN: spirv-val --target-env vulkan1.3 %t/n/kernels.nvidia-vk.spv
// RUN: %tessera compile %S/Inputs/random_attn_253.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe --target x86_64-unknown-linux-gnu -o %t/l.tsb --dump-dir %t/l
// RUN: spirv-val --target-env vulkan1.3 %t/l/kernels.lavapipe.spv
// RUN: %if vulkan-device %{ %tessera run %t/l.tsb --device spirv --shape H=2,Lq=37,Lk=45 --iters 1 --warmup 0 | FileCheck %s %}
// CHECK: check: passed
