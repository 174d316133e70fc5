// GEMMs on Vulkan devices without cooperative matrices: the core's vector
// FMA, each thread's accumulators in function variables, operands staged in
// workgroup memory. The kernel ABI of tessera/spirv/image.h: tensors are
// storage buffers at set 0, bindings in argument order; every launch slot is
// a 32-bit word of one push-constant block; the block size is the LocalSize.
// REQUIRES: tessera, plugin-spirv, spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %examples/gemm_f32.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe -o %t/f32.tsb --dump-dir %t/f32
// RUN: spirv-val --target-env vulkan1.3 %t/f32/kernels.lavapipe.spv
// RUN: spirv-dis %t/f32/kernels.lavapipe.spv | FileCheck %s --check-prefix=F32
// RUN: %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:generic -o %t/f16.tsb --dump-dir %t/f16
// RUN: spirv-val --target-env vulkan1.3 %t/f16/kernels.generic.spv
// RUN: spirv-dis %t/f16/kernels.generic.spv | FileCheck %s --check-prefix=F16

// F32: OpCapability Shader
// F32-NOT: OpCapability CooperativeMatrixKHR
// F32: OpEntryPoint GLCompute %[[K:[a-z_0-9]+]] "tessera_kernel_gemm_f32"
// F32: OpExecutionMode %[[K]] LocalSize 128 1 1
// F32-DAG: OpDecorate %{{.*}}arg_0 DescriptorSet 0
// F32-DAG: OpDecorate %{{.*}}arg_0 Binding 0
// F32-DAG: OpDecorate %{{.*}}arg_1 Binding 1
// F32-DAG: OpDecorate %{{.*}}arg_2 Binding 2
// F32-DAG: = OpVariable %{{.*}} PushConstant
// F32-DAG: = OpVariable %{{.*}} Workgroup
// F32-DAG: = OpVariable %{{.*}} Function
// F32: OpControlBarrier %uint_2 %uint_2
// F32: OpFMul %float
// F32-NEXT: OpFAdd %float
// F32-NOT: OpCooperativeMatrixMulAddKHR

// f16 operands, f32 accumulators: 16-bit storage buffers, the products in
// f32 after OpFConvert.
// F16-DAG: OpCapability StorageBuffer16BitAccess
// F16-DAG: OpCapability Float16
// F16: OpEntryPoint GLCompute %{{.*}} "tessera_kernel_gemm"
// F16: OpFConvert %float
// F16: OpFMul %float
// F16-NOT: OpCooperativeMatrixMulAddKHR
