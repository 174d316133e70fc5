// Shared-memory plan after the whole pipeline: offsets and kernel totals.
// Generated decisions were reviewed by hand; each RUN line is one example on one target.

// (TESSERA_WIDEN=0 on sm_90a: the blocks as the program wrote them; merged
// blocks are tested in passes/widen_blocks.mlir.)
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/elementwise_add.mlir | FileCheck %s --check-prefix=SM90-ELEMENTWISE-ADD
// RUN: %tessera-opt --tessera-pipeline=gfx942 %examples/elementwise_add.mlir | FileCheck %s --check-prefix=GFX942-ELEMENTWISE-ADD
// RUN: %tessera-opt --tessera-pipeline=host %examples/elementwise_add.mlir | FileCheck %s --check-prefix=HOST-ELEMENTWISE-ADD
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/flash_attention_fwd.mlir | FileCheck %s --check-prefix=SM90-FLASH-ATTENTION-FWD
// RUN: %tessera-opt --tessera-pipeline=gfx942 %examples/flash_attention_fwd.mlir | FileCheck %s --check-prefix=GFX942-FLASH-ATTENTION-FWD
// RUN: %tessera-opt --tessera-pipeline=host %examples/flash_attention_fwd.mlir | FileCheck %s --check-prefix=HOST-FLASH-ATTENTION-FWD
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/gemm.mlir | FileCheck %s --check-prefix=SM90-GEMM
// RUN: %tessera-opt --tessera-pipeline=gfx942 %examples/gemm.mlir | FileCheck %s --check-prefix=GFX942-GEMM
// RUN: %tessera-opt --tessera-pipeline=host %examples/gemm.mlir | FileCheck %s --check-prefix=HOST-GEMM
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/gemm_f32.mlir | FileCheck %s --check-prefix=SM90-GEMM-F32
// RUN: %tessera-opt --tessera-pipeline=gfx942 %examples/gemm_f32.mlir | FileCheck %s --check-prefix=GFX942-GEMM-F32
// RUN: %tessera-opt --tessera-pipeline=host %examples/gemm_f32.mlir | FileCheck %s --check-prefix=HOST-GEMM-F32
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/gemm_relu.mlir | FileCheck %s --check-prefix=SM90-GEMM-RELU
// RUN: %tessera-opt --tessera-pipeline=gfx942 %examples/gemm_relu.mlir | FileCheck %s --check-prefix=GFX942-GEMM-RELU
// RUN: %tessera-opt --tessera-pipeline=host %examples/gemm_relu.mlir | FileCheck %s --check-prefix=HOST-GEMM-RELU
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/rmsnorm.mlir | FileCheck %s --check-prefix=SM90-RMSNORM
// RUN: %tessera-opt --tessera-pipeline=gfx942 %examples/rmsnorm.mlir | FileCheck %s --check-prefix=GFX942-RMSNORM
// RUN: %tessera-opt --tessera-pipeline=host %examples/rmsnorm.mlir | FileCheck %s --check-prefix=HOST-RMSNORM
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/softmax.mlir | FileCheck %s --check-prefix=SM90-SOFTMAX
// RUN: %tessera-opt --tessera-pipeline=gfx942 %examples/softmax.mlir | FileCheck %s --check-prefix=GFX942-SOFTMAX
// RUN: %tessera-opt --tessera-pipeline=host %examples/softmax.mlir | FileCheck %s --check-prefix=HOST-SOFTMAX

// SM90-ELEMENTWISE-ADD: tile.shared_bytes = 0

// GFX942-ELEMENTWISE-ADD: tile.shared_bytes = 0

// HOST-ELEMENTWISE-ADD: tile.shared_bytes = 0

// SM90-FLASH-ATTENTION-FWD: tile.shared_bytes = 81920
// SM90-FLASH-ATTENTION-FWD: offset = 65536
// SM90-FLASH-ATTENTION-FWD: offset = 0
// SM90-FLASH-ATTENTION-FWD: offset = 32768

// GFX942-FLASH-ATTENTION-FWD: tile.shared_bytes = 49152
// GFX942-FLASH-ATTENTION-FWD: offset = 0
// GFX942-FLASH-ATTENTION-FWD: offset = 16384
// GFX942-FLASH-ATTENTION-FWD: offset = 32768

// On the host P is staged through a shared tile of its own (64x64 f16 at
// 49152): the vector-FMA layout would hold all of P's K in registers.
// HOST-FLASH-ATTENTION-FWD: tile.shared_bytes = 57344
// HOST-FLASH-ATTENTION-FWD: offset = 0
// HOST-FLASH-ATTENTION-FWD: offset = 16384
// HOST-FLASH-ATTENTION-FWD: offset = 32768
// HOST-FLASH-ATTENTION-FWD: offset = 49152

// SM90-GEMM: tile.shared_bytes = 65536
// SM90-GEMM: offset = 0
// SM90-GEMM: offset = 32768

// GFX942-GEMM: tile.shared_bytes = 32768
// GFX942-GEMM: offset = 0
// GFX942-GEMM: offset = 16384

// HOST-GEMM: tile.shared_bytes = 16384
// HOST-GEMM: offset = 0
// HOST-GEMM: offset = 8192

// SM90-GEMM-F32: tile.shared_bytes = 32768
// SM90-GEMM-F32: offset = 0
// SM90-GEMM-F32: offset = 16384

// GFX942-GEMM-F32: tile.shared_bytes = 32768
// GFX942-GEMM-F32: offset = 0
// GFX942-GEMM-F32: offset = 16384

// HOST-GEMM-F32: tile.shared_bytes = 16384
// HOST-GEMM-F32: offset = 0
// HOST-GEMM-F32: offset = 8192

// SM90-GEMM-RELU: tile.shared_bytes = 65536
// SM90-GEMM-RELU: offset = 0
// SM90-GEMM-RELU: offset = 32768

// GFX942-GEMM-RELU: tile.shared_bytes = 32768
// GFX942-GEMM-RELU: offset = 0
// GFX942-GEMM-RELU: offset = 16384

// HOST-GEMM-RELU: tile.shared_bytes = 16384
// HOST-GEMM-RELU: offset = 0
// HOST-GEMM-RELU: offset = 8192

// SM90-RMSNORM: tile.shared_bytes = 0

// GFX942-RMSNORM: tile.shared_bytes = 0

// HOST-RMSNORM: tile.shared_bytes = 0

// SM90-SOFTMAX: tile.shared_bytes = 0

// GFX942-SOFTMAX: tile.shared_bytes = 0

// HOST-SOFTMAX: tile.shared_bytes = 0
