// How wgmma sequences are fenced and scheduled on sm_90a.
//
// Operands that a wgmma reads from registers (P in attention's O += P V) are
// converted and packed before the wgmma.fence that starts the gemm's
// sequence, so ptxas injects no warpgroup.arrive of its own (C7519) before
// the instructions that follow; TESSERA_WGMMA_FENCE=0 packs them next to
// each wgmma, after the fence, as before (for A/B; with
// TESSERA_PACKED_HALVES=0, since P converted by pairs into f16x2 registers
// needs no packing at the wgmma either way).
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %examples/flash_attention_fwd.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/fa.tsb --dump-dir %t/fa
// RUN: FileCheck %s --check-prefix=PV --input-file %t/fa/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=NOARRIVE --input-file %t/fa/ptxas.sm_90a.txt
// RUN: %tessera compile %examples/zoo/attn_gqa_d128_causal.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/gqa.tsb --dump-dir %t/gqa
// RUN: FileCheck %s --check-prefix=NOARRIVE --input-file %t/gqa/ptxas.sm_90a.txt
// RUN: env TESSERA_CUDA_WARP_SPECIALIZATION=1 %tessera compile %examples/zoo/attn_gqa_d128_causal.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/ws.tsb --dump-dir %t/ws
// RUN: FileCheck %s --check-prefix=NOARRIVE --input-file %t/ws/ptxas.sm_90a.txt
// RUN: env TESSERA_WGMMA_FENCE=0 TESSERA_PACKED_HALVES=0 %tessera compile %examples/flash_attention_fwd.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/off.tsb --dump-dir %t/off
// RUN: FileCheck %s --check-prefix=ARRIVE --input-file %t/off/ptxas.sm_90a.txt

//
// Each wgmma's shared-memory descriptor is the tile's (built once per
// stage) plus the instance's offset in 16-byte units: one 32-bit add, no
// 64-bit address arithmetic per instruction; TESSERA_WGMMA_DESC=0 builds
// each from its address (shift, mask, or).
// RUN: env TESSERA_WGMMA_DESC=0 %tessera compile %examples/flash_attention_fwd.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/desc.tsb --dump-dir %t/desc
// RUN: FileCheck %s --check-prefix=DESCOFF --input-file %t/desc/kernel.sm_90a.ptx

// The first f16x2 conversion is P's; all four wgmma of P V follow the fence
// with no conversion between, and their descriptors (V's) differ by a
// constant.
// PV: cvt.rn.f16x2.f32
// PV: wgmma.fence.sync.aligned;
// PV-NOT: cvt.rn.f16x2.f32
// PV-NOT: shr.u64
// PV: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PV-NOT: cvt.rn.f16x2.f32
// PV-NOT: shr.u64
// PV: add.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{[0-9]+}};
// PV-NEXT: cvt.u64.u32
// PV-NEXT: or.b64
// PV-NOT: cvt.rn.f16x2.f32
// PV-NOT: shr.u64
// PV-COUNT-3: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PV-NOT: cvt.rn.f16x2.f32
// PV: wgmma.commit_group.sync.aligned;

// DESCOFF: wgmma.fence.sync.aligned;
// DESCOFF: shr.u64
// DESCOFF: wgmma.mma_async.sync.aligned

// NOARRIVE-NOT: C7519
// NOARRIVE: Used {{[0-9]+}} registers
// ARRIVE: (C7519) warpgroup.arrive is injected
