// Shared tiles beyond the device's workgroup memory (lavapipe: 32 KiB; the
// flash-attention example plans 48 KiB) live in a per-workgroup region of a
// scratch storage buffer the runtime binds after the tensors: one binding per
// element type, the region of workgroup x + gx * (y + gy * z). Its barriers
// then order device memory too (UniformMemory in their semantics: 0x148 =
// AcquireRelease | UniformMemory | WorkgroupMemory).
// REQUIRES: tessera, plugin-spirv, spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %examples/flash_attention_fwd.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe -o %t/a.tsb --dump-dir %t/a
// RUN: spirv-val --target-env vulkan1.3 %t/a/kernels.lavapipe.spv
// RUN: spirv-dis %t/a/kernels.lavapipe.spv | FileCheck %s
// Within the device's workgroup memory: no scratch binding.
// RUN: %tessera compile %examples/softmax.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe -o %t/s.tsb --dump-dir %t/s
// RUN: spirv-dis %t/s/kernels.lavapipe.spv | FileCheck %s --check-prefix=NONE

// CHECK-DAG: OpDecorate %{{.*}}arg_3 Binding 3
// CHECK-DAG: OpDecorate %{{.*}}arg_4 Binding 4
// CHECK-DAG: BuiltIn NumWorkgroups
// CHECK: OpControlBarrier %uint_2 %uint_2 %uint_328

// NONE-NOT: Binding 2
// NONE-NOT: %uint_328
