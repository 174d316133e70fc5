// TMA-store epilogues on sm_90a (the default; TESSERA_TMA_STORE=0 off): a
// copy of the f32 accumulator fragment to the output tensor (converted to
// f16, bf16 or kept f32) is written by the threads into a staging tile in
// shared memory no tile holds any more (the pipeline's stages after the
// loop), swizzled as the output's tensor map reads it (128-byte atoms,
// 128-byte column blocks), 16-bit results by stmatrix (four 8x8 matrices
// of the wgmma accumulator per instruction); each writer fences for the async proxy, the
// writers meet at a barrier (the consumers' named barrier in a
// warp-specialized kernel, never bar.sync 0), and thread 0 stores each
// column block with cp.async.bulk.tensor ... global.shared::cta.bulk_group,
// commits the group and waits for its reads (wait_group.read 0) before the
// block exits. No thread stores the accumulator with st.global; the twin
// without TMA (launched where a map cannot describe a tensor) stages it the
// same way and its threads store the staging tile (cuda/twins.mlir). The
// output's map is the descriptor's third: slot 6, rank 2, 128-byte swizzle,
// box {64, 128} for f16 (a 64 x 128-byte box per column block), {32, 64}
// for the f32 result of the odd-shaped 64x64 kernel, whose edge blocks the
// hardware clips at the tensor's extents. ptxas (cubin images) accepts them
// all, without spills.
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TESSERA_TMA_STORE=1 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/ws.tsb --dump-dir %t/ws
// RUN: FileCheck %s --check-prefix=WS --input-file %t/ws/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=TWIN --input-file %t/ws/kernel.sm_90a.fallback.ptx
// RUN: FileCheck %s --check-prefix=NOSPILL --input-file %t/ws/ptxas.sm_90a.txt
// RUN: %tessera info %t/ws.tsb | FileCheck %s --check-prefix=INFO
// RUN: env TESSERA_TMA_STORE=1 TESSERA_WIDEN=0 TESSERA_CLUSTERS=0 TESSERA_CUDA_WARP_SPECIALIZATION=0 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/plain.tsb --dump-dir %t/plain
// RUN: FileCheck %s --check-prefix=PLAIN --input-file %t/plain/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=NOSPILL --input-file %t/plain/ptxas.sm_90a.txt
// RUN: env TESSERA_TMA_STORE=1 TESSERA_STMATRIX=0 TESSERA_WIDEN=0 TESSERA_CLUSTERS=0 TESSERA_CUDA_WARP_SPECIALIZATION=0 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/st.tsb --dump-dir %t/st
// RUN: FileCheck %s --check-prefix=ST --input-file %t/st/kernel.sm_90a.ptx
// RUN: env TESSERA_TMA_STORE=1 %tessera compile %examples/gemm_bf16.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/bf16.tsb --dump-dir %t/bf16
// RUN: FileCheck %s --check-prefix=BF16 --input-file %t/bf16/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=NOSPILL --input-file %t/bf16/ptxas.sm_90a.txt
// RUN: env TESSERA_TMA_STORE=1 %tessera compile %S/Inputs/gemm_odd_f32out.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/odd.tsb --dump-dir %t/odd
// RUN: FileCheck %s --check-prefix=ODD --input-file %t/odd/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=NOSPILL --input-file %t/odd/ptxas.sm_90a.txt
// RUN: env TESSERA_TMA_STORE=1 %tessera compile %examples/zoo/moe_topk_gating.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/moe.tsb --dump-dir %t/moe
// RUN: FileCheck %s --check-prefix=MOE --input-file %t/moe/kernel.sm_90a.ptx
// RUN: env TESSERA_TMA_STORE=1 %tessera compile %S/Inputs/eight_tensors.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/eight.tsb --dump-dir %t/eight
// RUN: FileCheck %s --check-prefix=EIGHT --input-file %t/eight/kernel.sm_90a.ptx
// RUN: env TESSERA_TMA_STORE=0 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/zero.tsb --dump-dir %t/zero
// RUN: FileCheck %s --check-prefix=OFF --input-file %t/zero/kernel.sm_90a.ptx
// Persistent blocks (TESSERA_PERSISTENT=1): the copy warp refills the stages
// for the next tile during the epilogue, so the staging tile takes bytes of
// its own after the stage barriers (98432 + 64 KiB plus alignment). The
// bytes are the store's alone, so thread 0 waits for the last tile's store
// to have read them just before the next epilogue writes them (and once
// more at the kernel's end), not right after each store
// (TESSERA_DEFER_STORE_WAIT=0: right after, then a barrier).
// RUN: env TESSERA_TMA_STORE=1 TESSERA_PERSISTENT=1 TESSERA_DEFER_STORE_WAIT=0 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/pnd.tsb --dump-dir %t/pnd
// RUN: FileCheck %s --check-prefix=PNODEFER --input-file %t/pnd/kernel.sm_90a.ptx
// RUN: env TESSERA_TMA_STORE=1 TESSERA_PERSISTENT=1 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/p.tsb --dump-dir %t/p
// RUN: FileCheck %s --check-prefix=PERSIST --input-file %t/p/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=NOSPILL --input-file %t/p/ptxas.sm_90a.txt
// RUN: %tessera info %t/p.tsb | FileCheck %s --check-prefix=PINFO
// Where the stages leave no room for a staging tile of its own (64-deep K
// steps in 4 stages: 196 KiB, plus 64 KiB would pass 227 KiB; kept 64 deep
// with TESSERA_K_STEPS=0, which tessera-k-steps would otherwise halve),
// the persistent kernel's epilogue stays the threads' stores.
// RUN: sed -e 's/%%c32 = arith.constant 32 : index/%%c32 = arith.constant 64 : index/' -e 's/128x32xf16/128x64xf16/g; s/32x128xf16/64x128xf16/g' -e 's/stages = 3/stages = 4/' %examples/gemm.mlir > %t/deep.mlir
// RUN: env TESSERA_K_STEPS=0 TESSERA_TMA_STORE=1 TESSERA_PERSISTENT=1 %tessera compile %t/deep.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/pd.tsb --dump-dir %t/pd
// RUN: FileCheck %s --check-prefix=OFF --input-file %t/pd/kernel.sm_90a.ptx
// RUN: %tessera info %t/pd.tsb | FileCheck %s --check-prefix=PDINFO

// The merged 128x256 block, warp-specialized (256 consumers + a copy
// warpgroup): four 64-column blocks of 128 rows.
// WS: tessera_tma_tessera_kernel_gemm[160] = {84, 77, 65, 50, 3, 0, 0, 0,
// WS-SAME: 6, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 64, 0, 0, 0, 128, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
// WS: .visible .entry tessera_kernel_gemm(
// WS: .param .align 64 .b8 tessera_kernel_gemm_param_11[128]
// WS: .maxntid 384, 1, 1
// WS-NOT: st.global
// WS: wgmma.wait_group.sync.aligned 0;
// WS-NOT: {{bar.sync[[:space:]]+0;}}
// WS: bar.sync 1, [[CONSUMERS:%r[0-9]+]];
// WS-NOT: st.global
// WS: cvt.rn.f16x2.f32
// WS: stmatrix.sync.aligned.m8n8.x4.shared.b16 [{{%r[0-9]+}}], {{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}};
// WS-NOT: st.shared
// WS-NOT: {{bar.sync[[:space:]]+0;}}
// WS: fence.proxy.async.shared::cta;
// WS-NOT: {{bar.sync[[:space:]]+0;}}
// WS: bar.sync 1, [[CONSUMERS]];
// WS: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%r[0-9]+}}];
// WS: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// WS: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// WS: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// WS-NOT: cp.async.bulk.tensor.2d.global
// WS: cp.async.bulk.commit_group;
// WS-NEXT: // end inline asm
// WS-NEXT: // begin inline asm
// WS-NEXT: cp.async.bulk.wait_group.read 0;
// WS-NOT: st.global
// WS: ret;

// TWIN: .visible .entry tessera_kernel_gemm__fallback(
// TWIN-NOT: cp.async.bulk
// TWIN: stmatrix.sync.aligned.m8n8.x4.shared.b16
// TWIN-NOT: cp.async.bulk
// TWIN: st.global.v2.b32
// TWIN-NOT: .entry

// NOSPILL: 0 bytes spill stores, 0 bytes spill loads

// INFO: image 0: nvptx64-nvidia-cuda:sm_90a, cubin image (cuda)
// INFO: kernel gemm (symbol tessera_kernel_gemm): 384 threads, 98432 shared bytes
// INFO: image 1: nvptx64-nvidia-cuda:sm_90a, ptx image (cuda)
// INFO: tessera.on_demand = fallback kernels

// One warpgroup, no copy warp: the block's barrier; two column blocks.
// PLAIN: .visible .entry tessera_kernel_gemm(
// PLAIN: .maxntid 128, 1, 1
// PLAIN-NOT: st.global
// PLAIN: wgmma.wait_group.sync.aligned 0;
// PLAIN: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PLAIN-NOT: st.shared
// PLAIN: fence.proxy.async.shared::cta;
// PLAIN: {{bar.sync[[:space:]]+0;}}
// PLAIN: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// PLAIN: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// PLAIN-NOT: cp.async.bulk.tensor.2d.global
// PLAIN: cp.async.bulk.commit_group;
// PLAIN: cp.async.bulk.wait_group.read 0;
// PLAIN-NOT: st.global
// PLAIN: ret;

// TESSERA_STMATRIX=0: each pair by st.shared.b32 (for A/B).
// ST: .visible .entry tessera_kernel_gemm(
// ST-NOT: stmatrix
// ST: cvt.rn.f16x2.f32
// ST: st.shared.b32
// ST-NOT: stmatrix
// ST: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// ST-NOT: stmatrix

// bf16: pairs converted by cvt.rn.bf16x2.f32, the same boxes.
// BF16: tessera_tma_tessera_kernel_gemm_bf16[160] =
// BF16-SAME: 6, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 64, 0, 0, 0, 128, 0, 0, 0,
// BF16: .visible .entry tessera_kernel_gemm_bf16(
// BF16-NOT: st.global
// BF16: cvt.rn.bf16x2.f32
// BF16: stmatrix.sync.aligned.m8n8.x4.shared.b16
// BF16: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// BF16: cp.async.bulk.wait_group.read 0;
// BF16-NOT: st.global
// BF16: ret;

// f32 result: pairs of f32 as 8-byte stores, 32-column blocks (128 bytes).
// ODD: tessera_tma_tessera_kernel_gemm_odd_f32out[160] =
// ODD-SAME: 6, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 32, 0, 0, 0, 64, 0, 0, 0,
// ODD: .visible .entry tessera_kernel_gemm_odd_f32out(
// ODD-NOT: st.global
// ODD: st.shared.b64
// ODD: fence.proxy.async.shared::cta;
// ODD: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// ODD: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// ODD-NOT: cp.async.bulk.tensor.2d.global
// ODD: cp.async.bulk.wait_group.read 0;
// ODD-NOT: st.global
// ODD: ret;

// Two outputs (32x8 tiles of i32 indices and f32 weights; 32-byte rows,
// the 32-byte swizzle atom, box {8, 32}): the second staging tile reuses
// the first's bytes once thread 0 has waited for the first store's reads
// and the block has met.
// MOE: tessera_tma_tessera_kernel_moe_topk_gating[{{[0-9]+}}] =
// MOE-SAME: 2, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 8, 0, 0, 0, 32, 0, 0, 0,
// MOE: .visible .entry tessera_kernel_moe_topk_gating(
// MOE: st.shared.b64
// MOE: fence.proxy.async.shared::cta;
// MOE: {{bar.sync[[:space:]]+0;}}
// MOE: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// MOE: cp.async.bulk.wait_group.read 0;
// MOE: {{bar.sync[[:space:]]+0;}}
// MOE: st.shared.b64
// MOE: fence.proxy.async.shared::cta;
// MOE: {{bar.sync[[:space:]]+0;}}
// MOE: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// MOE: cp.async.bulk.wait_group.read 0;
// MOE-NOT: st.global
// MOE: ret;

// Eight tensors loaded by TMA take the eight maps a launch passes: the
// kernel is distributed again without the store's map (its loads keep
// theirs; the result is stored by the threads).
// EIGHT: tessera_tma_tessera_kernel_eight_maps[400] = {84, 77, 65, 50, 8, 0, 0, 0,
// EIGHT-NOT: __no_tma_store
// EIGHT: .visible .entry tessera_kernel_eight_maps(
// EIGHT: cp.async.bulk.tensor.2d.shared::cluster.global
// EIGHT-NOT: global.shared::cta.bulk_group
// EIGHT: st.global
// EIGHT-NOT: .entry

// Off (TESSERA_TMA_STORE=0) and with persistent blocks (the
// copy warp refills the stages during the epilogue): the threads store.
// PDINFO: kernel gemm (symbol tessera_kernel_gemm): 384 threads, 196736 shared bytes, grid [min(
// PINFO: kernel gemm (symbol tessera_kernel_gemm): 384 threads, 164864 shared bytes, grid [min(
// PERSIST: .visible .entry tessera_kernel_gemm(
// PERSIST-NOT: st.global
// PERSIST: cp.async.bulk.wait_group.read 0;
// PERSIST-NEXT: // end inline asm
// PERSIST: bar.sync 1,
// PERSIST-NOT: cp.async.bulk.wait_group
// PERSIST: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PERSIST: bar.sync 1,
// PERSIST: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// PERSIST: cp.async.bulk.commit_group;
// PERSIST-NOT: bar.sync
// PERSIST: cp.async.bulk.wait_group.read 0;
// PERSIST-NOT: bar.sync
// PERSIST: ret;
// PNODEFER: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PNODEFER: cp.async.bulk.commit_group;
// PNODEFER-NEXT: // end inline asm
// PNODEFER-NEXT: // begin inline asm
// PNODEFER-NEXT: cp.async.bulk.wait_group.read 0;

// OFF: .visible .entry tessera_kernel_gemm(
// OFF-NOT: global.shared::cta.bulk_group
// OFF: st.global.b32
// OFF-NOT: global.shared::cta.bulk_group
