// Two blocks per SM where the fragments fit in half the registers: the
// 256-thread 128x128 GEMM with a GELU epilogue asks ptxas for
// .minnctapersm 2 (a 128-register cap) and fits without spilling (its
// epilogue's copies take the unchecked path for interior tiles, so no edge
// indices stay live). A kernel that spills under the cap (head dim 256
// attention) is compiled again without it: no kernel spills.
// REQUIRES: tessera, plugin-cuda
// (TESSERA_WIDEN=0, TESSERA_DEEPEN_KEYS=0: the blocks as the program wrote
// them; merged blocks are tested in passes/widen_blocks.mlir and
// cuda/widen_blocks.mlir, deeper key blocks in passes/deepen_keys.mlir.)
// RUN: rm -rf %t && env TESSERA_WIDEN=0 %tessera compile %examples/zoo/gemm_bf16_128x128_colbias_gelu.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/g.tsb --dump-dir %t/g
// RUN: FileCheck %s --check-prefix=PTX < %t/g/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=NOSPILL < %t/g/ptxas.sm_90a.txt
// RUN: env TESSERA_WIDEN=0 TESSERA_DEEPEN_KEYS=0 %tessera compile %examples/zoo/attn_fwd_d256_cross_f16.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/a.tsb --dump-dir %t/a
// RUN: FileCheck %s --check-prefix=NOSPILL < %t/a/ptxas.sm_90a.txt
// PTX: .entry tessera_kernel_gemm_bf16_128x128_colbias_gelu(
// PTX: .maxntid 256, 1, 1
// PTX-NEXT: .minnctapersm 2
// NOSPILL-NOT: {{[1-9][0-9]*}} bytes spill stores
// NOSPILL: Used {{[0-9]+}} registers
// NOSPILL-NOT: {{[1-9][0-9]*}} bytes spill stores
// RUN: FileCheck %s --check-prefix=RETRY < %t/a/ptxas.sm_90a.txt
// RETRY: (spilled under .minnctapersm 2, compiled again without it: tessera_kernel_attn_fwd_d256_cross_f16)
