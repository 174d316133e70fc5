// The lowering switches for A/B runs on NVIDIA's driver (SpirvScheduling.h,
// docs/backends/spirv.md "Switches for the next A/B"), each on gemm.mlir for
// nvidia-vk against the default. Every variant passes spirv-val.
// REQUIRES: tessera, plugin-spirv, spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/d.tsb --dump-dir %t/d
// RUN: spirv-dis %t/d/kernels.nvidia-vk.spv -o %t/d.s
// RUN: FileCheck %s --check-prefix=DEFAULT < %t/d.s
//
// Accumulators carried through the K loop as cooperative matrices: 16 OpPhi
// of the matrix type beside the induction variable's, no component moved
// inside the loop.
// RUN: env TESSERA_SPIRV_CARRY=1 %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/c.tsb --dump-dir %t/c
// RUN: spirv-val --target-env vulkan1.3 %t/c/kernels.nvidia-vk.spv
// RUN: spirv-dis %t/c/kernels.nvidia-vk.spv | FileCheck %s --check-prefix=CARRY
//
// The refill's loads (A's tile: arg_3, B's: arg_4) above the stage barrier.
// RUN: env TESSERA_SPIRV_EARLY_LOADS=1 %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/e.tsb --dump-dir %t/e
// RUN: spirv-val --target-env vulkan1.3 %t/e/kernels.nvidia-vk.spv
// RUN: spirv-dis %t/e/kernels.nvidia-vk.spv | FileCheck %s --check-prefix=EARLY
//
// B's refill after the first K step's 16 multiply-adds.
// RUN: env TESSERA_SPIRV_SPLIT_REFILL=1 %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/s.tsb --dump-dir %t/s
// RUN: spirv-val --target-env vulkan1.3 %t/s/kernels.nvidia-vk.spv
// RUN: spirv-dis %t/s/kernels.nvidia-vk.spv | FileCheck %s --check-prefix=SPLITR
//
// By default A and B (and their 16-byte views) are NonWritable and
// Restrict, C not; TESSERA_SPIRV_READONLY=0 leaves them undecorated.
// RUN: FileCheck %s --check-prefix=READONLY < %t/d.s
// RUN: env TESSERA_SPIRV_READONLY=0 %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/r.tsb --dump-dir %t/r
// RUN: spirv-val --target-env vulkan1.3 %t/r/kernels.nvidia-vk.spv
// RUN: spirv-dis %t/r/kernels.nvidia-vk.spv | FileCheck %s --check-prefix=WRITABLE
//
// A continue block of its own: the header branches to the body, not to
// the continue target.
// RUN: env TESSERA_SPIRV_CONTINUE=1 %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/k.tsb --dump-dir %t/k
// RUN: spirv-val --target-env vulkan1.3 %t/k/kernels.nvidia-vk.spv
// RUN: spirv-dis %t/k/kernels.nvidia-vk.spv | FileCheck %s --check-prefix=CONTINUE
//
// RUN: env TESSERA_SPIRV_LOOP_CONTROL=dont_unroll %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/l.tsb --dump-dir %t/l
// RUN: spirv-val --target-env vulkan1.3 %t/l/kernels.nvidia-vk.spv
// RUN: spirv-dis %t/l/kernels.nvidia-vk.spv | FileCheck %s --check-prefix=DONT
// RUN: env TESSERA_SPIRV_LOOP_CONTROL=unroll %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/u.tsb --dump-dir %t/u
// RUN: spirv-dis %t/u/kernels.nvidia-vk.spv | FileCheck %s --check-prefix=UNROLL

// WRITABLE-NOT: NonWritable
// WRITABLE: OpFunction
// DEFAULT: OpPhi %uint
// DEFAULT-NEXT: OpSLessThan
// DEFAULT-NEXT: OpLoopMerge [[MERGE:%[0-9]+]] [[CONT:%[0-9]+]] None
// DEFAULT-NEXT: OpBranchConditional %{{[0-9]+}} [[CONT]] [[MERGE]]
// DEFAULT-NOT: OpAccessChain %_ptr_StorageBuffer_v4uint
// DEFAULT: OpControlBarrier
// DEFAULT: OpAccessChain %_ptr_StorageBuffer_v4uint %tessera_kernel_gemm_arg_3
// DEFAULT-NOT: OpCooperativeMatrixMulAddKHR
// DEFAULT: OpAccessChain %_ptr_StorageBuffer_v4uint %tessera_kernel_gemm_arg_4
// DEFAULT: OpCompositeInsert
// DEFAULT: OpCooperativeMatrixMulAddKHR
// DEFAULT: [[MERGE]] = OpLabel

// CARRY: OpPhi %uint
// CARRY-COUNT-16: = OpPhi %[[COOP:[0-9]+]] %{{[0-9]+}} %{{[0-9]+}} %{{[0-9]+}} %{{[0-9]+}}
// CARRY-NEXT: OpSLessThan
// CARRY-NEXT: OpLoopMerge [[MERGE:%[0-9]+]]
// CARRY-NOT: OpComposite{{Insert|Extract}}
// CARRY: OpCooperativeMatrixMulAddKHR %[[COOP]]
// CARRY-NOT: OpComposite{{Insert|Extract}}
// CARRY: [[MERGE]] = OpLabel

// EARLY: OpLoopMerge
// EARLY-NOT: OpControlBarrier
// EARLY: OpAccessChain %_ptr_StorageBuffer_v4uint %tessera_kernel_gemm_arg_3
// EARLY-NOT: OpControlBarrier
// EARLY: OpAccessChain %_ptr_StorageBuffer_v4uint %tessera_kernel_gemm_arg_4
// EARLY: OpControlBarrier
// EARLY-NOT: OpAccessChain %_ptr_StorageBuffer_v4uint
// EARLY: OpCooperativeMatrixMulAddKHR

// SPLITR: OpLoopMerge
// SPLITR: OpAccessChain %_ptr_StorageBuffer_v4uint %tessera_kernel_gemm_arg_3
// SPLITR-NOT: %tessera_kernel_gemm_arg_4
// SPLITR-COUNT-16: OpCooperativeMatrixMulAddKHR
// SPLITR-NOT: OpCooperativeMatrixMulAddKHR
// SPLITR: OpAccessChain %_ptr_StorageBuffer_v4uint %tessera_kernel_gemm_arg_4
// SPLITR-COUNT-16: OpCooperativeMatrixMulAddKHR

// READONLY-DAG: OpDecorate %tessera_kernel_gemm_arg_0 NonWritable
// READONLY-DAG: OpDecorate %tessera_kernel_gemm_arg_0 Restrict
// READONLY-DAG: OpDecorate %tessera_kernel_gemm_arg_1 NonWritable
// READONLY-DAG: OpDecorate %tessera_kernel_gemm_arg_3 NonWritable
// READONLY-DAG: OpDecorate %tessera_kernel_gemm_arg_4 NonWritable
// READONLY-NOT: OpDecorate %tessera_kernel_gemm_arg_{{2|5}} NonWritable
// READONLY: OpFunction

// CONTINUE: OpLoopMerge [[MERGE:%[0-9]+]] [[CONT:%[0-9]+]] None
// CONTINUE-NEXT: OpBranchConditional %{{[0-9]+}} [[BODY:%[0-9]+]] [[MERGE]]
// CONTINUE-NOT: [[CONT]] = OpLabel
// CONTINUE: [[BODY]] = OpLabel
// CONTINUE: OpBranch [[CONT]]
// CONTINUE-NEXT: [[CONT]] = OpLabel
// CONTINUE-NEXT: OpBranch
// CONTINUE-NEXT: [[MERGE]] = OpLabel

// DONT: OpLoopMerge %{{[0-9]+}} %{{[0-9]+}} DontUnroll
// UNROLL: OpLoopMerge %{{[0-9]+}} %{{[0-9]+}} Unroll
