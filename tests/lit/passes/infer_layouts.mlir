// Layout inference: the MMA atom and warp split of every gemm, the warps per
// kernel, conversions and copy vector widths, for every example on three targets.
// Generated decisions were reviewed by hand; each RUN line is one example on one target.

// RUN: %tessera-opt --tessera-infer-layouts=target=sm_90a %examples/elementwise_add.mlir | FileCheck %s --check-prefix=SM90-ELEMENTWISE-ADD
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 %examples/elementwise_add.mlir | FileCheck %s --check-prefix=GFX942-ELEMENTWISE-ADD
// RUN: %tessera-opt --tessera-infer-layouts=target=host %examples/elementwise_add.mlir | FileCheck %s --check-prefix=HOST-ELEMENTWISE-ADD
// RUN: %tessera-opt --tessera-infer-layouts=target=sm_90a %examples/flash_attention_fwd.mlir | FileCheck %s --check-prefix=SM90-FLASH-ATTENTION-FWD
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 %examples/flash_attention_fwd.mlir | FileCheck %s --check-prefix=GFX942-FLASH-ATTENTION-FWD
// RUN: %tessera-opt --tessera-infer-layouts=target=host %examples/flash_attention_fwd.mlir | FileCheck %s --check-prefix=HOST-FLASH-ATTENTION-FWD
// RUN: %tessera-opt --tessera-infer-layouts=target=sm_90a %examples/gemm.mlir | FileCheck %s --check-prefix=SM90-GEMM
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 %examples/gemm.mlir | FileCheck %s --check-prefix=GFX942-GEMM
// RUN: %tessera-opt --tessera-infer-layouts=target=host %examples/gemm.mlir | FileCheck %s --check-prefix=HOST-GEMM
// RUN: %tessera-opt --tessera-infer-layouts=target=sm_90a %examples/gemm_f32.mlir | FileCheck %s --check-prefix=SM90-GEMM-F32
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 %examples/gemm_f32.mlir | FileCheck %s --check-prefix=GFX942-GEMM-F32
// RUN: %tessera-opt --tessera-infer-layouts=target=host %examples/gemm_f32.mlir | FileCheck %s --check-prefix=HOST-GEMM-F32
// RUN: %tessera-opt --tessera-infer-layouts=target=sm_90a %examples/gemm_relu.mlir | FileCheck %s --check-prefix=SM90-GEMM-RELU
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 %examples/gemm_relu.mlir | FileCheck %s --check-prefix=GFX942-GEMM-RELU
// RUN: %tessera-opt --tessera-infer-layouts=target=host %examples/gemm_relu.mlir | FileCheck %s --check-prefix=HOST-GEMM-RELU
// RUN: %tessera-opt --tessera-infer-layouts=target=sm_90a %examples/rmsnorm.mlir | FileCheck %s --check-prefix=SM90-RMSNORM
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 %examples/rmsnorm.mlir | FileCheck %s --check-prefix=GFX942-RMSNORM
// RUN: %tessera-opt --tessera-infer-layouts=target=host %examples/rmsnorm.mlir | FileCheck %s --check-prefix=HOST-RMSNORM
// RUN: %tessera-opt --tessera-infer-layouts=target=sm_90a %examples/softmax.mlir | FileCheck %s --check-prefix=SM90-SOFTMAX
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 %examples/softmax.mlir | FileCheck %s --check-prefix=GFX942-SOFTMAX
// RUN: %tessera-opt --tessera-infer-layouts=target=host %examples/softmax.mlir | FileCheck %s --check-prefix=HOST-SOFTMAX

// SM90-ELEMENTWISE-ADD: tile.warps = 8
// SM90-ELEMENTWISE-ADD: vector_bytes = 16
// SM90-ELEMENTWISE-ADD: vector_bytes = 16
// SM90-ELEMENTWISE-ADD: vector_bytes = 16

// GFX942-ELEMENTWISE-ADD: tile.warps = 4
// GFX942-ELEMENTWISE-ADD: vector_bytes = 16
// GFX942-ELEMENTWISE-ADD: vector_bytes = 16
// GFX942-ELEMENTWISE-ADD: vector_bytes = 16

// HOST-ELEMENTWISE-ADD: tile.warps = 16
// HOST-ELEMENTWISE-ADD: vector_bytes = 16
// HOST-ELEMENTWISE-ADD: vector_bytes = 16
// HOST-ELEMENTWISE-ADD: vector_bytes = 16

// SM90-FLASH-ATTENTION-FWD: tile.warps = 4
// SM90-FLASH-ATTENTION-FWD: vector_bytes = 16
// SM90-FLASH-ATTENTION-FWD: vector_bytes = 16
// SM90-FLASH-ATTENTION-FWD: vector_bytes = 16
// SM90-FLASH-ATTENTION-FWD: atom = "wgmma_m64n64k16_f16_f32", warps = array<i64: 1, 1>
// SM90-FLASH-ATTENTION-FWD: conversion = "none"
// SM90-FLASH-ATTENTION-FWD: conversion = "none"
// SM90-FLASH-ATTENTION-FWD: atom = "wgmma_m64n128k16_f16_f32_rs", warps = array<i64: 1, 1>
// SM90-FLASH-ATTENTION-FWD: vector_bytes = 8

// GFX942-FLASH-ATTENTION-FWD: tile.warps = 2
// GFX942-FLASH-ATTENTION-FWD: vector_bytes = 16
// GFX942-FLASH-ATTENTION-FWD: vector_bytes = 16
// GFX942-FLASH-ATTENTION-FWD: vector_bytes = 16
// GFX942-FLASH-ATTENTION-FWD: atom = "mfma_32x32x8_f16_f32", warps = array<i64: 2, 1>
// GFX942-FLASH-ATTENTION-FWD: conversion = "none"
// GFX942-FLASH-ATTENTION-FWD: conversion = "warp-shuffle"
// GFX942-FLASH-ATTENTION-FWD: atom = "mfma_32x32x8_f16_f32", warps = array<i64: 2, 1>
// GFX942-FLASH-ATTENTION-FWD: vector_bytes = 4

// HOST-FLASH-ATTENTION-FWD: tile.warps = 8
// HOST-FLASH-ATTENTION-FWD: vector_bytes = 64
// HOST-FLASH-ATTENTION-FWD: vector_bytes = 64
// HOST-FLASH-ATTENTION-FWD: vector_bytes = 64
// HOST-FLASH-ATTENTION-FWD: atom = "fma", warps = array<i64: 1, 1>
// HOST-FLASH-ATTENTION-FWD: conversion = "none"
// P V on vector FMA reads P from a shared tile of its own: in registers the
// FMA layout would hold all 64 of P's K per row (more than half the host's
// 32 registers).
// HOST-FLASH-ATTENTION-FWD: conversion = "none"
// HOST-FLASH-ATTENTION-FWD-NEXT: tile.copy %{{.*}}, %{{.*}} : !tile.tile<64x64xf16, fragment, {{.*}}>, !tile.tile<64x64xf16, shared>
// HOST-FLASH-ATTENTION-FWD-NEXT: tile.gemm {{.*}} {atom = "fma", warps = array<i64: 1, 1>} : <64x64xf16, shared>
// HOST-FLASH-ATTENTION-FWD: vector_bytes = 16

// SM90-GEMM: tile.warps = 4
// SM90-GEMM: vector_bytes = 16
// SM90-GEMM: vector_bytes = 16
// SM90-GEMM: atom = "wgmma_m64n128k16_f16_f32", warps = array<i64: 1, 1>
// SM90-GEMM: vector_bytes = 8

// GFX942-GEMM: tile.warps = 2
// GFX942-GEMM: vector_bytes = 16
// GFX942-GEMM: vector_bytes = 16
// GFX942-GEMM: atom = "mfma_32x32x8_f16_f32", warps = array<i64: 2, 1>
// GFX942-GEMM: vector_bytes = 4

// HOST-GEMM: tile.warps = 8
// HOST-GEMM: vector_bytes = 64
// HOST-GEMM: vector_bytes = 64
// HOST-GEMM: atom = "fma", warps = array<i64: 1, 1>
// HOST-GEMM: vector_bytes = 16

// SM90-GEMM-F32: tile.warps = 4
// SM90-GEMM-F32: vector_bytes = 16
// SM90-GEMM-F32: vector_bytes = 16
// SM90-GEMM-F32: atom = "fma", warps = array<i64: 1, 1>
// SM90-GEMM-F32: vector_bytes = 16

// GFX942-GEMM-F32: tile.warps = 2
// GFX942-GEMM-F32: vector_bytes = 16
// GFX942-GEMM-F32: vector_bytes = 16
// GFX942-GEMM-F32: atom = "mfma_32x32x2_f32_f32", warps = array<i64: 2, 1>
// GFX942-GEMM-F32: vector_bytes = 4

// HOST-GEMM-F32: tile.warps = 8
// HOST-GEMM-F32: vector_bytes = 64
// HOST-GEMM-F32: vector_bytes = 64
// HOST-GEMM-F32: atom = "fma_1x16x1_f32_f32", warps = array<i64: 8, 1>
// HOST-GEMM-F32: vector_bytes = 4

// SM90-GEMM-RELU: tile.warps = 4
// SM90-GEMM-RELU: vector_bytes = 16
// SM90-GEMM-RELU: vector_bytes = 16
// SM90-GEMM-RELU: atom = "wgmma_m64n128k16_f16_f32", warps = array<i64: 1, 1>
// SM90-GEMM-RELU: vector_bytes = 8

// GFX942-GEMM-RELU: tile.warps = 2
// GFX942-GEMM-RELU: vector_bytes = 16
// GFX942-GEMM-RELU: vector_bytes = 16
// GFX942-GEMM-RELU: atom = "mfma_32x32x8_f16_f32", warps = array<i64: 2, 1>
// GFX942-GEMM-RELU: vector_bytes = 4

// HOST-GEMM-RELU: tile.warps = 8
// HOST-GEMM-RELU: vector_bytes = 64
// HOST-GEMM-RELU: vector_bytes = 64
// HOST-GEMM-RELU: atom = "fma", warps = array<i64: 1, 1>
// HOST-GEMM-RELU: vector_bytes = 16

// SM90-RMSNORM: tile.warps = 4
// SM90-RMSNORM: vector_bytes = 16
// SM90-RMSNORM: vector_bytes = 16
// SM90-RMSNORM: vector_bytes = 16
// SM90-RMSNORM: vector_bytes = 16

// GFX942-RMSNORM: tile.warps = 2
// GFX942-RMSNORM: vector_bytes = 16
// GFX942-RMSNORM: vector_bytes = 16
// GFX942-RMSNORM: vector_bytes = 16
// GFX942-RMSNORM: vector_bytes = 16

// HOST-RMSNORM: tile.warps = 8
// HOST-RMSNORM: vector_bytes = 64
// HOST-RMSNORM: vector_bytes = 64
// HOST-RMSNORM: vector_bytes = 64
// HOST-RMSNORM: vector_bytes = 64

// SM90-SOFTMAX: tile.warps = 4
// SM90-SOFTMAX: vector_bytes = 16
// SM90-SOFTMAX: conversion = "none"
// SM90-SOFTMAX: vector_bytes = 16
// SM90-SOFTMAX: vector_bytes = 16

// GFX942-SOFTMAX: tile.warps = 2
// GFX942-SOFTMAX: vector_bytes = 16
// GFX942-SOFTMAX: conversion = "none"
// GFX942-SOFTMAX: vector_bytes = 16
// GFX942-SOFTMAX: vector_bytes = 16

// HOST-SOFTMAX: tile.warps = 8
// HOST-SOFTMAX: vector_bytes = 64
// HOST-SOFTMAX: conversion = "none"
// HOST-SOFTMAX: vector_bytes = 64
// HOST-SOFTMAX: vector_bytes = 64
