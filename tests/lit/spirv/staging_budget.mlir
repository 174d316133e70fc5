// Register staging under a budget (TargetHooks::stagingRegisterReserve): with
// TESSERA_SPIRV_STAGE_RESERVE=1 the nvidia-vk hooks reserve 112 registers for
// the driver's operand matrices and addresses, so gemm.mlir (128 accumulator
// registers) stages 255 - 128 - 112 = 15 registers: 3 of A's 4 pieces per
// invocation in a private array of 3 x v4uint; A's last piece and B's 4 go
// straight into the other stage, unrolled (no second loop). By default no
// reserve (slower on the H100, docs/backends/spirv.md): whole tiles.
// TESSERA_SPIRV_STAGE_BUDGET=0 stages whole tiles (two arrays of 4), =1 none.
// All with the program's 128 threads (TESSERA_SPLIT_THREADS=0): over 256
// (tessera-split-threads) the accumulator takes 64 registers and the budget
// covers whole tiles of 2 pieces.
// REQUIRES: tessera, plugin-spirv, spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TESSERA_SPLIT_THREADS=0 TESSERA_SPIRV_STAGE_RESERVE=1 %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/d.tsb --dump-dir %t/d
// RUN: spirv-val --target-env vulkan1.3 %t/d/kernels.nvidia-vk.spv
// RUN: spirv-dis %t/d/kernels.nvidia-vk.spv | FileCheck %s --check-prefix=BUDGET
// RUN: spirv-dis %t/d/kernels.nvidia-vk.spv | grep -c OpLoopMerge | FileCheck %s --check-prefix=ONELOOP
// RUN: env TESSERA_SPLIT_THREADS=0 TESSERA_SPIRV_STAGE_BUDGET=0 %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/w.tsb --dump-dir %t/w
// RUN: spirv-val --target-env vulkan1.3 %t/w/kernels.nvidia-vk.spv
// RUN: spirv-dis %t/w/kernels.nvidia-vk.spv | FileCheck %s --check-prefix=WHOLE
// RUN: env TESSERA_SPLIT_THREADS=0 %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/dd.tsb --dump-dir %t/dd
// RUN: spirv-dis %t/dd/kernels.nvidia-vk.spv | FileCheck %s --check-prefix=WHOLE
// RUN: env TESSERA_SPLIT_THREADS=0 TESSERA_SPIRV_STAGE_BUDGET=1 %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/n.tsb --dump-dir %t/n
// RUN: spirv-val --target-env vulkan1.3 %t/n/kernels.nvidia-vk.spv
// RUN: spirv-dis %t/n/kernels.nvidia-vk.spv | FileCheck %s --check-prefix=NONE
// RUN: spirv-dis %t/n/kernels.nvidia-vk.spv | grep -c OpLoopMerge | FileCheck %s --check-prefix=ONELOOP
// TESSERA_STAGED_PIECE=1 computes the staged pieces from piece 0 (constant
// row offsets): fewer divisions than one flattened index per piece.
// RUN: spirv-dis %t/dd/kernels.nvidia-vk.spv | grep -c OpUMod | FileCheck %s --check-prefix=UMOD38
// RUN: env TESSERA_SPLIT_THREADS=0 TESSERA_STAGED_PIECE=1 %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/p.tsb --dump-dir %t/p
// RUN: spirv-val --target-env vulkan1.3 %t/p/kernels.nvidia-vk.spv
// RUN: spirv-dis %t/p/kernels.nvidia-vk.spv | grep -c OpUMod | FileCheck %s --check-prefix=UMOD20
// lavapipe (no cooperative matrices, no reserve) stages whole tiles.
// RUN: env TESSERA_SPLIT_THREADS=0 %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe -o %t/l.tsb --dump-dir %t/l
// RUN: spirv-dis %t/l/kernels.lavapipe.spv | FileCheck %s --check-prefix=LAVA

// BUDGET: %_arr_v4uint_uint_3 = OpTypeArray %v4uint %uint_3
// BUDGET-NOT: %_arr_v4uint_uint_4 = OpTypeArray
// ONELOOP: {{^1$}}
// WHOLE-NOT: %_arr_v4uint_uint_3 = OpTypeArray
// WHOLE: %_arr_v4uint_uint_4 = OpTypeArray %v4uint %uint_4
// NONE-NOT: OpAccessChain %_ptr_Function_v4uint
// UMOD38: {{^38$}}
// UMOD20: {{^20$}}
// LAVA-NOT: %_arr_v4uint_uint_3 = OpTypeArray
