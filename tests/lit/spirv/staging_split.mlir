// Register staging (async_copy = "registers") tests the whole tile once, as
// copyGlobalToShared does: a tile wholly inside the tensor loads its 16-byte
// pieces unchecked, one after the other; only edge tiles test each piece
// (and, at a row's end, each element). TESSERA_SPIRV_STAGING_SPLIT=0 tests
// every piece. gemm.mlir's A tile: 4 pieces per invocation per stage.
// REQUIRES: tessera, plugin-spirv, spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/s.tsb --dump-dir %t/s
// RUN: spirv-val --target-env vulkan1.3 %t/s/kernels.nvidia-vk.spv
// RUN: spirv-dis %t/s/kernels.nvidia-vk.spv | FileCheck %s --check-prefix=SPLIT
// RUN: env TESSERA_SPIRV_STAGING_SPLIT=0 %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/o.tsb --dump-dir %t/o
// RUN: spirv-dis %t/o/kernels.nvidia-vk.spv | FileCheck %s --check-prefix=PIECES

// SPLIT: OpAccessChain %_ptr_StorageBuffer_v4uint %tessera_kernel_gemm_arg_3
// SPLIT-NOT: OpBranchConditional
// SPLIT: OpAccessChain %_ptr_StorageBuffer_v4uint %tessera_kernel_gemm_arg_3
// SPLIT-NOT: OpBranchConditional
// SPLIT: OpAccessChain %_ptr_StorageBuffer_v4uint %tessera_kernel_gemm_arg_3
// SPLIT-NOT: OpBranchConditional
// SPLIT: OpAccessChain %_ptr_StorageBuffer_v4uint %tessera_kernel_gemm_arg_3
// SPLIT: OpBranchConditional

// PIECES: OpAccessChain %_ptr_StorageBuffer_v4uint %tessera_kernel_gemm_arg_3
// PIECES-NOT: OpAccessChain %_ptr_StorageBuffer_v4uint
// PIECES: OpBranchConditional
// PIECES: OpAccessChain %_ptr_StorageBuffer_v4uint %tessera_kernel_gemm_arg_3
