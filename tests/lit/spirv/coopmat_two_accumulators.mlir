// Two cooperative-matrix accumulators multiplied element-wise (found by the
// random tile programs, multi family, "gemm2 mul", on an H100 through
// NVIDIA's Vulkan driver): with both accumulators reordered through one
// per-subgroup region of workgroup memory, register t of C1 and register t
// of C2 were loads of the same address (the other accumulator's
// OpCooperativeMatrixStoreKHR and barriers between), which the driver took
// for one value: it compiled |C1 * C2| as C1 * C2, so exp(-|C1*C2|/8) came
// out as exp(-C1*C2/8) wherever the product was negative. Each opaque-order
// accumulator now has a reorder region of its own (a workgroup variable of
// its own here). Under the Vulkan memory model, which these modules declare,
// workgroup accesses are non-private and barriers make memory available and
// visible; device-scope atomics declare VulkanMemoryModelDeviceScope.
// REQUIRES: tessera, plugin-spirv, spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %S/Inputs/coopmat_two_accumulators.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/k.tsb --dump-dir %t/k
// RUN: spirv-val --target-env vulkan1.3 %t/k/kernels.nvidia-vk.spv
// RUN: spirv-dis %t/k/kernels.nvidia-vk.spv | FileCheck %s

// CHECK: OpCapability VulkanMemoryModelDeviceScope
// CHECK: OpMemoryModel Logical Vulkan
// Two 16x16 f32 reorder regions (one subgroup), one per accumulator.
// CHECK: %[[ARR:[_a-z0-9]+]] = OpTypeArray %float %uint_256
// CHECK-NEXT: %[[ST:[_a-z0-9]+]] = OpTypeStruct %[[ARR]]
// CHECK-NEXT: %[[PT:[_A-Za-z0-9]+]] = OpTypePointer Workgroup %[[ST]]
// CHECK-NEXT: %[[V1:__workgroup_mem__[0-9]+]] = OpVariable %[[PT]] Workgroup
// CHECK-NEXT: %[[V2:__workgroup_mem__[0-9]+]] = OpVariable %[[PT]] Workgroup
// CHECK: OpCooperativeMatrixMulAddKHR
// CHECK: OpCooperativeMatrixMulAddKHR
// C1 through the first region, its lanes' loads non-private after a
// subgroup barrier that makes memory available and visible ...
// CHECK: OpAccessChain %_ptr_Workgroup_float %[[V1]]
// CHECK-NEXT: OpCooperativeMatrixStoreKHR {{.*}} NonPrivatePointer
// CHECK-NEXT: OpControlBarrier %uint_3 %uint_3 %uint_24840
// CHECK: OpLoad %float %{{[0-9]+}} NonPrivatePointer
// ... C2 through the second.
// CHECK: OpAccessChain %_ptr_Workgroup_float %[[V2]]
// CHECK-NEXT: OpCooperativeMatrixStoreKHR {{.*}} NonPrivatePointer
// CHECK: FAbs
// CHECK: Exp
