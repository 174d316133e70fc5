// How wgmma sequences are fenced and scheduled on sm_90a.
//
// Operands that a wgmma reads from registers (P in attention's O += P V) are
// converted and packed before the wgmma.fence that starts the gemm's
// sequence, so ptxas injects no warpgroup.arrive of its own (C7519);
// TESSERA_WGMMA_FENCE=0 packs them next to each wgmma, after the fence
// (with TESSERA_PACKED_HALVES=0, where P is not packed already: C7519).
// Each wgmma's shared-memory descriptor is the tile's plus the instance's
// offset in 16-byte units: one 32-bit add (TESSERA_WGMMA_DESC=0: shift, mask
// and or of each address).
//
// With TESSERA_MMA_OVERLAP=1 (forced; by default only blocks alone on their SM get it) the loop's P V of iteration i - 1 is
// issued after S = Q K^T of iteration i (tessera-pipeline-loops;
// passes/pipeline.mlir): both
// are committed without waiting, the softmax waits for S only
// (wait_group 1) and the rescale of O for P V (wait_group 0), so the
// softmax runs while P V computes. The first iteration commits an empty
// group in place of P V (fenced like any); the last P V follows the loop.
// P is converted by pairs into f16x2 registers that live across the
// iteration (TESSERA_PACKED_HALVES=0: f16 by f16, packed again at the
// wgmma).
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TESSERA_MMA_OVERLAP=1 %tessera compile %examples/flash_attention_fwd.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/fa.tsb --dump-dir %t/fa
// RUN: FileCheck %s --check-prefix=LOOP --input-file %t/fa/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=NOARRIVE --input-file %t/fa/ptxas.sm_90a.txt
// RUN: FileCheck %s --check-prefix=PAIRS --input-file %t/fa/kernel.sm_90a.ptx
// RUN: env TESSERA_PERSISTENT=0 %tessera compile %examples/zoo/attn_gqa_d128_causal.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/gqa.tsb --dump-dir %t/gqa
// RUN: FileCheck %s --check-prefix=NOARRIVE --input-file %t/gqa/ptxas.sm_90a.txt
// RUN: env TESSERA_MMA_OVERLAP=1 TESSERA_CUDA_WARP_SPECIALIZATION=1 TESSERA_PERSISTENT=0 %tessera compile %examples/zoo/attn_gqa_d128_causal.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/ws.tsb --dump-dir %t/ws
// RUN: FileCheck %s --check-prefix=NOARRIVE --input-file %t/ws/ptxas.sm_90a.txt
// RUN: FileCheck %s --check-prefix=WS --input-file %t/ws/kernel.sm_90a.ptx
// RUN: %tessera compile %examples/flash_attention_fwd.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/seq.tsb --dump-dir %t/seq
// RUN: FileCheck %s --check-prefix=SEQ --input-file %t/seq/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=NOARRIVE --input-file %t/seq/ptxas.sm_90a.txt
// RUN: env TESSERA_WGMMA_FENCE=0 TESSERA_PACKED_HALVES=0 %tessera compile %examples/flash_attention_fwd.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/off.tsb --dump-dir %t/off
// RUN: FileCheck %s --check-prefix=ARRIVE --input-file %t/off/ptxas.sm_90a.txt
// RUN: env TESSERA_MMA_OVERLAP=1 TESSERA_WGMMA_DESC=0 %tessera compile %examples/flash_attention_fwd.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/desc.tsb --dump-dir %t/desc
// RUN: FileCheck %s --check-prefix=DESCOFF --input-file %t/desc/kernel.sm_90a.ptx
// RUN: env TESSERA_MMA_OVERLAP=1 TESSERA_PACKED_HALVES=0 %tessera compile %examples/flash_attention_fwd.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/halves.tsb --dump-dir %t/halves
// RUN: FileCheck %s --check-prefix=HALVES --input-file %t/halves/kernel.sm_90a.ptx

// LOOP: mbarrier.try_wait.parity
// LOOP: wgmma.fence.sync.aligned;
// LOOP-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// LOOP-NOT: wgmma.wait_group
// LOOP: wgmma.commit_group.sync.aligned;
// LOOP-NOT: wgmma.wait_group
// LOOP: wgmma.fence.sync.aligned;
// LOOP-NOT: cvt.rn.f16x2.f32
// LOOP-NOT: shr.u64
// LOOP: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, {{{%r[0-9]+,%r[0-9]+,%r[0-9]+,%r[0-9]+}}}, {{%rd[0-9]+}}, p, 1, 1, 1;
// LOOP-NOT: cvt.rn.f16x2.f32
// LOOP: add.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{[0-9]+}};
// LOOP-NEXT: cvt.u64.u32
// LOOP-NEXT: or.b64
// LOOP-NOT: cvt.rn.f16x2.f32
// LOOP-COUNT-3: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// LOOP-NOT: wgmma.wait_group
// LOOP: wgmma.commit_group.sync.aligned;
// LOOP-NOT: wgmma.wait_group
// LOOP: wgmma.fence.sync.aligned;
// LOOP-NOT: wgmma.wait_group
// LOOP: wgmma.commit_group.sync.aligned;
// LOOP-NOT: ex2.approx
// LOOP: wgmma.wait_group.sync.aligned 1;
// LOOP: ex2.approx.ftz.f32
// LOOP: wgmma.wait_group.sync.aligned 0;
// After the loop: the last iteration's P V.
// LOOP: wgmma.fence.sync.aligned;
// LOOP-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// LOOP: wgmma.commit_group.sync.aligned;

// The consumers release a stage (mbarrier.arrive) after P V's wait.
// WS: wgmma.wait_group.sync.aligned 1;
// WS: wgmma.wait_group.sync.aligned 0;
// WS: mbarrier.arrive.shared::cta.b64

// SEQ-NOT: wgmma.wait_group.sync.aligned 1;
// SEQ: wgmma.fence.sync.aligned;
// SEQ-NOT: cvt.rn.f16x2.f32
// SEQ-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// SEQ: wgmma.commit_group.sync.aligned;
// SEQ: wgmma.wait_group.sync.aligned 0;

// DESCOFF: wgmma.fence.sync.aligned;
// DESCOFF: shr.u64
// DESCOFF: wgmma.mma_async.sync.aligned

// PAIRS: .visible .entry
// PAIRS-NOT: mov.b32 {{%r[0-9]+}}, {%rs{{[0-9]+}}, %rs{{[0-9]+}}};
// HALVES: mov.b32 {{%r[0-9]+}}, {%rs{{[0-9]+}}, %rs{{[0-9]+}}};

// NOARRIVE-NOT: C7519
// NOARRIVE: Used {{[0-9]+}} registers
// ARRIVE: (C7519) warpgroup.arrive is injected
