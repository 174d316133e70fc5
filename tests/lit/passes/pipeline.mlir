// Software pipelining: multi-buffers, async copy groups, waits and stage counts.
// Generated decisions were reviewed by hand; each RUN line is one example on one target.
// Blocks unpaired on sm_90a (TESSERA_CLUSTERS=0): clusters.mlir checks paired pipelines.

// RUN: env TESSERA_CLUSTERS=0 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %examples/elementwise_add.mlir | FileCheck %s --check-prefix=SM90-ELEMENTWISE-ADD
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 --tessera-swizzle-shared=target=gfx942 --tessera-pipeline-loops=target=gfx942 %examples/elementwise_add.mlir | FileCheck %s --check-prefix=GFX942-ELEMENTWISE-ADD
// RUN: %tessera-opt --tessera-infer-layouts=target=host --tessera-swizzle-shared=target=host --tessera-pipeline-loops=target=host %examples/elementwise_add.mlir | FileCheck %s --check-prefix=HOST-ELEMENTWISE-ADD
// RUN: env TESSERA_CLUSTERS=0 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %examples/flash_attention_fwd.mlir | FileCheck %s --check-prefix=SM90-FLASH-ATTENTION-FWD
// RUN: env TESSERA_CLUSTERS=0 TESSERA_MMA_OVERLAP=1 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %examples/flash_attention_fwd.mlir | FileCheck %s --check-prefix=SM90-FLASH-OVERLAP
// By default the overlap applies where the block is alone on its SM (the
// 128-row flash program: its fragments take every register), not to the
// 64-row one above (two blocks per SM); TESSERA_MMA_OVERLAP=0 turns it off.
// RUN: env TESSERA_CLUSTERS=0 TESSERA_PERSISTENT=0 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %examples/flash_attention_fwd_q128.mlir | FileCheck %s --check-prefix=SM90-Q128-DEFAULT
// RUN: env TESSERA_CLUSTERS=0 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %examples/flash_attention_fwd_q128.mlir | FileCheck %s --check-prefix=SM90-Q128-PERSISTENT
// RUN: env TESSERA_CLUSTERS=0 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %examples/gemm.mlir | FileCheck %s --check-prefix=SM90-GEMM-NOT-PERSISTENT
// RUN: env TESSERA_CLUSTERS=0 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %examples/zoo/gemm_fp8_blockscale.mlir | FileCheck %s --check-prefix=SM90-BLOCKSCALE-PERSISTENT
// RUN: env TESSERA_CLUSTERS=0 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %examples/zoo/gemm_fp8_blockscale.mlir | FileCheck %s --check-prefix=SM90-BLOCKSCALE-STAGED
// RUN: env TESSERA_CLUSTERS=0 TESSERA_STAGE_FRAGMENTS=0 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %examples/zoo/gemm_fp8_blockscale.mlir | FileCheck %s --check-prefix=SM90-BLOCKSCALE-UNSTAGED
// RUN: %tessera-opt --tessera-infer-layouts=target=sm_80 --tessera-swizzle-shared=target=sm_80 --tessera-pipeline-loops=target=sm_80 %examples/zoo/gemm_fp8_blockscale.mlir | FileCheck %s --check-prefix=SM90-BLOCKSCALE-UNSTAGED
// RUN: env TESSERA_CLUSTERS=0 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %S/Inputs/blockscale_unread.mlir | FileCheck %s --check-prefix=SM90-BLOCKSCALE-UNSTAGED
// RUN: env TESSERA_CLUSTERS=0 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %S/Inputs/blockscale_tall_scale.mlir | FileCheck %s --check-prefix=SM90-BLOCKSCALE-TALL
// RUN: env TESSERA_CLUSTERS=0 TESSERA_PERSISTENT=0 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %examples/zoo/gemm_fp8_blockscale.mlir | FileCheck %s --check-prefix=SM90-GEMM-NOT-PERSISTENT
// RUN: env TESSERA_CLUSTERS=0 %tessera-opt --tessera-infer-layouts=target=sm_80 --tessera-swizzle-shared=target=sm_80 --tessera-pipeline-loops=target=sm_80 %examples/zoo/gemm_fp8_blockscale.mlir | FileCheck %s --check-prefix=SM90-GEMM-NOT-PERSISTENT
// RUN: env TESSERA_CLUSTERS=0 TESSERA_MMA_OVERLAP=0 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %examples/flash_attention_fwd_q128.mlir | FileCheck %s --check-prefix=SM90-Q128-OFF
// RUN: env TESSERA_CLUSTERS=0 TESSERA_MMA_OVERLAP=1 TESSERA_PERSISTENT=1 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %examples/flash_attention_fwd.mlir | FileCheck %s --check-prefix=SM90-FLASH-ATTENTION-FWD
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 --tessera-swizzle-shared=target=gfx942 --tessera-pipeline-loops=target=gfx942 %examples/flash_attention_fwd.mlir | FileCheck %s --check-prefix=GFX942-FLASH-ATTENTION-FWD
// RUN: %tessera-opt --tessera-infer-layouts=target=host --tessera-swizzle-shared=target=host --tessera-pipeline-loops=target=host %examples/flash_attention_fwd.mlir | FileCheck %s --check-prefix=HOST-FLASH-ATTENTION-FWD
// RUN: env TESSERA_CLUSTERS=0 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %examples/gemm.mlir | FileCheck %s --check-prefix=SM90-GEMM
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 --tessera-swizzle-shared=target=gfx942 --tessera-pipeline-loops=target=gfx942 %examples/gemm.mlir | FileCheck %s --check-prefix=GFX942-GEMM
// RUN: %tessera-opt --tessera-infer-layouts=target=host --tessera-swizzle-shared=target=host --tessera-pipeline-loops=target=host %examples/gemm.mlir | FileCheck %s --check-prefix=HOST-GEMM
// RUN: env TESSERA_CLUSTERS=0 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %examples/gemm_f32.mlir | FileCheck %s --check-prefix=SM90-GEMM-F32
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 --tessera-swizzle-shared=target=gfx942 --tessera-pipeline-loops=target=gfx942 %examples/gemm_f32.mlir | FileCheck %s --check-prefix=GFX942-GEMM-F32
// RUN: %tessera-opt --tessera-infer-layouts=target=host --tessera-swizzle-shared=target=host --tessera-pipeline-loops=target=host %examples/gemm_f32.mlir | FileCheck %s --check-prefix=HOST-GEMM-F32
// RUN: env TESSERA_CLUSTERS=0 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %examples/gemm_relu.mlir | FileCheck %s --check-prefix=SM90-GEMM-RELU
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 --tessera-swizzle-shared=target=gfx942 --tessera-pipeline-loops=target=gfx942 %examples/gemm_relu.mlir | FileCheck %s --check-prefix=GFX942-GEMM-RELU
// RUN: %tessera-opt --tessera-infer-layouts=target=host --tessera-swizzle-shared=target=host --tessera-pipeline-loops=target=host %examples/gemm_relu.mlir | FileCheck %s --check-prefix=HOST-GEMM-RELU
// RUN: env TESSERA_CLUSTERS=0 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %examples/rmsnorm.mlir | FileCheck %s --check-prefix=SM90-RMSNORM
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 --tessera-swizzle-shared=target=gfx942 --tessera-pipeline-loops=target=gfx942 %examples/rmsnorm.mlir | FileCheck %s --check-prefix=GFX942-RMSNORM
// RUN: %tessera-opt --tessera-infer-layouts=target=host --tessera-swizzle-shared=target=host --tessera-pipeline-loops=target=host %examples/rmsnorm.mlir | FileCheck %s --check-prefix=HOST-RMSNORM
// RUN: env TESSERA_CLUSTERS=0 %tessera-opt --tessera-infer-layouts=target=sm_90a --tessera-swizzle-shared=target=sm_90a --tessera-pipeline-loops=target=sm_90a %examples/softmax.mlir | FileCheck %s --check-prefix=SM90-SOFTMAX
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx942 --tessera-swizzle-shared=target=gfx942 --tessera-pipeline-loops=target=gfx942 %examples/softmax.mlir | FileCheck %s --check-prefix=GFX942-SOFTMAX
// RUN: %tessera-opt --tessera-infer-layouts=target=host --tessera-swizzle-shared=target=host --tessera-pipeline-loops=target=host %examples/softmax.mlir | FileCheck %s --check-prefix=HOST-SOFTMAX

// SM90-ELEMENTWISE-ADD-NOT: tile.async_copy
// SM90-ELEMENTWISE-ADD: tile.kernel

// GFX942-ELEMENTWISE-ADD-NOT: tile.async_copy
// GFX942-ELEMENTWISE-ADD: tile.kernel

// HOST-ELEMENTWISE-ADD-NOT: tile.async_copy
// HOST-ELEMENTWISE-ADD: tile.kernel

// SM90-FLASH-ATTENTION-FWD: tile.alloc {swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8, block_cols = 64>} : <2x64x128xf16, shared>
// SM90-FLASH-ATTENTION-FWD: tile.alloc {swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8, block_cols = 64>} : <2x64x128xf16, shared>
// SM90-FLASH-ATTENTION-FWD: tile.async_copy
// SM90-FLASH-ATTENTION-FWD: tile.async_copy
// SM90-FLASH-ATTENTION-FWD: tile.commit_group
// SM90-FLASH-ATTENTION-FWD: tile.wait_group pending = 0
// SM90-FLASH-ATTENTION-FWD: tile.async_copy
// SM90-FLASH-ATTENTION-FWD: tile.async_copy
// SM90-FLASH-ATTENTION-FWD: tile.commit_group
// SM90-FLASH-ATTENTION-FWD: tile.num_stages = 2 : i64
// SM90-FLASH-ATTENTION-FWD: tile.wait_group pending = 0

// TESSERA_MMA_OVERLAP=1 (forced; by default only where the block is alone on its SM), two gemms on asynchronous atoms (wgmma):
// P V of iteration i - 1 is issued
// after S = Q K^T of iteration i (both run on while the softmax of i does),
// guarded for the first iteration, and once more after the loop for the last
// one; its V stage is the one that iteration filled. Three stages: the
// refill of stage (i - 1) % 3 waits for that P V. (By default, and with
// TESSERA_PERSISTENT=1, above: two stages, the program's order.)
// The q128 program by default: its Q tile (copied before the loop) fits
// twice beside two stages and the epilogue's staging, and the block is alone
// on its SM: persistent blocks, two stages, no loop overlap. gemm.mlir has
// no such tile.
// SM90-Q128-PERSISTENT: tile.kernel {{.*}}tile.persistent
// SM90-Q128-PERSISTENT: tile.alloc {{.*}} : <2x128x128xf16, shared>
// SM90-Q128-PERSISTENT-NOT: tile.mma_async
// SM90-Q128-PERSISTENT: tile.num_stages = 2
// SM90-GEMM-NOT-PERSISTENT-NOT: tile.persistent
// The zoo's block-scaled fp8 GEMM has no such tile, but its loop waits for
// its wgmma every iteration (the scaled add reads the step's product): its
// block is alone on its SM too, and persistent blocks fill the tensor cores'
// idle time at each tile's start and end (sm_80 has no persistent blocks).
// SM90-BLOCKSCALE-PERSISTENT: tile.kernel {{.*}}tile.persistent
// SM90-BLOCKSCALE-PERSISTENT: tile.gemm
// SM90-BLOCKSCALE-PERSISTENT: tile.num_stages = 4
// Its per-step scales (a_scale[row : row + 128, kt], one f32 a row, and
// b_scale[bx, kt]: fragment copies) go through the pipeline's stages on
// sm_90a: shared tiles 16 bytes wide that TMA copies fill from the 16-byte
// boundary below column kt (kt / 4 * 4; the one-row tile padded to 128
// bytes a stage), and parallel regions reading column kt % 4 into the
// fragments. With TESSERA_STAGE_FRAGMENTS=0, on sm_80 (no TMA), and where
// nothing reads the fragment (Inputs/blockscale_unread.mlir), the
// program's copies stay.
// SM90-BLOCKSCALE-STAGED: tile.alloc {tile.staged_fragment} : <4x128x4xf32, shared>
// SM90-BLOCKSCALE-STAGED: tile.alloc {tile.row_pad = 28 : i64, tile.staged_fragment} : <4x1x4xf32, shared>
// SM90-BLOCKSCALE-STAGED: [[DIV:%[0-9]+]] = arith.divui {{%[0-9a-z_]+}}, %c4{{[_0-9]*}}
// SM90-BLOCKSCALE-STAGED-NEXT: [[BASE:%[0-9]+]] = arith.muli [[DIV]], %c4{{[_0-9]*}}
// SM90-BLOCKSCALE-STAGED: tile.async_copy %arg2[{{%[0-9]+}}, [[BASE]]], {{%[0-9]+}} {tile.pipeline = 0 : i64{{.*}}} : <[M, KB], f32>, <128x4xf32, shared>
// SM90-BLOCKSCALE-STAGED: [[REM:%[0-9]+]] = arith.remui %arg7, %c4{{[_0-9]*}}
// SM90-BLOCKSCALE-STAGED: tile.parallel (%arg8, %arg9) in [128, 1] {
// SM90-BLOCKSCALE-STAGED-NEXT: [[COL:%[0-9]+]] = arith.addi %arg9, [[REM]]
// SM90-BLOCKSCALE-STAGED-NEXT: tile.load {{%[0-9]+}}[%arg8, [[COL]]] : <128x4xf32, shared>
// SM90-BLOCKSCALE-UNSTAGED-NOT: tile.staged_fragment
// SM90-BLOCKSCALE-UNSTAGED: tile.copy %arg2
// SM90-BLOCKSCALE-UNSTAGED-NOT: tile.staged_fragment
// A 512-row scale box is more than a bulk copy takes: that copy stays, the
// column scale is staged.
// SM90-BLOCKSCALE-TALL: tile.alloc {tile.row_pad = 28 : i64, tile.staged_fragment} : <4x1x4xf32, shared>
// SM90-BLOCKSCALE-TALL-NOT: x512x{{[0-9]+}}xf32, shared
// SM90-BLOCKSCALE-TALL: tile.copy %arg2[{{.*}}: !tile.tensor<[M, KB], f32>, !tile.tile<512x1xf32, fragment
// SM90-Q128-DEFAULT: tile.alloc {{.*}} : <3x128x128xf16, shared>
// SM90-Q128-DEFAULT: tile.gemm {{.*}} transpose_b clear {{{.*}}tile.mma_async
// SM90-Q128-DEFAULT: tile.num_stages = 3
// SM90-Q128-OFF: tile.alloc {{.*}} : <2x128x128xf16, shared>
// SM90-Q128-OFF-NOT: tile.mma_async
// SM90-Q128-OFF: tile.num_stages = 2
// SM90-FLASH-OVERLAP: tile.alloc {{.*}} : <3x64x128xf16, shared>
// SM90-FLASH-OVERLAP: tile.alloc {{.*}} : <3x64x128xf16, shared>
// SM90-FLASH-OVERLAP: scf.for %[[IV:.*]] = %[[LB:.*]] to %[[UB:.*]] step %[[ST:[a-z0-9_]+]]
// SM90-FLASH-OVERLAP: %[[T:.*]] = arith.divui %{{.*}}, %[[ST]]
// SM90-FLASH-OVERLAP: tile.wait_group pending = 1 stage(
// SM90-FLASH-OVERLAP: tile.gemm {{.*}} transpose_b clear {{{.*}}tile.mma_async
// SM90-FLASH-OVERLAP: %[[T1:.*]] = arith.addi %[[T]], %{{c2[_0-9]*}}
// SM90-FLASH-OVERLAP: %[[PREV:.*]] = arith.remui %[[T1]], %{{c3[_0-9]*}}
// SM90-FLASH-OVERLAP: %[[NOTFIRST:.*]] = arith.cmpi ugt, %[[T]], %{{c0[_0-9]*}}
// SM90-FLASH-OVERLAP-NEXT: scf.if %[[NOTFIRST]] {
// SM90-FLASH-OVERLAP-NEXT: %[[V:.*]] = tile.stage_view %{{.*}}[%[[PREV]]]
// SM90-FLASH-OVERLAP-NEXT: tile.gemm %{{.*}}, %[[V]], %{{.*}} {{{.*}}tile.mma_async
// SM90-FLASH-OVERLAP: tile.reduce max
// SM90-FLASH-OVERLAP: tile.copy {{.*}} : !tile.tile<64x64xf32, fragment{{.*}}>, !tile.tile<64x64xf16, fragment
// SM90-FLASH-OVERLAP-NOT: tile.gemm
// SM90-FLASH-OVERLAP: tile.commit_group
// SM90-FLASH-OVERLAP: tile.num_stages = 3 : i64, tile.requested_stages = 2 : i64
// SM90-FLASH-OVERLAP-NEXT: tile.wait_group pending = 0
// SM90-FLASH-OVERLAP: %[[LAST:.*]] = arith.remui
// SM90-FLASH-OVERLAP: scf.if
// SM90-FLASH-OVERLAP-NEXT: %[[VL:.*]] = tile.stage_view %{{.*}}[%[[LAST]]]
// SM90-FLASH-OVERLAP-NEXT: tile.gemm %{{.*}}, %[[VL]], %{{.*}} {{{.*}}tile.mma_async

// GFX942-FLASH-ATTENTION-FWD: tile.num_stages = 1 : i64
// GFX942-FLASH-ATTENTION-FWD: tile.requested_stages = 2

// HOST-FLASH-ATTENTION-FWD: tile.num_stages = 1 : i64
// HOST-FLASH-ATTENTION-FWD: tile.requested_stages = 2

// SM90-GEMM: tile.alloc {swizzle = #tile.swizzle<vec = 8, per_phase = 2, max_phase = 4>} : <4x128x32xf16, shared>
// SM90-GEMM: tile.alloc {swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8, block_cols = 64>} : <4x32x128xf16, shared>
// SM90-GEMM: tile.async_copy
// SM90-GEMM: tile.async_copy
// SM90-GEMM: tile.commit_group
// SM90-GEMM: tile.async_copy
// SM90-GEMM: tile.async_copy
// SM90-GEMM: tile.commit_group
// SM90-GEMM: tile.async_copy
// SM90-GEMM: tile.async_copy
// SM90-GEMM: tile.commit_group
// The loop's wait names its stage and the phase of the stage's barrier:
// slot t % 4, parity (t / 4) % 2 of the iteration t = (kt - 0) / 1.
// SM90-GEMM: %[[T:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// SM90-GEMM: %[[SLOT:.*]] = arith.remui %[[T]], %c4 : index
// SM90-GEMM: %[[Q:.*]] = arith.divui %[[T]], %c4_{{.*}} : index
// SM90-GEMM: %[[PHASE:.*]] = arith.remui %[[Q]], %c2_{{.*}} : index
// SM90-GEMM: tile.wait_group pending = 2 stage(%[[SLOT]], %[[PHASE]]) {tile.pipeline = 0 : i64}
// SM90-GEMM: tile.async_copy {{.*}}tile.pipeline = 0 : i64
// SM90-GEMM: tile.async_copy
// SM90-GEMM: tile.commit_group {tile.pipeline = 0 : i64}
// SM90-GEMM: tile.num_stages = 4 : i64
// SM90-GEMM: tile.wait_group pending = 0 {tile.pipeline = 0 : i64}

// Register staging (async_copy = "registers"): two stages of the three asked for.
// GFX942-GEMM: tile.alloc {swizzle = #tile.swizzle<vec = 8, per_phase = 2, max_phase = 4>} : <2x128x32xf16, shared>
// GFX942-GEMM: tile.alloc {swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8>} : <2x32x128xf16, shared>
// GFX942-GEMM: tile.async_copy
// GFX942-GEMM: tile.async_copy
// GFX942-GEMM: tile.commit_group
// GFX942-GEMM: tile.wait_group pending = 0
// GFX942-GEMM: tile.async_copy
// GFX942-GEMM: tile.async_copy
// GFX942-GEMM: tile.commit_group
// GFX942-GEMM: tile.num_stages = 2 : i64, tile.requested_stages = 3 : i64
// GFX942-GEMM: tile.wait_group pending = 0

// HOST-GEMM: tile.num_stages = 1 : i64
// HOST-GEMM: tile.requested_stages = 3

// SM90-GEMM-F32: tile.alloc {swizzle = #tile.swizzle<vec = 4, per_phase = 1, max_phase = 8>} : <2x64x32xf32, shared>
// SM90-GEMM-F32: tile.alloc {swizzle = #tile.swizzle<vec = 4, per_phase = 1, max_phase = 8, block_cols = 32>} : <2x32x64xf32, shared>
// SM90-GEMM-F32: tile.async_copy
// SM90-GEMM-F32: tile.async_copy
// SM90-GEMM-F32: tile.commit_group
// SM90-GEMM-F32: tile.wait_group pending = 0
// SM90-GEMM-F32: tile.async_copy
// SM90-GEMM-F32: tile.async_copy
// SM90-GEMM-F32: tile.commit_group
// SM90-GEMM-F32: tile.num_stages = 2 : i64
// SM90-GEMM-F32: tile.wait_group pending = 0

// GFX942-GEMM-F32: tile.alloc {swizzle = #tile.swizzle<vec = 4, per_phase = 1, max_phase = 8>} : <2x64x32xf32, shared>
// GFX942-GEMM-F32: tile.alloc {swizzle = #tile.swizzle<vec = 4, per_phase = 1, max_phase = 8>} : <2x32x64xf32, shared>
// GFX942-GEMM-F32: tile.async_copy
// GFX942-GEMM-F32: tile.async_copy
// GFX942-GEMM-F32: tile.commit_group
// GFX942-GEMM-F32: tile.wait_group pending = 0
// GFX942-GEMM-F32: tile.async_copy
// GFX942-GEMM-F32: tile.async_copy
// GFX942-GEMM-F32: tile.commit_group
// GFX942-GEMM-F32: tile.num_stages = 2 : i64
// GFX942-GEMM-F32: tile.wait_group pending = 0

// HOST-GEMM-F32: tile.num_stages = 1 : i64
// HOST-GEMM-F32: tile.requested_stages = 2

// SM90-GEMM-RELU: tile.alloc {swizzle = #tile.swizzle<vec = 8, per_phase = 2, max_phase = 4>} : <4x128x32xf16, shared>
// SM90-GEMM-RELU: tile.alloc {swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8, block_cols = 64>} : <4x32x128xf16, shared>
// SM90-GEMM-RELU: tile.async_copy
// SM90-GEMM-RELU: tile.async_copy
// SM90-GEMM-RELU: tile.commit_group
// SM90-GEMM-RELU: tile.async_copy
// SM90-GEMM-RELU: tile.async_copy
// SM90-GEMM-RELU: tile.commit_group
// SM90-GEMM-RELU: tile.async_copy
// SM90-GEMM-RELU: tile.async_copy
// SM90-GEMM-RELU: tile.commit_group
// SM90-GEMM-RELU: tile.wait_group pending = 2
// SM90-GEMM-RELU: tile.async_copy
// SM90-GEMM-RELU: tile.async_copy
// SM90-GEMM-RELU: tile.commit_group
// SM90-GEMM-RELU: tile.num_stages = 4 : i64
// SM90-GEMM-RELU: tile.wait_group pending = 0

// Register staging (async_copy = "registers"): two stages of the three asked for.
// GFX942-GEMM-RELU: tile.alloc {swizzle = #tile.swizzle<vec = 8, per_phase = 2, max_phase = 4>} : <2x128x32xf16, shared>
// GFX942-GEMM-RELU: tile.alloc {swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8>} : <2x32x128xf16, shared>
// GFX942-GEMM-RELU: tile.async_copy
// GFX942-GEMM-RELU: tile.async_copy
// GFX942-GEMM-RELU: tile.commit_group
// GFX942-GEMM-RELU: tile.wait_group pending = 0
// GFX942-GEMM-RELU: tile.async_copy
// GFX942-GEMM-RELU: tile.async_copy
// GFX942-GEMM-RELU: tile.commit_group
// GFX942-GEMM-RELU: tile.num_stages = 2 : i64, tile.requested_stages = 3 : i64
// GFX942-GEMM-RELU: tile.wait_group pending = 0

// HOST-GEMM-RELU: tile.num_stages = 1 : i64
// HOST-GEMM-RELU: tile.requested_stages = 3

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
