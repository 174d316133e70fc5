// The DeepSeek-style block-scaled fp8 GEMM of the zoo on sm_90a, each tile
// op lowered by itself: A and B arrive by TMA (two UINT8 tensor maps, boxes
// of 128 x 128 bytes, 128-byte swizzle) into a 4-stage pipeline; each K
// step's gemm into the cleared temporary is four wgmma m64n128k32 e4m3 per
// warpgroup (two warpgroups of 64 rows), waited for in the same step (its
// result is read there); the a_scale column (128x1 tile indexed [i, 0]) and
// the b_scale value are staged through the pipeline (tessera-pipeline-loops:
// two more TMA copies, UINT32 boxes 4 x 128 and 32 x 1 from the 16-byte
// column boundary below the step's column, read from shared memory at the
// remainder), and the parallel region is one fma per accumulator register;
// no spills (TESSERA_STAGE_FRAGMENTS=0: two maps, the scales loaded from
// global memory in the loop). On sm_80 (no fp8 MMA) the
// same program runs on FMAs. The cleared temporary needs no zeros
// (TESSERA_MMA_ZERO_START, below).
// (Epilogues by thread stores, TESSERA_TMA_STORE=0: the TMA-store epilogue
// and its descriptor entry are checked in tma_store.mlir.)
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t/g %t/a
// RUN: env TESSERA_TMA_STORE=0 %tessera compile %examples/zoo/gemm_fp8_blockscale.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/g.tsb --dump-dir %t/g
// RUN: FileCheck %s --input-file %t/g/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=LOOP --input-file %t/g/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=PTXAS --input-file %t/g/ptxas.sm_90a.txt
// RUN: FileCheck %s --check-prefix=TWIN --input-file %t/g/kernel.sm_90a.fallback.ptx
// RUN: FileCheck %s --check-prefix=ZERO --input-file %t/g/kernel.sm_90a.ptx
// RUN: %tessera info %t/g.tsb | FileCheck %s --check-prefix=INFO
// RUN: mkdir -p %t/z && env TESSERA_MMA_ZERO_START=0 %tessera compile %examples/zoo/gemm_fp8_blockscale.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/z.tsb --dump-dir %t/z
// RUN: FileCheck %s --check-prefix=ZEROED --input-file %t/z/kernel.sm_90a.ptx
// RUN: mkdir -p %t/u && env TESSERA_TMA_STORE=0 TESSERA_STAGE_FRAGMENTS=0 %tessera compile %examples/zoo/gemm_fp8_blockscale.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/u.tsb --dump-dir %t/u
// RUN: FileCheck %s --check-prefix=UNSTAGED --input-file %t/u/kernel.sm_90a.ptx
// RUN: %tessera compile %examples/zoo/gemm_fp8_blockscale.mlir --target nvptx64-nvidia-cuda:sm_80 --no-cache -o %t/a.tsb --dump-dir %t/a
// RUN: FileCheck %s --check-prefix=SM80 --input-file %t/a/kernel.sm_80.ptx
// RUN: FileCheck %s --check-prefix=PTXAS --input-file %t/a/ptxas.sm_80.txt

// Four maps: A and B (slot, rank 2, UINT8 (0), 1 byte, 128-byte swizzle
// (3), box 128 x 128), then a_scale (slot 6, rank 2, UINT32 (2), 4 bytes, no
// swizzle, box 4 x 128) and b_scale (slot 9, box 32 x 1: a stage of 128
// bytes, where a box lands aligned).
// CHECK: .visible .global .align 4 .b8 tessera_tma_tessera_kernel_gemm_fp8_blockscale[208] = {84, 77, 65, 50, 4, 0, 0, 0, 0, 1, 0, 0, {{[0-9]+, [0-9]+, [0-9]+, [0-9]+}}, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 128, 0, 0, 0, 128, 0, 0, 0
// CHECK-SAME: 6, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 128, 0, 0, 0, 1, 0, 0, 0
// CHECK-SAME: 9, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 32, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0
// UNSTAGED: tessera_tma_tessera_kernel_gemm_fp8_blockscale[112] = {84, 77, 65, 50, 2, 0, 0, 0,
// UNSTAGED-NOT: ld.shared.b32
// CHECK: .visible .entry tessera_kernel_gemm_fp8_blockscale(
// (Alone on its SM, the loop feeding wgmma: a copy warpgroup beside the
// two consumer warpgroups.)
// CHECK: .maxntid 384, 1, 1
// The copy warp's four copies a stage, then the consumers' reads of the
// staged scales (two rows a thread and the column's), no global loads.
// CHECK-COUNT-4: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-NOT: cp.async.bulk.tensor.2d.shared::cluster.global
// CHECK-COUNT-3: ld.shared.b32 {{%r[0-9]+}}, [{{%rd[0-9]+}}+{{[0-9]+}}];
// CHECK-NOT: ld.shared.b32
// CHECK-NOT: ld.global
// CHECK-DAG: mbarrier.try_wait.parity.shared::cta.b64
// CHECK-DAG: cvt.rn.bf16.f32

// One K step: four wgmma, waited for at once, then the scaled accumulation.
// LOOP: wgmma.fence.sync.aligned;
// LOOP-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
// LOOP-NOT: wgmma.mma_async
// LOOP: wgmma.commit_group.sync.aligned;
// LOOP-NEXT: // end inline asm
// LOOP-NEXT: // begin inline asm
// LOOP-NEXT: wgmma.wait_group.sync.aligned 0;
// LOOP-COUNT-64: fma.rn.f32
// LOOP-NOT: wgmma.mma_async

// The temporary is cleared by its first wgmma (scale-d = 0: d = a*b, the
// accumulator registers are outputs only); the other three accumulate.
// ZERO: wgmma.fence.sync.aligned;
// ZERO-NOT: mov.b32 {{%r[0-9]+}}, {{%r[0-9]+}};
// ZERO: mov.b32 [[Z:%r[0-9]+]], 0;
// ZERO-NOT: wgmma.mma_async
// ZERO: setp.ne.b32 p, [[Z]], 0;
// ZERO-NEXT: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// ZERO: mov.b32 [[ONE:%r[0-9]+]], 1;
// ZERO-COUNT-3: setp.ne.b32 p, [[ONE]], 0;
// ZERO-NEXT: wgmma.mma_async
// ZERO-NOT: wgmma.mma_async

// TESSERA_MMA_ZERO_START=0: zeros in the 64 registers each K step (before
// the fence), then four accumulating wgmma.
// ZEROED: wgmma.fence.sync.aligned;
// ZEROED: mov.b32 [[ONE:%r[0-9]+]], 1;
// ZEROED-COUNT-4: setp.ne.b32 p, [[ONE]], 0;

// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// TWIN: .visible .entry tessera_kernel_gemm_fp8_blockscale__fallback(
// TWIN: cp.async.cg.shared.global
// TWIN: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3

// INFO: kernel gemm_fp8_blockscale {{.*}}: 384 threads, {{[0-9]+}} shared bytes

// SM80-NOT: wgmma
// SM80: .visible .entry tessera_kernel_gemm_fp8_blockscale(
// SM80-NOT: mma.sync
// SM80: cvt.rn.bf16.f32
