// Atoms that read both operands from shared memory themselves ("opaque":
// cooperative matrices) load one A per row and one B per column of the
// warp's atom tiles in each K step, so layout inference splits the warps
// over M and N to load the fewest (128x128 with 4 warps: 2 x 2 warps of
// 4 x 4 instances, 8 loads per K step, instead of 4 x 1 warps of 2 x 8, 10
// loads). Kernels that reduce keep M first (row statistics within a warp);
// TESSERA_SPIRV_WARPS2D=0 turns it off. Atoms with register operands (CUDA)
// keep M first.
// REQUIRES: tessera, plugin-spirv, spirv-tools
// RUN: %tessera-opt --tessera-infer-layouts=target=nvidia-vk %examples/gemm.mlir | FileCheck %s --check-prefix=SQUARE
// RUN: env TESSERA_SPIRV_WARPS2D=0 %tessera-opt --tessera-infer-layouts=target=nvidia-vk %examples/gemm.mlir | FileCheck %s --check-prefix=ROWS
// RUN: %tessera-opt --tessera-infer-layouts=target=nvidia-vk %examples/flash_attention_fwd.mlir | FileCheck %s --check-prefix=ATTN
// RUN: %tessera-opt --tessera-infer-layouts=target=sm_80 %examples/gemm.mlir | FileCheck %s --check-prefix=MMA
// The SPIR-V with the program's 128 threads (TESSERA_SPLIT_THREADS=0): 2 K
// steps of 16 per tile of 32, 8 matrix loads and 16 multiply-adds each;
// valid.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TESSERA_SPLIT_THREADS=0 %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/g.tsb --dump-dir %t/g
// RUN: spirv-val --target-env vulkan1.3 %t/g/kernels.nvidia-vk.spv
// RUN: spirv-dis %t/g/kernels.nvidia-vk.spv | grep -c OpCooperativeMatrixLoadKHR | FileCheck %s --check-prefix=LOADS
// RUN: env TESSERA_SPLIT_THREADS=0 TESSERA_SPIRV_WARPS2D=0 %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/o.tsb --dump-dir %t/o
// RUN: spirv-dis %t/o/kernels.nvidia-vk.spv | grep -c OpCooperativeMatrixLoadKHR | FileCheck %s --check-prefix=LOADS-OFF
// With max_fragment_words_per_thread = 64 (a plugin copy; the shipped file
// sets 128) the block has 256 threads (tessera-split-threads): 4 x 2
// subgroups of 2 x 4 instances, 6 loads per K step (2 x 9 with 8 x 1
// subgroups of 1 x 8).
// RUN: %python %S/Inputs/split_threads_plugins.py %t/plugins nvidia-vk.toml
// RUN: env TESSERA_PLUGIN_PATH=%t/plugins %tessera-opt --tessera-pipeline=nvidia-vk %examples/gemm.mlir | FileCheck %s --check-prefix=SPLIT
// RUN: env TESSERA_PLUGIN_PATH=%t/plugins %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/s.tsb --dump-dir %t/s
// RUN: spirv-dis %t/s/kernels.nvidia-vk.spv | grep -c OpCooperativeMatrixLoadKHR | FileCheck %s --check-prefix=LOADS-SPLIT
// RUN: env TESSERA_PLUGIN_PATH=%t/plugins TESSERA_SPIRV_WARPS2D=0 %tessera compile %examples/gemm.mlir --no-cache --target spirv64-unknown-vulkan1.3:nvidia-vk -o %t/r.tsb --dump-dir %t/r
// RUN: spirv-dis %t/r/kernels.nvidia-vk.spv | grep -c OpCooperativeMatrixLoadKHR | FileCheck %s --check-prefix=LOADS-SPLIT-OFF

// SQUARE: tile.gemm {{.*}}atom = "coopmat_16x16x16_f16_f32", warps = array<i64: 2, 2>
// ROWS: tile.gemm {{.*}}atom = "coopmat_16x16x16_f16_f32", warps = array<i64: 4, 1>
// ATTN: tile.gemm {{.*}}warps = array<i64: 4, 1>
// ATTN: tile.gemm {{.*}}warps = array<i64: 4, 1>
// MMA: tile.gemm {{.*}}warps = array<i64: 4, 1>
// LOADS: {{^}}16{{$}}
// LOADS-OFF: {{^}}20{{$}}
// SPLIT: tile.gemm {{.*}}atom = "coopmat_16x16x16_f16_f32", warps = array<i64: 4, 2>
// LOADS-SPLIT: {{^}}12{{$}}
// LOADS-SPLIT-OFF: {{^}}18{{$}}
