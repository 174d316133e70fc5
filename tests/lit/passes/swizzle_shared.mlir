// Shared-memory swizzles chosen from each target's bank model.
// Generated decisions were reviewed by hand; each RUN line is one example on one target.

// RUN: %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a %examples/elementwise_add.mlir | FileCheck %s --check-prefix=SM90-ELEMENTWISE-ADD
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 --tessera-swizzle-shared=target=gfx942 %examples/elementwise_add.mlir | FileCheck %s --check-prefix=GFX942-ELEMENTWISE-ADD
// RUN: %tessera-opt --tessera-infer-layouts=target=host --tessera-swizzle-shared=target=host %examples/elementwise_add.mlir | FileCheck %s --check-prefix=HOST-ELEMENTWISE-ADD
// RUN: %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a %examples/flash_attention_fwd.mlir | FileCheck %s --check-prefix=SM90-FLASH-ATTENTION-FWD
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 --tessera-swizzle-shared=target=gfx942 %examples/flash_attention_fwd.mlir | FileCheck %s --check-prefix=GFX942-FLASH-ATTENTION-FWD
// RUN: %tessera-opt --tessera-infer-layouts=target=host --tessera-swizzle-shared=target=host %examples/flash_attention_fwd.mlir | FileCheck %s --check-prefix=HOST-FLASH-ATTENTION-FWD
// RUN: %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a %examples/gemm.mlir | FileCheck %s --check-prefix=SM90-GEMM
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 --tessera-swizzle-shared=target=gfx942 %examples/gemm.mlir | FileCheck %s --check-prefix=GFX942-GEMM
// RUN: %tessera-opt --tessera-infer-layouts=target=host --tessera-swizzle-shared=target=host %examples/gemm.mlir | FileCheck %s --check-prefix=HOST-GEMM
// RUN: %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a %examples/gemm_f32.mlir | FileCheck %s --check-prefix=SM90-GEMM-F32
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 --tessera-swizzle-shared=target=gfx942 %examples/gemm_f32.mlir | FileCheck %s --check-prefix=GFX942-GEMM-F32
// RUN: %tessera-opt --tessera-infer-layouts=target=host --tessera-swizzle-shared=target=host %examples/gemm_f32.mlir | FileCheck %s --check-prefix=HOST-GEMM-F32
// RUN: %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a %examples/gemm_relu.mlir | FileCheck %s --check-prefix=SM90-GEMM-RELU
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 --tessera-swizzle-shared=target=gfx942 %examples/gemm_relu.mlir | FileCheck %s --check-prefix=GFX942-GEMM-RELU
// RUN: %tessera-opt --tessera-infer-layouts=target=host --tessera-swizzle-shared=target=host %examples/gemm_relu.mlir | FileCheck %s --check-prefix=HOST-GEMM-RELU
// RUN: %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a %examples/rmsnorm.mlir | FileCheck %s --check-prefix=SM90-RMSNORM
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 --tessera-swizzle-shared=target=gfx942 %examples/rmsnorm.mlir | FileCheck %s --check-prefix=GFX942-RMSNORM
// RUN: %tessera-opt --tessera-infer-layouts=target=host --tessera-swizzle-shared=target=host %examples/rmsnorm.mlir | FileCheck %s --check-prefix=HOST-RMSNORM
// RUN: %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a %examples/softmax.mlir | FileCheck %s --check-prefix=SM90-SOFTMAX
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 --tessera-swizzle-shared=target=gfx942 %examples/softmax.mlir | FileCheck %s --check-prefix=GFX942-SOFTMAX
// RUN: %tessera-opt --tessera-infer-layouts=target=host --tessera-swizzle-shared=target=host %examples/softmax.mlir | FileCheck %s --check-prefix=HOST-SOFTMAX

// SM90-ELEMENTWISE-ADD-NOT: tile.async_copy
// SM90-ELEMENTWISE-ADD: tile.kernel

// GFX942-ELEMENTWISE-ADD-NOT: tile.async_copy
// GFX942-ELEMENTWISE-ADD: tile.kernel

// HOST-ELEMENTWISE-ADD-NOT: tile.async_copy
// HOST-ELEMENTWISE-ADD: tile.kernel

// SM90-FLASH-ATTENTION-FWD: swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8, block_cols = 64>} : <64x128xf16, shared>
// SM90-FLASH-ATTENTION-FWD: swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8, block_cols = 64>} : <64x128xf16, shared>
// SM90-FLASH-ATTENTION-FWD: swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8, block_cols = 64>} : <64x128xf16, shared>

// GFX942-FLASH-ATTENTION-FWD: swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8>} : <64x128xf16, shared>
// GFX942-FLASH-ATTENTION-FWD: swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8>} : <64x128xf16, shared>
// GFX942-FLASH-ATTENTION-FWD: swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8>} : <64x128xf16, shared>

// HOST-FLASH-ATTENTION-FWD: swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 4>} : <64x128xf16, shared>
// HOST-FLASH-ATTENTION-FWD: swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 4>} : <64x128xf16, shared>
// HOST-FLASH-ATTENTION-FWD: swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 4>} : <64x128xf16, shared>

// SM90-GEMM: swizzle = #tile.swizzle<vec = 8, per_phase = 2, max_phase = 4>} : <128x32xf16, shared>
// SM90-GEMM: swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8, block_cols = 64>} : <32x128xf16, shared>

// GFX942-GEMM: swizzle = #tile.swizzle<vec = 8, per_phase = 2, max_phase = 4>} : <128x32xf16, shared>
// GFX942-GEMM: swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8>} : <32x128xf16, shared>

// HOST-GEMM: swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 4>} : <128x32xf16, shared>
// HOST-GEMM: swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 4>} : <32x128xf16, shared>

// SM90-GEMM-F32: swizzle = #tile.swizzle<vec = 4, per_phase = 1, max_phase = 8>} : <64x32xf32, shared>
// On a TMA target a tile filled from global memory takes the hardware atom:
// 256-byte rows as two 128-byte column blocks.
// SM90-GEMM-F32: swizzle = #tile.swizzle<vec = 4, per_phase = 1, max_phase = 8, block_cols = 32>} : <32x64xf32, shared>

// GFX942-GEMM-F32: swizzle = #tile.swizzle<vec = 4, per_phase = 1, max_phase = 8>} : <64x32xf32, shared>
// GFX942-GEMM-F32: swizzle = #tile.swizzle<vec = 4, per_phase = 1, max_phase = 8>} : <32x64xf32, shared>

// HOST-GEMM-F32: swizzle = #tile.swizzle<vec = 4, per_phase = 1, max_phase = 4>} : <64x32xf32, shared>
// HOST-GEMM-F32: swizzle = #tile.swizzle<vec = 4, per_phase = 1, max_phase = 4>} : <32x64xf32, shared>

// SM90-GEMM-RELU: swizzle = #tile.swizzle<vec = 8, per_phase = 2, max_phase = 4>} : <128x32xf16, shared>
// SM90-GEMM-RELU: swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8, block_cols = 64>} : <32x128xf16, shared>

// GFX942-GEMM-RELU: swizzle = #tile.swizzle<vec = 8, per_phase = 2, max_phase = 4>} : <128x32xf16, shared>
// GFX942-GEMM-RELU: swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8>} : <32x128xf16, shared>

// HOST-GEMM-RELU: swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 4>} : <128x32xf16, shared>
// HOST-GEMM-RELU: swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 4>} : <32x128xf16, shared>

// SM90-RMSNORM-NOT: tile.async_copy
// SM90-RMSNORM: tile.kernel

// GFX942-RMSNORM-NOT: tile.async_copy
// GFX942-RMSNORM: tile.kernel

// HOST-RMSNORM-NOT: tile.async_copy
// HOST-RMSNORM: tile.kernel

// SM90-SOFTMAX-NOT: tile.async_copy
// SM90-SOFTMAX: tile.kernel

// GFX942-SOFTMAX-NOT: tile.async_copy
// GFX942-SOFTMAX: tile.kernel

// HOST-SOFTMAX-NOT: tile.async_copy
// HOST-SOFTMAX: tile.kernel
