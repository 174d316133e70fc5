// GEMMs on Vulkan devices with VK_KHR_cooperative_matrix (nvidia-vk: 16x16x16
// f16 atoms): A and B are read from plain row-major shared tiles by
// OpCooperativeMatrixLoadKHR (column-major for a transposed operand), the
// accumulators stay cooperative-matrix components across the K loop, and
// the epilogue gets them by position through OpCooperativeMatrixStoreKHR to
// a per-subgroup region of workgroup memory. Shaders with cooperative
// matrices use the Vulkan memory model.
// REQUIRES: tessera, plugin-spirv, spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/g.tsb --dump-dir %t/g
// RUN: spirv-val --target-env vulkan1.3 %t/g/kernels.nvidia-vk.spv
// RUN: spirv-dis %t/g/kernels.nvidia-vk.spv | FileCheck %s --check-prefix=GEMM
// The transposed-A variant reads A column-major.
// RUN: %tessera compile %examples/zoo/gemm_f16_at_rowscale.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/t.tsb --dump-dir %t/t
// RUN: spirv-val --target-env vulkan1.3 %t/t/kernels.nvidia-vk.spv
// RUN: spirv-dis %t/t/kernels.nvidia-vk.spv | FileCheck %s --check-prefix=TRANS
// Flash attention: S = Q K^T and O += P V both on cooperative matrices, P
// (a fragment, which a cooperative matrix cannot read from registers)
// staged through a shared tile of its own.
// RUN: %tessera compile %examples/flash_attention_fwd.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/a.tsb --dump-dir %t/a
// RUN: spirv-val --target-env vulkan1.3 %t/a/kernels.nvidia-vk.spv
// RUN: spirv-dis %t/a/kernels.nvidia-vk.spv | FileCheck %s --check-prefix=ATTN
// The same kernels for lavapipe (no cooperative matrices) take vector FMA.
// RUN: %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe -o %t/l.tsb --dump-dir %t/l
// RUN: spirv-dis %t/l/kernels.lavapipe.spv | FileCheck %s --check-prefix=FMA

// GEMM: OpCapability CooperativeMatrixKHR
// GEMM: OpCapability VulkanMemoryModel
// GEMM: OpMemoryModel Logical Vulkan
// The A (128x32) and B (32x128) tiles only move 16-byte pieces: they are
// arrays of 4 x i32 whose rows are padded by one piece (5 and 17 pieces,
// odd: no bank conflicts for the matrix loads), 2 stages each, stored one
// piece per OpStore from the staging registers.
// GEMM-DAG: OpTypeArray %v4uint %uint_1280
// GEMM-DAG: OpTypeArray %v4uint %uint_1088
// GEMM: OpAccessChain %_ptr_Workgroup_v4uint
// GEMM: OpCooperativeMatrixLoadKHR %{{.*}} %{{.*}} %uint_0 %uint_5
// GEMM: OpCooperativeMatrixLoadKHR %{{.*}} %{{.*}} %uint_0 %uint_17
// GEMM: OpCooperativeMatrixMulAddKHR
// GEMM: OpCooperativeMatrixStoreKHR
// GEMM: OpControlBarrier %uint_3 %uint_3

// TRANS: OpCooperativeMatrixLoadKHR %{{.*}} %{{.*}} %uint_1
// TRANS: OpCooperativeMatrixMulAddKHR

// ATTN-COUNT-2: OpCooperativeMatrixMulAddKHR
// ATTN: OpCooperativeMatrixStoreKHR

// FMA-NOT: OpCooperativeMatrix
// FMA: OpFMul
