// f32 `tile.atomic max` on Vulkan (found by the random tile programs, multi
// seed 15 on lavapipe: it failed to legalize): the value's bits go through a
// 32-bit integer view of the same storage buffer, signed max for
// non-negative values and unsigned min for negative ones. Runs against the
// host image in e2e (tests/fuzz: the multi family on lavapipe).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %S/Inputs/atomic_max_f32.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe -o %t/a.tsb --dump-dir %t/a
// RUN: spirv-val --target-env vulkan1.3 %t/a/kernels.lavapipe.spv
// RUN: spirv-dis %t/a/kernels.lavapipe.spv | FileCheck %s
// RUN: %tessera compile %S/Inputs/atomic_max_f32.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/b.tsb

// CHECK-DAG: OpDecorate %{{.*}} Binding 1
// CHECK: OpAtomicSMax %uint
// CHECK: OpAtomicUMin %uint
