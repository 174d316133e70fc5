// The kernel zoo (examples/zoo): every kernel parses, verifies and prints
// back to the same text (custom and generic forms), and goes through the
// whole core pipeline for sm_90a and sm_80 (layouts, swizzles, pipelining,
// shared-memory plan within the chip's budgets). The checks pin the shared
// memory each kernel plans and the MMA atom each GEMM gets on each chip
// ("fma": the target description has no matrix instruction for those
// types: f32, and fp8 before sm_89).

// (TESSERA_WIDEN=0 on sm_90a: the blocks as the program wrote them; merged
// blocks are tested in passes/widen_blocks.mlir. GQA's key blocks are
// deepened to 128 by tessera-deepen-keys, passes/deepen_keys.mlir: 224 KiB
// of shared memory, S by m64n128; d256 cross's 32-key blocks go to 64.)
// RUN: %tessera-opt %examples/zoo/attn_decode_combine.mlir -o %t.attn_decode_combine.1.mlir
// RUN: %tessera-opt %t.attn_decode_combine.1.mlir -o %t.attn_decode_combine.2.mlir
// RUN: diff %t.attn_decode_combine.1.mlir %t.attn_decode_combine.2.mlir
// RUN: %tessera-opt %t.attn_decode_combine.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.attn_decode_combine.3.mlir
// RUN: diff %t.attn_decode_combine.1.mlir %t.attn_decode_combine.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/attn_decode_combine.mlir | FileCheck %s --check-prefix=SM90-ATTN-DECODE-COMBINE
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/attn_decode_combine.mlir | FileCheck %s --check-prefix=SM80-ATTN-DECODE-COMBINE
// RUN: %tessera-opt %examples/zoo/attn_decode_splitkv_d128.mlir -o %t.attn_decode_splitkv_d128.1.mlir
// RUN: %tessera-opt %t.attn_decode_splitkv_d128.1.mlir -o %t.attn_decode_splitkv_d128.2.mlir
// RUN: diff %t.attn_decode_splitkv_d128.1.mlir %t.attn_decode_splitkv_d128.2.mlir
// RUN: %tessera-opt %t.attn_decode_splitkv_d128.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.attn_decode_splitkv_d128.3.mlir
// RUN: diff %t.attn_decode_splitkv_d128.1.mlir %t.attn_decode_splitkv_d128.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/attn_decode_splitkv_d128.mlir | FileCheck %s --check-prefix=SM90-ATTN-DECODE-SPLITKV-D128
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/attn_decode_splitkv_d128.mlir | FileCheck %s --check-prefix=SM80-ATTN-DECODE-SPLITKV-D128
// RUN: %tessera-opt %examples/zoo/attn_fwd_d256_cross_f16.mlir -o %t.attn_fwd_d256_cross_f16.1.mlir
// RUN: %tessera-opt %t.attn_fwd_d256_cross_f16.1.mlir -o %t.attn_fwd_d256_cross_f16.2.mlir
// RUN: diff %t.attn_fwd_d256_cross_f16.1.mlir %t.attn_fwd_d256_cross_f16.2.mlir
// RUN: %tessera-opt %t.attn_fwd_d256_cross_f16.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.attn_fwd_d256_cross_f16.3.mlir
// RUN: diff %t.attn_fwd_d256_cross_f16.1.mlir %t.attn_fwd_d256_cross_f16.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/attn_fwd_d256_cross_f16.mlir | FileCheck %s --check-prefix=SM90-ATTN-FWD-D256-CROSS-F16
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/attn_fwd_d256_cross_f16.mlir | FileCheck %s --check-prefix=SM80-ATTN-FWD-D256-CROSS-F16
// RUN: %tessera-opt %examples/zoo/attn_fwd_d256_q128_f16.mlir -o %t.attn_fwd_d256_q128_f16.1.mlir
// RUN: %tessera-opt %t.attn_fwd_d256_q128_f16.1.mlir -o %t.attn_fwd_d256_q128_f16.2.mlir
// RUN: diff %t.attn_fwd_d256_q128_f16.1.mlir %t.attn_fwd_d256_q128_f16.2.mlir
// RUN: %tessera-opt %t.attn_fwd_d256_q128_f16.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.attn_fwd_d256_q128_f16.3.mlir
// RUN: diff %t.attn_fwd_d256_q128_f16.1.mlir %t.attn_fwd_d256_q128_f16.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/attn_fwd_d256_q128_f16.mlir | FileCheck %s --check-prefix=SM90-ATTN-FWD-D256-Q128-F16
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/attn_fwd_d256_q128_f16.mlir | FileCheck %s --check-prefix=SM80-ATTN-FWD-D256-Q128-F16
// RUN: %tessera-opt %examples/zoo/attn_fwd_d64_causal_bf16.mlir -o %t.attn_fwd_d64_causal_bf16.1.mlir
// RUN: %tessera-opt %t.attn_fwd_d64_causal_bf16.1.mlir -o %t.attn_fwd_d64_causal_bf16.2.mlir
// RUN: diff %t.attn_fwd_d64_causal_bf16.1.mlir %t.attn_fwd_d64_causal_bf16.2.mlir
// RUN: %tessera-opt %t.attn_fwd_d64_causal_bf16.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.attn_fwd_d64_causal_bf16.3.mlir
// RUN: diff %t.attn_fwd_d64_causal_bf16.1.mlir %t.attn_fwd_d64_causal_bf16.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/attn_fwd_d64_causal_bf16.mlir | FileCheck %s --check-prefix=SM90-ATTN-FWD-D64-CAUSAL-BF16
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/attn_fwd_d64_causal_bf16.mlir | FileCheck %s --check-prefix=SM80-ATTN-FWD-D64-CAUSAL-BF16
// RUN: %tessera-opt %examples/zoo/attn_gqa_d128_causal.mlir -o %t.attn_gqa_d128_causal.1.mlir
// RUN: %tessera-opt %t.attn_gqa_d128_causal.1.mlir -o %t.attn_gqa_d128_causal.2.mlir
// RUN: diff %t.attn_gqa_d128_causal.1.mlir %t.attn_gqa_d128_causal.2.mlir
// RUN: %tessera-opt %t.attn_gqa_d128_causal.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.attn_gqa_d128_causal.3.mlir
// RUN: diff %t.attn_gqa_d128_causal.1.mlir %t.attn_gqa_d128_causal.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/attn_gqa_d128_causal.mlir | FileCheck %s --check-prefix=SM90-ATTN-GQA-D128-CAUSAL
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/attn_gqa_d128_causal.mlir | FileCheck %s --check-prefix=SM80-ATTN-GQA-D128-CAUSAL
// RUN: %tessera-opt %examples/zoo/attn_mqa_d64_bf16.mlir -o %t.attn_mqa_d64_bf16.1.mlir
// RUN: %tessera-opt %t.attn_mqa_d64_bf16.1.mlir -o %t.attn_mqa_d64_bf16.2.mlir
// RUN: diff %t.attn_mqa_d64_bf16.1.mlir %t.attn_mqa_d64_bf16.2.mlir
// RUN: %tessera-opt %t.attn_mqa_d64_bf16.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.attn_mqa_d64_bf16.3.mlir
// RUN: diff %t.attn_mqa_d64_bf16.1.mlir %t.attn_mqa_d64_bf16.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/attn_mqa_d64_bf16.mlir | FileCheck %s --check-prefix=SM90-ATTN-MQA-D64-BF16
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/attn_mqa_d64_bf16.mlir | FileCheck %s --check-prefix=SM80-ATTN-MQA-D64-BF16
// RUN: %tessera-opt %examples/zoo/attn_prefill_prefix_causal_d128.mlir -o %t.attn_prefill_prefix_causal_d128.1.mlir
// RUN: %tessera-opt %t.attn_prefill_prefix_causal_d128.1.mlir -o %t.attn_prefill_prefix_causal_d128.2.mlir
// RUN: diff %t.attn_prefill_prefix_causal_d128.1.mlir %t.attn_prefill_prefix_causal_d128.2.mlir
// RUN: %tessera-opt %t.attn_prefill_prefix_causal_d128.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.attn_prefill_prefix_causal_d128.3.mlir
// RUN: diff %t.attn_prefill_prefix_causal_d128.1.mlir %t.attn_prefill_prefix_causal_d128.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/attn_prefill_prefix_causal_d128.mlir | FileCheck %s --check-prefix=SM90-ATTN-PREFILL-PREFIX-CAUSAL-D128
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/attn_prefill_prefix_causal_d128.mlir | FileCheck %s --check-prefix=SM80-ATTN-PREFILL-PREFIX-CAUSAL-D128
// RUN: %tessera-opt %examples/zoo/attn_sliding_window_d64.mlir -o %t.attn_sliding_window_d64.1.mlir
// RUN: %tessera-opt %t.attn_sliding_window_d64.1.mlir -o %t.attn_sliding_window_d64.2.mlir
// RUN: diff %t.attn_sliding_window_d64.1.mlir %t.attn_sliding_window_d64.2.mlir
// RUN: %tessera-opt %t.attn_sliding_window_d64.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.attn_sliding_window_d64.3.mlir
// RUN: diff %t.attn_sliding_window_d64.1.mlir %t.attn_sliding_window_d64.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/attn_sliding_window_d64.mlir | FileCheck %s --check-prefix=SM90-ATTN-SLIDING-WINDOW-D64
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/attn_sliding_window_d64.mlir | FileCheck %s --check-prefix=SM80-ATTN-SLIDING-WINDOW-D64
// RUN: %tessera-opt %examples/zoo/gemm_batched_bf16.mlir -o %t.gemm_batched_bf16.1.mlir
// RUN: %tessera-opt %t.gemm_batched_bf16.1.mlir -o %t.gemm_batched_bf16.2.mlir
// RUN: diff %t.gemm_batched_bf16.1.mlir %t.gemm_batched_bf16.2.mlir
// RUN: %tessera-opt %t.gemm_batched_bf16.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.gemm_batched_bf16.3.mlir
// RUN: diff %t.gemm_batched_bf16.1.mlir %t.gemm_batched_bf16.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/gemm_batched_bf16.mlir | FileCheck %s --check-prefix=SM90-GEMM-BATCHED-BF16
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/gemm_batched_bf16.mlir | FileCheck %s --check-prefix=SM80-GEMM-BATCHED-BF16
// RUN: %tessera-opt %examples/zoo/gemm_bf16_128x128_colbias_gelu.mlir -o %t.gemm_bf16_128x128_colbias_gelu.1.mlir
// RUN: %tessera-opt %t.gemm_bf16_128x128_colbias_gelu.1.mlir -o %t.gemm_bf16_128x128_colbias_gelu.2.mlir
// RUN: diff %t.gemm_bf16_128x128_colbias_gelu.1.mlir %t.gemm_bf16_128x128_colbias_gelu.2.mlir
// RUN: %tessera-opt %t.gemm_bf16_128x128_colbias_gelu.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.gemm_bf16_128x128_colbias_gelu.3.mlir
// RUN: diff %t.gemm_bf16_128x128_colbias_gelu.1.mlir %t.gemm_bf16_128x128_colbias_gelu.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/gemm_bf16_128x128_colbias_gelu.mlir | FileCheck %s --check-prefix=SM90-GEMM-BF16-128X128-COLBIAS-GELU
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/gemm_bf16_128x128_colbias_gelu.mlir | FileCheck %s --check-prefix=SM80-GEMM-BF16-128X128-COLBIAS-GELU
// RUN: %tessera-opt %examples/zoo/gemm_bf16_128x256_silu.mlir -o %t.gemm_bf16_128x256_silu.1.mlir
// RUN: %tessera-opt %t.gemm_bf16_128x256_silu.1.mlir -o %t.gemm_bf16_128x256_silu.2.mlir
// RUN: diff %t.gemm_bf16_128x256_silu.1.mlir %t.gemm_bf16_128x256_silu.2.mlir
// RUN: %tessera-opt %t.gemm_bf16_128x256_silu.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.gemm_bf16_128x256_silu.3.mlir
// RUN: diff %t.gemm_bf16_128x256_silu.1.mlir %t.gemm_bf16_128x256_silu.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/gemm_bf16_128x256_silu.mlir | FileCheck %s --check-prefix=SM90-GEMM-BF16-128X256-SILU
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/gemm_bf16_128x256_silu.mlir | FileCheck %s --check-prefix=SM80-GEMM-BF16-128X256-SILU
// RUN: %tessera-opt %examples/zoo/gemm_bf16_64x64_rowbias.mlir -o %t.gemm_bf16_64x64_rowbias.1.mlir
// RUN: %tessera-opt %t.gemm_bf16_64x64_rowbias.1.mlir -o %t.gemm_bf16_64x64_rowbias.2.mlir
// RUN: diff %t.gemm_bf16_64x64_rowbias.1.mlir %t.gemm_bf16_64x64_rowbias.2.mlir
// RUN: %tessera-opt %t.gemm_bf16_64x64_rowbias.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.gemm_bf16_64x64_rowbias.3.mlir
// RUN: diff %t.gemm_bf16_64x64_rowbias.1.mlir %t.gemm_bf16_64x64_rowbias.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/gemm_bf16_64x64_rowbias.mlir | FileCheck %s --check-prefix=SM90-GEMM-BF16-64X64-ROWBIAS
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/gemm_bf16_64x64_rowbias.mlir | FileCheck %s --check-prefix=SM80-GEMM-BF16-64X64-ROWBIAS
// RUN: %tessera-opt %examples/zoo/gemm_bf16_tt.mlir -o %t.gemm_bf16_tt.1.mlir
// RUN: %tessera-opt %t.gemm_bf16_tt.1.mlir -o %t.gemm_bf16_tt.2.mlir
// RUN: diff %t.gemm_bf16_tt.1.mlir %t.gemm_bf16_tt.2.mlir
// RUN: %tessera-opt %t.gemm_bf16_tt.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.gemm_bf16_tt.3.mlir
// RUN: diff %t.gemm_bf16_tt.1.mlir %t.gemm_bf16_tt.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/gemm_bf16_tt.mlir | FileCheck %s --check-prefix=SM90-GEMM-BF16-TT
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/gemm_bf16_tt.mlir | FileCheck %s --check-prefix=SM80-GEMM-BF16-TT
// RUN: %tessera-opt %examples/zoo/gemm_f16_at_rowscale.mlir -o %t.gemm_f16_at_rowscale.1.mlir
// RUN: %tessera-opt %t.gemm_f16_at_rowscale.1.mlir -o %t.gemm_f16_at_rowscale.2.mlir
// RUN: diff %t.gemm_f16_at_rowscale.1.mlir %t.gemm_f16_at_rowscale.2.mlir
// RUN: %tessera-opt %t.gemm_f16_at_rowscale.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.gemm_f16_at_rowscale.3.mlir
// RUN: diff %t.gemm_f16_at_rowscale.1.mlir %t.gemm_f16_at_rowscale.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/gemm_f16_at_rowscale.mlir | FileCheck %s --check-prefix=SM90-GEMM-F16-AT-ROWSCALE
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/gemm_f16_at_rowscale.mlir | FileCheck %s --check-prefix=SM80-GEMM-F16-AT-ROWSCALE
// RUN: %tessera-opt %examples/zoo/gemm_f32_256x128_colscale.mlir -o %t.gemm_f32_256x128_colscale.1.mlir
// RUN: %tessera-opt %t.gemm_f32_256x128_colscale.1.mlir -o %t.gemm_f32_256x128_colscale.2.mlir
// RUN: diff %t.gemm_f32_256x128_colscale.1.mlir %t.gemm_f32_256x128_colscale.2.mlir
// RUN: %tessera-opt %t.gemm_f32_256x128_colscale.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.gemm_f32_256x128_colscale.3.mlir
// RUN: diff %t.gemm_f32_256x128_colscale.1.mlir %t.gemm_f32_256x128_colscale.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/gemm_f32_256x128_colscale.mlir | FileCheck %s --check-prefix=SM90-GEMM-F32-256X128-COLSCALE
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/gemm_f32_256x128_colscale.mlir | FileCheck %s --check-prefix=SM80-GEMM-F32-256X128-COLSCALE
// RUN: %tessera-opt %examples/zoo/gemm_fp8_128x256_scaled.mlir -o %t.gemm_fp8_128x256_scaled.1.mlir
// RUN: %tessera-opt %t.gemm_fp8_128x256_scaled.1.mlir -o %t.gemm_fp8_128x256_scaled.2.mlir
// RUN: diff %t.gemm_fp8_128x256_scaled.1.mlir %t.gemm_fp8_128x256_scaled.2.mlir
// RUN: %tessera-opt %t.gemm_fp8_128x256_scaled.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.gemm_fp8_128x256_scaled.3.mlir
// RUN: diff %t.gemm_fp8_128x256_scaled.1.mlir %t.gemm_fp8_128x256_scaled.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/gemm_fp8_128x256_scaled.mlir | FileCheck %s --check-prefix=SM90-GEMM-FP8-128X256-SCALED
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/gemm_fp8_128x256_scaled.mlir | FileCheck %s --check-prefix=SM80-GEMM-FP8-128X256-SCALED
// RUN: %tessera-opt %examples/zoo/gemm_fp8_blockscale.mlir -o %t.gemm_fp8_blockscale.1.mlir
// RUN: %tessera-opt %t.gemm_fp8_blockscale.1.mlir -o %t.gemm_fp8_blockscale.2.mlir
// RUN: diff %t.gemm_fp8_blockscale.1.mlir %t.gemm_fp8_blockscale.2.mlir
// RUN: %tessera-opt %t.gemm_fp8_blockscale.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.gemm_fp8_blockscale.3.mlir
// RUN: diff %t.gemm_fp8_blockscale.1.mlir %t.gemm_fp8_blockscale.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/gemm_fp8_blockscale.mlir | FileCheck %s --check-prefix=SM90-GEMM-FP8-BLOCKSCALE
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/gemm_fp8_blockscale.mlir | FileCheck %s --check-prefix=SM80-GEMM-FP8-BLOCKSCALE
// RUN: %tessera-opt %examples/zoo/gemm_i8_i32.mlir -o %t.gemm_i8_i32.1.mlir
// RUN: %tessera-opt %t.gemm_i8_i32.1.mlir -o %t.gemm_i8_i32.2.mlir
// RUN: diff %t.gemm_i8_i32.1.mlir %t.gemm_i8_i32.2.mlir
// RUN: %tessera-opt %t.gemm_i8_i32.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.gemm_i8_i32.3.mlir
// RUN: diff %t.gemm_i8_i32.1.mlir %t.gemm_i8_i32.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/gemm_i8_i32.mlir | FileCheck %s --check-prefix=SM90-GEMM-I8-I32
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/gemm_i8_i32.mlir | FileCheck %s --check-prefix=SM80-GEMM-I8-I32
// RUN: %tessera-opt %examples/zoo/gemm_splitk_f32.mlir -o %t.gemm_splitk_f32.1.mlir
// RUN: %tessera-opt %t.gemm_splitk_f32.1.mlir -o %t.gemm_splitk_f32.2.mlir
// RUN: diff %t.gemm_splitk_f32.1.mlir %t.gemm_splitk_f32.2.mlir
// RUN: %tessera-opt %t.gemm_splitk_f32.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.gemm_splitk_f32.3.mlir
// RUN: diff %t.gemm_splitk_f32.1.mlir %t.gemm_splitk_f32.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/gemm_splitk_f32.mlir | FileCheck %s --check-prefix=SM90-GEMM-SPLITK-F32
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/gemm_splitk_f32.mlir | FileCheck %s --check-prefix=SM80-GEMM-SPLITK-F32
// RUN: %tessera-opt %examples/zoo/layernorm_f32_16k.mlir -o %t.layernorm_f32_16k.1.mlir
// RUN: %tessera-opt %t.layernorm_f32_16k.1.mlir -o %t.layernorm_f32_16k.2.mlir
// RUN: diff %t.layernorm_f32_16k.1.mlir %t.layernorm_f32_16k.2.mlir
// RUN: %tessera-opt %t.layernorm_f32_16k.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.layernorm_f32_16k.3.mlir
// RUN: diff %t.layernorm_f32_16k.1.mlir %t.layernorm_f32_16k.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/layernorm_f32_16k.mlir | FileCheck %s --check-prefix=SM90-LAYERNORM-F32-16K
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/layernorm_f32_16k.mlir | FileCheck %s --check-prefix=SM80-LAYERNORM-F32-16K
// RUN: %tessera-opt %examples/zoo/linear_f32_nt.mlir -o %t.linear_f32_nt.1.mlir
// RUN: %tessera-opt %t.linear_f32_nt.1.mlir -o %t.linear_f32_nt.2.mlir
// RUN: diff %t.linear_f32_nt.1.mlir %t.linear_f32_nt.2.mlir
// RUN: %tessera-opt %t.linear_f32_nt.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.linear_f32_nt.3.mlir
// RUN: diff %t.linear_f32_nt.1.mlir %t.linear_f32_nt.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/linear_f32_nt.mlir | FileCheck %s --check-prefix=SM90-LINEAR-F32-NT
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/linear_f32_nt.mlir | FileCheck %s --check-prefix=SM80-LINEAR-F32-NT
// RUN: %tessera-opt %examples/zoo/mlp_b2b_bf16.mlir -o %t.mlp_b2b_bf16.1.mlir
// RUN: %tessera-opt %t.mlp_b2b_bf16.1.mlir -o %t.mlp_b2b_bf16.2.mlir
// RUN: diff %t.mlp_b2b_bf16.1.mlir %t.mlp_b2b_bf16.2.mlir
// RUN: %tessera-opt %t.mlp_b2b_bf16.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.mlp_b2b_bf16.3.mlir
// RUN: diff %t.mlp_b2b_bf16.1.mlir %t.mlp_b2b_bf16.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/mlp_b2b_bf16.mlir | FileCheck %s --check-prefix=SM90-MLP-B2B-BF16
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/mlp_b2b_bf16.mlir | FileCheck %s --check-prefix=SM80-MLP-B2B-BF16
// RUN: %tessera-opt %examples/zoo/moe_topk_gating.mlir -o %t.moe_topk_gating.1.mlir
// RUN: %tessera-opt %t.moe_topk_gating.1.mlir -o %t.moe_topk_gating.2.mlir
// RUN: diff %t.moe_topk_gating.1.mlir %t.moe_topk_gating.2.mlir
// RUN: %tessera-opt %t.moe_topk_gating.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.moe_topk_gating.3.mlir
// RUN: diff %t.moe_topk_gating.1.mlir %t.moe_topk_gating.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/moe_topk_gating.mlir | FileCheck %s --check-prefix=SM90-MOE-TOPK-GATING
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/moe_topk_gating.mlir | FileCheck %s --check-prefix=SM80-MOE-TOPK-GATING
// RUN: %tessera-opt %examples/zoo/moe_topk_softmax_logits.mlir -o %t.moe_topk_softmax_logits.1.mlir
// RUN: %tessera-opt %t.moe_topk_softmax_logits.1.mlir -o %t.moe_topk_softmax_logits.2.mlir
// RUN: diff %t.moe_topk_softmax_logits.1.mlir %t.moe_topk_softmax_logits.2.mlir
// RUN: %tessera-opt %t.moe_topk_softmax_logits.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.moe_topk_softmax_logits.3.mlir
// RUN: diff %t.moe_topk_softmax_logits.1.mlir %t.moe_topk_softmax_logits.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/moe_topk_softmax_logits.mlir | FileCheck %s --check-prefix=SM90-MOE-TOPK-SOFTMAX-LOGITS
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/moe_topk_softmax_logits.mlir | FileCheck %s --check-prefix=SM80-MOE-TOPK-SOFTMAX-LOGITS
// RUN: %tessera-opt %examples/zoo/rmsnorm_f16_16k.mlir -o %t.rmsnorm_f16_16k.1.mlir
// RUN: %tessera-opt %t.rmsnorm_f16_16k.1.mlir -o %t.rmsnorm_f16_16k.2.mlir
// RUN: diff %t.rmsnorm_f16_16k.1.mlir %t.rmsnorm_f16_16k.2.mlir
// RUN: %tessera-opt %t.rmsnorm_f16_16k.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.rmsnorm_f16_16k.3.mlir
// RUN: diff %t.rmsnorm_f16_16k.1.mlir %t.rmsnorm_f16_16k.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/rmsnorm_f16_16k.mlir | FileCheck %s --check-prefix=SM90-RMSNORM-F16-16K
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/rmsnorm_f16_16k.mlir | FileCheck %s --check-prefix=SM80-RMSNORM-F16-16K
// RUN: %tessera-opt %examples/zoo/softmax_bf16_16k.mlir -o %t.softmax_bf16_16k.1.mlir
// RUN: %tessera-opt %t.softmax_bf16_16k.1.mlir -o %t.softmax_bf16_16k.2.mlir
// RUN: diff %t.softmax_bf16_16k.1.mlir %t.softmax_bf16_16k.2.mlir
// RUN: %tessera-opt %t.softmax_bf16_16k.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.softmax_bf16_16k.3.mlir
// RUN: diff %t.softmax_bf16_16k.1.mlir %t.softmax_bf16_16k.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/softmax_bf16_16k.mlir | FileCheck %s --check-prefix=SM90-SOFTMAX-BF16-16K
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/softmax_bf16_16k.mlir | FileCheck %s --check-prefix=SM80-SOFTMAX-BF16-16K
// RUN: %tessera-opt %examples/zoo/swiglu_fp8_quant.mlir -o %t.swiglu_fp8_quant.1.mlir
// RUN: %tessera-opt %t.swiglu_fp8_quant.1.mlir -o %t.swiglu_fp8_quant.2.mlir
// RUN: diff %t.swiglu_fp8_quant.1.mlir %t.swiglu_fp8_quant.2.mlir
// RUN: %tessera-opt %t.swiglu_fp8_quant.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.swiglu_fp8_quant.3.mlir
// RUN: diff %t.swiglu_fp8_quant.1.mlir %t.swiglu_fp8_quant.3.mlir
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/swiglu_fp8_quant.mlir | FileCheck %s --check-prefix=SM90-SWIGLU-FP8-QUANT
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/zoo/swiglu_fp8_quant.mlir | FileCheck %s --check-prefix=SM80-SWIGLU-FP8-QUANT

// SM90-ATTN-DECODE-COMBINE-LABEL: tile.func @attn_decode_combine(
// SM90-ATTN-DECODE-COMBINE: tile.kernel {{.*}}tile.shared_bytes = 0 :
// SM80-ATTN-DECODE-COMBINE-LABEL: tile.func @attn_decode_combine(
// SM80-ATTN-DECODE-COMBINE: tile.kernel {{.*}}tile.shared_bytes = 0 :

// SM90-ATTN-DECODE-SPLITKV-D128-LABEL: tile.func @attn_decode_splitkv_d128(
// SM90-ATTN-DECODE-SPLITKV-D128: tile.kernel {{.*}}tile.shared_bytes = 69632 :
// SM90-ATTN-DECODE-SPLITKV-D128: tile.gemm {{.*}}atom = "mma_m16n8k16_f16_f32"
// SM90-ATTN-DECODE-SPLITKV-D128: tile.gemm {{.*}}atom = "mma_m16n8k16_f16_f32"
// SM80-ATTN-DECODE-SPLITKV-D128-LABEL: tile.func @attn_decode_splitkv_d128(
// SM80-ATTN-DECODE-SPLITKV-D128: tile.kernel {{.*}}tile.shared_bytes = 69632 :
// SM80-ATTN-DECODE-SPLITKV-D128: tile.gemm {{.*}}atom = "mma_m16n8k16_f16_f32"
// SM80-ATTN-DECODE-SPLITKV-D128: tile.gemm {{.*}}atom = "mma_m16n8k16_f16_f32"

// SM90-ATTN-FWD-D256-CROSS-F16-LABEL: tile.func @attn_fwd_d256_cross_f16(
// SM90-ATTN-FWD-D256-CROSS-F16: tile.kernel {{.*}}tile.shared_bytes = 163840 :
// SM90-ATTN-FWD-D256-CROSS-F16: tile.gemm {{.*}}atom = "mma_m16n8k16_f16_f32"
// SM90-ATTN-FWD-D256-CROSS-F16: tile.gemm {{.*}}atom = "wgmma_m64n128k16_f16_f32_rs"
// SM80-ATTN-FWD-D256-CROSS-F16-LABEL: tile.func @attn_fwd_d256_cross_f16(
// SM80-ATTN-FWD-D256-CROSS-F16: tile.kernel {{.*}}tile.shared_bytes = 98304 :
// SM80-ATTN-FWD-D256-CROSS-F16: tile.gemm {{.*}}atom = "mma_m16n8k16_f16_f32"
// SM80-ATTN-FWD-D256-CROSS-F16: tile.gemm {{.*}}atom = "mma_m16n8k16_f16_f32"

// SM90-ATTN-FWD-D256-Q128-F16-LABEL: tile.func @attn_fwd_d256_q128_f16(
// SM90-ATTN-FWD-D256-Q128-F16: tile.kernel {{.*}}tile.shared_bytes = 196608 :
// SM90-ATTN-FWD-D256-Q128-F16: tile.gemm {{.*}}atom = "wgmma_m64n64k16_f16_f32"
// SM90-ATTN-FWD-D256-Q128-F16: tile.gemm {{.*}}atom = "wgmma_m64n256k16_f16_f32_rs"
// SM80-ATTN-FWD-D256-Q128-F16-LABEL: tile.func @attn_fwd_d256_q128_f16(
// SM80-ATTN-FWD-D256-Q128-F16: tile.kernel {{.*}}tile.shared_bytes = 131072 :
// SM80-ATTN-FWD-D256-Q128-F16: tile.gemm {{.*}}atom = "mma_m16n8k16_f16_f32"
// SM80-ATTN-FWD-D256-Q128-F16: tile.gemm {{.*}}atom = "mma_m16n8k16_f16_f32"

// SM90-ATTN-FWD-D64-CAUSAL-BF16-LABEL: tile.func @attn_fwd_d64_causal_bf16(
// SM90-ATTN-FWD-D64-CAUSAL-BF16: tile.kernel {{.*}}tile.shared_bytes = 81920 :
// SM90-ATTN-FWD-D64-CAUSAL-BF16: tile.gemm {{.*}}atom = "wgmma_m64n64k16_bf16_f32"
// SM90-ATTN-FWD-D64-CAUSAL-BF16: tile.gemm {{.*}}atom = "wgmma_m64n64k16_bf16_f32_rs"
// SM80-ATTN-FWD-D64-CAUSAL-BF16-LABEL: tile.func @attn_fwd_d64_causal_bf16(
// SM80-ATTN-FWD-D64-CAUSAL-BF16: tile.kernel {{.*}}tile.shared_bytes = 49152 :
// SM80-ATTN-FWD-D64-CAUSAL-BF16: tile.gemm {{.*}}atom = "mma_m16n8k16_bf16_f32"
// SM80-ATTN-FWD-D64-CAUSAL-BF16: tile.gemm {{.*}}atom = "mma_m16n8k16_bf16_f32"

// SM90-ATTN-GQA-D128-CAUSAL-LABEL: tile.func @attn_gqa_d128_causal(
// SM90-ATTN-GQA-D128-CAUSAL: tile.kernel {{.*}}tile.persistent, tile.shared_bytes = 163840 :
// SM90-ATTN-GQA-D128-CAUSAL: tile.gemm {{.*}}atom = "wgmma_m64n128k16_f16_f32"
// SM90-ATTN-GQA-D128-CAUSAL: tile.gemm {{.*}}atom = "wgmma_m64n128k16_f16_f32_rs"
// SM80-ATTN-GQA-D128-CAUSAL-LABEL: tile.func @attn_gqa_d128_causal(
// SM80-ATTN-GQA-D128-CAUSAL: tile.kernel {{.*}}tile.shared_bytes = 98304 :
// SM80-ATTN-GQA-D128-CAUSAL: tile.gemm {{.*}}atom = "mma_m16n8k16_f16_f32"
// SM80-ATTN-GQA-D128-CAUSAL: tile.gemm {{.*}}atom = "mma_m16n8k16_f16_f32"

// SM90-ATTN-MQA-D64-BF16-LABEL: tile.func @attn_mqa_d64_bf16(
// SM90-ATTN-MQA-D64-BF16: tile.kernel {{.*}}tile.shared_bytes = 57344 :
// SM90-ATTN-MQA-D64-BF16: tile.gemm {{.*}}atom = "wgmma_m64n64k16_bf16_f32"
// SM90-ATTN-MQA-D64-BF16: tile.gemm {{.*}}atom = "wgmma_m64n64k16_bf16_f32_rs"
// SM80-ATTN-MQA-D64-BF16-LABEL: tile.func @attn_mqa_d64_bf16(
// SM80-ATTN-MQA-D64-BF16: tile.kernel {{.*}}tile.shared_bytes = 57344 :
// SM80-ATTN-MQA-D64-BF16: tile.gemm {{.*}}atom = "mma_m16n8k16_bf16_f32"
// SM80-ATTN-MQA-D64-BF16: tile.gemm {{.*}}atom = "mma_m16n8k16_bf16_f32"

// SM90-ATTN-PREFILL-PREFIX-CAUSAL-D128-LABEL: tile.func @attn_prefill_prefix_causal_d128(
// SM90-ATTN-PREFILL-PREFIX-CAUSAL-D128: tile.kernel {{.*}}tile.shared_bytes = 81920 :
// SM90-ATTN-PREFILL-PREFIX-CAUSAL-D128: tile.gemm {{.*}}atom = "wgmma_m64n64k16_f16_f32"
// SM90-ATTN-PREFILL-PREFIX-CAUSAL-D128: tile.gemm {{.*}}atom = "wgmma_m64n128k16_f16_f32_rs"
// SM80-ATTN-PREFILL-PREFIX-CAUSAL-D128-LABEL: tile.func @attn_prefill_prefix_causal_d128(
// SM80-ATTN-PREFILL-PREFIX-CAUSAL-D128: tile.kernel {{.*}}tile.shared_bytes = 81920 :
// SM80-ATTN-PREFILL-PREFIX-CAUSAL-D128: tile.gemm {{.*}}atom = "mma_m16n8k16_f16_f32"
// SM80-ATTN-PREFILL-PREFIX-CAUSAL-D128: tile.gemm {{.*}}atom = "mma_m16n8k16_f16_f32"

// SM90-ATTN-SLIDING-WINDOW-D64-LABEL: tile.func @attn_sliding_window_d64(
// SM90-ATTN-SLIDING-WINDOW-D64: tile.kernel {{.*}}tile.shared_bytes = 40960 :
// SM90-ATTN-SLIDING-WINDOW-D64: tile.gemm {{.*}}atom = "wgmma_m64n64k16_f16_f32"
// SM90-ATTN-SLIDING-WINDOW-D64: tile.gemm {{.*}}atom = "wgmma_m64n64k16_f16_f32_rs"
// SM80-ATTN-SLIDING-WINDOW-D64-LABEL: tile.func @attn_sliding_window_d64(
// SM80-ATTN-SLIDING-WINDOW-D64: tile.kernel {{.*}}tile.shared_bytes = 40960 :
// SM80-ATTN-SLIDING-WINDOW-D64: tile.gemm {{.*}}atom = "mma_m16n8k16_f16_f32"
// SM80-ATTN-SLIDING-WINDOW-D64: tile.gemm {{.*}}atom = "mma_m16n8k16_f16_f32"

// SM90-GEMM-BATCHED-BF16-LABEL: tile.func @gemm_batched_bf16(
// SM90-GEMM-BATCHED-BF16: tile.kernel {{.*}}tile.shared_bytes = 98304 :
// SM90-GEMM-BATCHED-BF16: tile.gemm {{.*}}atom = "wgmma_m64n128k16_bf16_f32"
// SM80-GEMM-BATCHED-BF16-LABEL: tile.func @gemm_batched_bf16(
// SM80-GEMM-BATCHED-BF16: tile.kernel {{.*}}tile.shared_bytes = 98304 :
// SM80-GEMM-BATCHED-BF16: tile.gemm {{.*}}atom = "mma_m16n8k16_bf16_f32"

// SM90-GEMM-BF16-128X128-COLBIAS-GELU-LABEL: tile.func @gemm_bf16_128x128_colbias_gelu(
// SM90-GEMM-BF16-128X128-COLBIAS-GELU: tile.kernel {{.*}}tile.shared_bytes = 98304 :
// SM90-GEMM-BF16-128X128-COLBIAS-GELU: tile.gemm {{.*}}atom = "wgmma_m64n128k16_bf16_f32"
// SM80-GEMM-BF16-128X128-COLBIAS-GELU-LABEL: tile.func @gemm_bf16_128x128_colbias_gelu(
// SM80-GEMM-BF16-128X128-COLBIAS-GELU: tile.kernel {{.*}}tile.shared_bytes = 98304 :
// SM80-GEMM-BF16-128X128-COLBIAS-GELU: tile.gemm {{.*}}atom = "mma_m16n8k16_bf16_f32"

// SM90-GEMM-BF16-128X256-SILU-LABEL: tile.func @gemm_bf16_128x256_silu(
// SM90-GEMM-BF16-128X256-SILU: tile.kernel {{.*}}tile.shared_bytes = 98304 :
// SM90-GEMM-BF16-128X256-SILU: tile.gemm {{.*}}atom = "wgmma_m64n256k16_bf16_f32"
// SM80-GEMM-BF16-128X256-SILU-LABEL: tile.func @gemm_bf16_128x256_silu(
// SM80-GEMM-BF16-128X256-SILU: tile.kernel {{.*}}tile.shared_bytes = 147456 :
// SM80-GEMM-BF16-128X256-SILU: tile.gemm {{.*}}atom = "mma_m16n8k16_bf16_f32"

// SM90-GEMM-BF16-64X64-ROWBIAS-LABEL: tile.func @gemm_bf16_64x64_rowbias(
// SM90-GEMM-BF16-64X64-ROWBIAS: tile.kernel {{.*}}tile.shared_bytes = 98304 :
// SM90-GEMM-BF16-64X64-ROWBIAS: tile.gemm {{.*}}atom = "wgmma_m64n64k16_bf16_f32"
// SM80-GEMM-BF16-64X64-ROWBIAS-LABEL: tile.func @gemm_bf16_64x64_rowbias(
// SM80-GEMM-BF16-64X64-ROWBIAS: tile.kernel {{.*}}tile.shared_bytes = 98304 :
// SM80-GEMM-BF16-64X64-ROWBIAS: tile.gemm {{.*}}atom = "mma_m16n8k16_bf16_f32"

// SM90-GEMM-BF16-TT-LABEL: tile.func @gemm_bf16_tt(
// SM90-GEMM-BF16-TT: tile.kernel {{.*}}tile.shared_bytes = 163840 :
// SM90-GEMM-BF16-TT: tile.gemm {{.*}}atom = "wgmma_m64n128k16_bf16_f32"
// SM80-GEMM-BF16-TT-LABEL: tile.func @gemm_bf16_tt(
// SM80-GEMM-BF16-TT: tile.kernel {{.*}}tile.shared_bytes = 163840 :
// SM80-GEMM-BF16-TT: tile.gemm {{.*}}atom = "mma_m16n8k16_bf16_f32"

// SM90-GEMM-F16-AT-ROWSCALE-LABEL: tile.func @gemm_f16_at_rowscale(
// SM90-GEMM-F16-AT-ROWSCALE: tile.kernel {{.*}}tile.shared_bytes = 65536 :
// SM90-GEMM-F16-AT-ROWSCALE: tile.gemm {{.*}}atom = "wgmma_m64n128k16_f16_f32"
// SM80-GEMM-F16-AT-ROWSCALE-LABEL: tile.func @gemm_f16_at_rowscale(
// SM80-GEMM-F16-AT-ROWSCALE: tile.kernel {{.*}}tile.shared_bytes = 49152 :
// SM80-GEMM-F16-AT-ROWSCALE: tile.gemm {{.*}}atom = "mma_m16n8k16_f16_f32"

// SM90-GEMM-F32-256X128-COLSCALE-LABEL: tile.func @gemm_f32_256x128_colscale(
// SM90-GEMM-F32-256X128-COLSCALE: tile.kernel {{.*}}tile.shared_bytes = 147456 :
// SM90-GEMM-F32-256X128-COLSCALE: tile.gemm {{.*}}atom = "fma"
// SM80-GEMM-F32-256X128-COLSCALE-LABEL: tile.func @gemm_f32_256x128_colscale(
// SM80-GEMM-F32-256X128-COLSCALE: tile.kernel {{.*}}tile.shared_bytes = 147456 :
// SM80-GEMM-F32-256X128-COLSCALE: tile.gemm {{.*}}atom = "fma"

// SM90-GEMM-FP8-128X256-SCALED-LABEL: tile.func @gemm_fp8_128x256_scaled(
// SM90-GEMM-FP8-128X256-SCALED: tile.kernel {{.*}}tile.shared_bytes = 147456 :
// SM90-GEMM-FP8-128X256-SCALED: tile.gemm {{.*}}atom = "wgmma_m64n256k32_f8e4m3_f32"
// SM80-GEMM-FP8-128X256-SCALED-LABEL: tile.func @gemm_fp8_128x256_scaled(
// SM80-GEMM-FP8-128X256-SCALED: tile.kernel {{.*}}tile.shared_bytes = 147456 :
// SM80-GEMM-FP8-128X256-SCALED: tile.gemm {{.*}}atom = "fma"

// SM90-GEMM-FP8-BLOCKSCALE-LABEL: tile.func @gemm_fp8_blockscale(
// (The stages hold the scales too: 4 x (128 x 16 + 128) bytes, docs/passes.md
// "Fragment copies through the stages".)
// SM90-GEMM-FP8-BLOCKSCALE: tile.kernel {{.*}}tile.shared_bytes = 139776 :
// SM90-GEMM-FP8-BLOCKSCALE: tile.gemm {{.*}}transpose_b clear {atom = "wgmma_m64n128k32_f8e4m3_f32", warps = array<i64: 2, 1>}
// SM90-GEMM-FP8-BLOCKSCALE-NOT: tile.convert_layout
// SM80-GEMM-FP8-BLOCKSCALE-LABEL: tile.func @gemm_fp8_blockscale(
// SM80-GEMM-FP8-BLOCKSCALE: tile.kernel {{.*}}tile.shared_bytes = 131072 :
// SM80-GEMM-FP8-BLOCKSCALE: tile.gemm {{.*}}atom = "fma"

// SM90-GEMM-I8-I32-LABEL: tile.func @gemm_i8_i32(
// SM90-GEMM-I8-I32: tile.kernel {{.*}}tile.shared_bytes = 65536 :
// SM90-GEMM-I8-I32: tile.gemm {{.*}}atom = "wgmma_m64n128k32_i8_i32"
// SM80-GEMM-I8-I32-LABEL: tile.func @gemm_i8_i32(
// SM80-GEMM-I8-I32: tile.kernel {{.*}}tile.shared_bytes = 65536 :
// SM80-GEMM-I8-I32: tile.gemm {{.*}}atom = "mma_m16n8k32_i8_i32"

// SM90-GEMM-SPLITK-F32-LABEL: tile.func @gemm_splitk_f32(
// SM90-GEMM-SPLITK-F32: tile.kernel {{.*}}tile.shared_bytes = 98304 :
// SM90-GEMM-SPLITK-F32: tile.gemm {{.*}}atom = "wgmma_m64n128k16_bf16_f32"
// SM80-GEMM-SPLITK-F32-LABEL: tile.func @gemm_splitk_f32(
// SM80-GEMM-SPLITK-F32: tile.kernel {{.*}}tile.shared_bytes = 98304 :
// SM80-GEMM-SPLITK-F32: tile.gemm {{.*}}atom = "mma_m16n8k16_bf16_f32"

// SM90-LAYERNORM-F32-16K-LABEL: tile.func @layernorm_f32_16k(
// SM90-LAYERNORM-F32-16K: tile.kernel {{.*}}tile.shared_bytes = 0 :
// SM80-LAYERNORM-F32-16K-LABEL: tile.func @layernorm_f32_16k(
// SM80-LAYERNORM-F32-16K: tile.kernel {{.*}}tile.shared_bytes = 0 :

// SM90-LINEAR-F32-NT-LABEL: tile.func @linear_f32_nt(
// SM90-LINEAR-F32-NT: tile.kernel {{.*}}tile.shared_bytes = 98304 :
// SM90-LINEAR-F32-NT: tile.gemm {{.*}}atom = "fma"
// SM80-LINEAR-F32-NT-LABEL: tile.func @linear_f32_nt(
// SM80-LINEAR-F32-NT: tile.kernel {{.*}}tile.shared_bytes = 98304 :
// SM80-LINEAR-F32-NT: tile.gemm {{.*}}atom = "fma"

// SM90-MLP-B2B-BF16-LABEL: tile.func @mlp_b2b_bf16(
// SM90-MLP-B2B-BF16: tile.kernel {{.*}}tile.shared_bytes = 81920 :
// SM90-MLP-B2B-BF16: tile.gemm {{.*}}atom = "wgmma_m64n64k16_bf16_f32"
// SM90-MLP-B2B-BF16: tile.gemm {{.*}}atom = "wgmma_m64n128k16_bf16_f32_rs"
// SM80-MLP-B2B-BF16-LABEL: tile.func @mlp_b2b_bf16(
// SM80-MLP-B2B-BF16: tile.kernel {{.*}}tile.shared_bytes = 81920 :
// SM80-MLP-B2B-BF16: tile.gemm {{.*}}atom = "mma_m16n8k16_bf16_f32"
// SM80-MLP-B2B-BF16: tile.gemm {{.*}}atom = "mma_m16n8k16_bf16_f32"

// SM90-MOE-TOPK-GATING-LABEL: tile.func @moe_topk_gating(
// SM90-MOE-TOPK-GATING: tile.kernel {{.*}}tile.shared_bytes = 73728 :
// SM90-MOE-TOPK-GATING: tile.gemm {{.*}}atom = "mma_m16n8k16_bf16_f32"
// SM80-MOE-TOPK-GATING-LABEL: tile.func @moe_topk_gating(
// SM80-MOE-TOPK-GATING: tile.kernel {{.*}}tile.shared_bytes = 73728 :
// SM80-MOE-TOPK-GATING: tile.gemm {{.*}}atom = "mma_m16n8k16_bf16_f32"

// SM90-MOE-TOPK-SOFTMAX-LOGITS-LABEL: tile.func @moe_topk_softmax_logits(
// SM90-MOE-TOPK-SOFTMAX-LOGITS: tile.kernel {{.*}}tile.shared_bytes = 0 :
// SM80-MOE-TOPK-SOFTMAX-LOGITS-LABEL: tile.func @moe_topk_softmax_logits(
// SM80-MOE-TOPK-SOFTMAX-LOGITS: tile.kernel {{.*}}tile.shared_bytes = 0 :

// SM90-RMSNORM-F16-16K-LABEL: tile.func @rmsnorm_f16_16k(
// SM90-RMSNORM-F16-16K: tile.kernel {{.*}}tile.shared_bytes = 0 :
// SM80-RMSNORM-F16-16K-LABEL: tile.func @rmsnorm_f16_16k(
// SM80-RMSNORM-F16-16K: tile.kernel {{.*}}tile.shared_bytes = 0 :

// SM90-SOFTMAX-BF16-16K-LABEL: tile.func @softmax_bf16_16k(
// SM90-SOFTMAX-BF16-16K: tile.kernel {{.*}}tile.shared_bytes = 0 :
// SM80-SOFTMAX-BF16-16K-LABEL: tile.func @softmax_bf16_16k(
// SM80-SOFTMAX-BF16-16K: tile.kernel {{.*}}tile.shared_bytes = 0 :

// SM90-SWIGLU-FP8-QUANT-LABEL: tile.func @swiglu_fp8_quant(
// SM90-SWIGLU-FP8-QUANT: tile.kernel {{.*}}tile.shared_bytes = 0 :
// SM80-SWIGLU-FP8-QUANT-LABEL: tile.func @swiglu_fp8_quant(
// SM80-SWIGLU-FP8-QUANT: tile.kernel {{.*}}tile.shared_bytes = 0 :
