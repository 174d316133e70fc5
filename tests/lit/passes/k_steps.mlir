// tessera-k-steps (KSteps.cpp): a pipelined GEMM loop whose K step
// leaves the pipeline fewer than the target's min_pipeline_stages, or whose
// operand rows per step are wider than max_k_step_bytes while each half keeps
// min_k_step_macs multiply-adds per block, gets shorter K steps: the copied
// tiles half as deep along K, the loop twice as long, its step recorded in
// tile.k_step_from. gemm_bf16_64x64_rowbias merged to 128x256 blocks: 128
// (96 KiB per stage, 2 stages) -> 64 (stages) -> 32 (row bytes); down to two
// K steps of the atom. Loops with other ops (attention), gemms that clear,
// A read with K along its rows (transpose_a), 8-bit operands and small
// blocks keep theirs;
// targets without the keys (sm_80, the host, lavapipe) never split.
// RUN: %tessera-opt --tessera-widen-blocks=target=sm_90a --tessera-k-steps=target=sm_90a %examples/zoo/gemm_bf16_64x64_rowbias.mlir | FileCheck %s --check-prefix=ROWBIAS
// The loop ends at ceildiv(K, BK): shorter steps end at ceildiv(K, BK / f)
// (no step starting past K); with another bound the loop covers the same
// range as written, [f lb, f ub).
// RUN: sed -e 's/%%nk = arith.ceildivui %%k, %%c128/%%nk = arith.divui %%k, %%c128/' %examples/zoo/gemm_bf16_64x64_rowbias.mlir > %t.floor128.mlir
// RUN: %tessera-opt --tessera-widen-blocks=target=sm_90a --tessera-k-steps=target=sm_90a %t.floor128.mlir | FileCheck %s --check-prefix=SAMERANGE
// RUN: env TESSERA_K_STEPS=stages %tessera-opt --tessera-widen-blocks=target=sm_90a --tessera-k-steps=target=sm_90a %examples/zoo/gemm_bf16_64x64_rowbias.mlir | FileCheck %s --check-prefix=STAGES
// RUN: env TESSERA_K_STEPS=0 %tessera-opt --tessera-widen-blocks=target=sm_90a --tessera-k-steps=target=sm_90a %examples/zoo/gemm_bf16_64x64_rowbias.mlir | FileCheck %s --check-prefix=OFF
// RUN: %tessera-opt --tessera-k-steps=target=sm_90a %examples/zoo/gemm_bf16_64x64_rowbias.mlir | FileCheck %s --check-prefix=SMALL
// RUN: %tessera-opt --tessera-k-steps=target=sm_80 %examples/zoo/gemm_bf16_64x64_rowbias.mlir | FileCheck %s --check-prefix=SMALL
// RUN: env TESSERA_K_STEPS=explain %tessera-opt --tessera-pipeline=target=sm_90a %examples/zoo/gemm_fp8_128x256_scaled.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=FP8
// RUN: %tessera-opt --tessera-widen-blocks=target=sm_90a --tessera-k-steps=target=sm_90a %examples/zoo/gemm_batched_bf16.mlir | FileCheck %s --check-prefix=BATCHED
// RUN: env TESSERA_K_STEPS=explain %tessera-opt --tessera-pipeline=target=sm_90a %examples/zoo/gemm_bf16_tt.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=TT
// RUN: env TESSERA_K_STEPS=explain %tessera-opt --tessera-pipeline=target=sm_90a %examples/flash_attention_fwd_q128.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=ATTN
// RUN: env TESSERA_K_STEPS=explain %tessera-opt --tessera-pipeline=target=sm_90a %examples/gemm.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=GEMM
// RUN: env TESSERA_K_STEPS=explain %tessera-opt --tessera-pipeline=target=sm_90a %examples/zoo/moe_topk_gating.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=MOE
// Steps shorter than two K steps of the atom are lengthened where the loop
// runs from 0 to ceildiv(K, BK) of the copies' own K (the longer last step
// then reaches only past K): gemm.mlir written with 16-deep steps becomes
// 32-deep; with any other bound it keeps them.
// RUN: %tessera-opt --tessera-widen-blocks=target=sm_90a --tessera-k-steps=target=sm_90a %S/Inputs/gemm_k16.mlir | FileCheck %s --check-prefix=LONGER
// RUN: sed -e 's/%%nk = arith.ceildivui %%k, %%cbk/%%nk = arith.divui %%k, %%cbk/' %S/Inputs/gemm_k16.mlir > %t.floor.mlir
// RUN: env TESSERA_K_STEPS=explain %tessera-opt --tessera-k-steps=target=sm_90a %t.floor.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLOOR
// RUN: env TESSERA_K_STEPS=0 %tessera-opt --tessera-k-steps=target=sm_90a %S/Inputs/gemm_k16.mlir | FileCheck %s --check-prefix=OFF16
// Nor where a copy's K is another tensor dimension than the bound's, or the
// loop does not start at 0.
// RUN: sed -e 's/\[K, N\]/[L, N]/g' %S/Inputs/gemm_k16.mlir > %t.otherk.mlir
// RUN: env TESSERA_K_STEPS=explain %tessera-opt --tessera-k-steps=target=sm_90a %t.otherk.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=OTHERK
// RUN: sed -e 's/tile.pipelined %%kt = %%c0 to/tile.pipelined %%kt = %%c1 to/' %S/Inputs/gemm_k16.mlir > %t.from1.mlir
// RUN: env TESSERA_K_STEPS=explain %tessera-opt --tessera-k-steps=target=sm_90a %t.from1.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=FROM1
// A program keeps its step by writing tile.k_step_from on the loop.
// RUN: sed -e 's/stages = 3 {/stages = 3 attributes {tile.k_step_from = 16 : i64} {/' %S/Inputs/gemm_k16.mlir > %t.keep.mlir
// RUN: %tessera-opt --tessera-k-steps=target=sm_90a %t.keep.mlir | FileCheck %s --check-prefix=OFF16
// Two gemms of a step count together: SwiGLU's gate and up projections
// (two 128x128 accumulators sharing the X tile) at K 64 do 2 x 128 x 128 x
// 32 multiply-adds per half step, the target's minimum (each alone did
// half: the step was kept, 5% slower at 4096^3 on an H200).
// RUN: env TESSERA_K_STEPS=explain %tessera-opt --tessera-pipeline=target=sm_90a %tessera_src/bench/gpu/unseen/gemm_swiglu_dual_bf16.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUAL
// DUAL: remark: K step 64 -> 32: operand rows of 128 bytes per K step
// A block whose gemms do fewer than min_k_step_macs multiply-adds a step
// gets longer steps while min_pipeline_stages stages still fit: a 128x128
// GEMM whose rows are normalized per block (not widened: the reduction
// spans the block's columns) 32 -> 64 (H200 4096^3: 0.308 -> 0.212 ms), and
// written with 16-deep steps 16 -> 64 in one go.
// RUN: env TESSERA_K_STEPS=explain %tessera-opt --tessera-pipeline=target=sm_90a %tessera_src/bench/gpu/unseen/gemm_rownorm_bf16.mlir 2>&1 | FileCheck %s --check-prefix=FEWMACS
// RUN: sed -e 's/%%c32 = arith.constant 32 : index/%%c32 = arith.constant 16 : index/; s/128x32xbf16/128x16xbf16/g; s/32x128xbf16/16x128xbf16/g' %tessera_src/bench/gpu/unseen/gemm_rownorm_bf16.mlir > %t.rownorm16.mlir
// RUN: env TESSERA_K_STEPS=explain %tessera-opt --tessera-pipeline=target=sm_90a %t.rownorm16.mlir 2>&1 | FileCheck %s --check-prefix=FEWMACS16
// FEWMACS: remark: K step 32 -> 64: steps of 32 do 524288 multiply-adds per block, fewer than the 1048576 of target 'sm_90a'
// FEWMACS: tile.pipelined {{.*}} attributes {tile.k_step_from = 32 : i64}
// FEWMACS: tile.alloc {{.*}} : <4x128x64xbf16, shared>
// FEWMACS16: remark: K step 16 -> 64: shorter than two K steps of the MMA atom (16); steps of 32 do 524288
// Two such blocks per multiprocessor (gemm.mlir's 128x128 blocks left
// unmerged) keep their steps: deeper stages could cost one its place.
// RUN: env TESSERA_WIDEN=0 TESSERA_K_STEPS=explain %tessera-opt --tessera-pipeline=target=sm_90a %examples/gemm.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWOBLOCKS
// TWOBLOCKS: remark: K step 32 kept: a step of 16 would be less than two K steps of the MMA atom (16)
// Gemms on vector FMA keep their steps (f32 x f32 on sm_90a).
// RUN: env TESSERA_K_STEPS=explain %tessera-opt --tessera-pipeline=target=sm_90a %examples/zoo/linear_f32_nt.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=FMA

// ROWBIAS: %[[K:.*]] = tile.dim %arg0, 1
// ROWBIAS: tile.kernel {{.*}} threads = 256 attributes {tile.widened = array<i64: 4, 2>}
// ROWBIAS: %[[A:.*]] = tile.alloc : <128x32xbf16, shared>
// ROWBIAS: %[[B:.*]] = tile.alloc : <32x256xbf16, shared>
// ROWBIAS: %[[UB:.*]] = arith.ceildivui %[[K]], %c32
// ROWBIAS: tile.pipelined %[[IV:.*]] = %c0 to %[[UB]] step %c1 stages = 3 attributes {tile.k_step_from = 128 : i64}
// ROWBIAS: %[[C32:.*]] = arith.constant 32 : index
// ROWBIAS: %[[K0:.*]] = arith.muli %[[IV]], %[[C32]]
// ROWBIAS: tile.copy %arg0[%{{.*}}, %[[K0]]], %[[A]] : !tile.tensor<[M, K], bf16>, !tile.tile<128x32xbf16, shared>
// ROWBIAS: tile.copy %arg1[%[[K0]], %{{.*}}], %[[B]] : !tile.tensor<[K, N], bf16>, !tile.tile<32x256xbf16, shared>
// ROWBIAS: tile.gemm %[[A]], %[[B]], %{{.*}} : <128x32xbf16, shared>, <32x256xbf16, shared>, <128x256xf32, fragment>

// STAGES: tile.alloc : <128x64xbf16, shared>
// STAGES: tile.alloc : <64x256xbf16, shared>
// STAGES: tile.k_step_from = 128

// OFF: tile.alloc : <128x128xbf16, shared>
// OFF: tile.alloc : <128x256xbf16, shared>
// OFF-NOT: k_step_from

// SMALL: tile.alloc : <64x128xbf16, shared>
// SMALL: tile.alloc : <128x64xbf16, shared>
// SMALL-NOT: k_step_from

// FP8: remark: K step 128 kept: a gemm has 8-bit operands, which ran slower with shorter steps

// BATCHED: tile.k_step_from = 64
// BATCHED: tile.copy %arg0[{{.*}}], %{{.*}} : !tile.tensor<[Bt, M, K], bf16>, !tile.tile<128x32xbf16, shared>

// TT: remark: K step 64 kept: a gemm reads A with K along its rows (transpose_a)
// ATTN: remark: K step kept: a gemm in the loop clears its accumulator
// GEMM: remark: K step 32 kept: a step of 16 would be less than two K steps of the MMA atom (16)
// MOE: remark: K step 64 kept: steps of 32 would do 262144 multiply-adds per block, fewer than the 1048576 of target 'sm_90a'

// LONGER: %[[K:.*]] = tile.dim %arg0, 1
// LONGER: %[[A:.*]] = tile.alloc : <128x32xf16, shared>
// LONGER: %[[B:.*]] = tile.alloc : <32x256xf16, shared>
// LONGER: %[[UB:.*]] = arith.ceildivui %[[K]], %c32
// LONGER: tile.pipelined %[[IV:.*]] = %c0 to %[[UB]] step %c1 stages = 3 attributes {tile.k_step_from = 16 : i64}
// LONGER: %[[K0:.*]] = arith.muli %[[IV]], %c32
// LONGER: tile.copy %arg0[%{{.*}}, %[[K0]]], %[[A]]
// FLOOR: remark: K step 16 kept, shorter than 32 (two K steps of the MMA atom): the loop does not end at ceildiv(a tensor dimension, BK)
// OFF16: tile.alloc : <128x16xf16, shared>
// OFF16: tile.alloc : <16x128xf16, shared>
// FMA: remark: K step 32 kept: the gemms take vector FMA (no matrix atom for their types)
// SAMERANGE: %[[NK:.*]] = arith.divui %{{.*}}, %c128
// SAMERANGE: %[[C4:.*]] = arith.constant 4 : index
// SAMERANGE: %[[LB:.*]] = arith.muli %c0, %[[C4]]
// SAMERANGE: %[[UB:.*]] = arith.muli %[[NK]], %[[C4]]
// SAMERANGE: tile.pipelined %{{.*}} = %[[LB]] to %[[UB]] step %c1 stages = 3 attributes {tile.k_step_from = 128 : i64}
// OTHERK: remark: K step 16 kept, shorter than 32 (two K steps of the MMA atom): a copy's K dimension is not the one the loop's bound divides
// FROM1: remark: K step 16 kept, shorter than 32 (two K steps of the MMA atom): the loop does not start at 0
