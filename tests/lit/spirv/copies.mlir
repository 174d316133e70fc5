// Copies on Vulkan: a tensor is a storage buffer addressed from its push
// constant byte offset (divided by the element size) with row-major strides
// from the dims' push constants; every access is masked at the tensor's edge
// and vector copies are scalarized (logical addressing has no reinterpreting
// pointer casts).
// REQUIRES: tessera, plugin-spirv, spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %examples/elementwise_add.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe -o %t/a.tsb --dump-dir %t/a
// RUN: spirv-val --target-env vulkan1.3 %t/a/kernels.lavapipe.spv
// RUN: spirv-dis %t/a/kernels.lavapipe.spv | FileCheck %s

// CHECK: OpEntryPoint GLCompute %{{.*}} "tessera_kernel_elementwise_add"
// CHECK-DAG: OpDecorate %{{.*}}arg_0 Binding 0
// CHECK-DAG: OpDecorate %{{.*}}arg_1 Binding 1
// CHECK-DAG: OpDecorate %{{.*}}arg_2 Binding 2
// CHECK: %[[PC:.*]] = OpVariable %{{.*}} PushConstant
// The byte offset of the first tensor, in elements.
// CHECK: OpAccessChain %{{.*}} %[[PC]] %uint_0 %uint_0
// CHECK: OpUDiv %uint %{{.*}} %uint_4
// CHECK: OpULessThan %bool
// CHECK: OpLoad %float
// CHECK: OpStore %{{.*}} %{{.*}}
// CHECK-NOT: OpBitcast %_ptr
