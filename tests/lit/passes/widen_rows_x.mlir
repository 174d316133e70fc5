// tessera-widen-blocks merges along an axis that a gemm's C rows follow as
// well as columns: attention kernels whose grid x walks 64-row query blocks
// (multi-query head dim 64 on 128 threads; head dim 256 on 256 threads)
// become 128-row blocks on sm_90a (widen_tile_m = 128) that load each K / V
// tile once for both halves. Every row-following tile doubles (Q, S, P, the
// accumulator, the row max and sum vectors, the parallel row indices), the
// query offset becomes bq * 128 and the grid's x halves. A row vector costs
// a thread 4 * rows / threads words (two rows per 64 of a warpgroup), so the
// merged fragments fit; the merged rows get warpgroups of their own (the
// multi-query kernel: 256 threads, two warpgroups of 64 rows sharing each
// K / V tile). Causal kernels whose key loop ends at a bound computed from
// the query block keep their blocks, and so does a one-dimensional grid of
// row blocks (the back-to-back mlp, whose only axis would halve with its
// parallelism).
// TESSERA_WIDEN=xcols merges along x only where columns follow it.
// RUN: %tessera-opt --tessera-widen-blocks=target=sm_90a %examples/zoo/attn_mqa_d64_bf16.mlir | FileCheck %s --check-prefix=MQA
// RUN: %tessera-opt --tessera-widen-blocks=target=sm_90a %examples/zoo/attn_fwd_d256_cross_f16.mlir | FileCheck %s --check-prefix=D256
// RUN: env TESSERA_WIDEN=xcols %tessera-opt --tessera-widen-blocks=target=sm_90a %examples/zoo/attn_mqa_d64_bf16.mlir | FileCheck %s --check-prefix=NONE
// RUN: %tessera-opt --tessera-widen-blocks=target=sm_90a %examples/zoo/attn_fwd_d64_causal_bf16.mlir | FileCheck %s --check-prefix=NONE
// RUN: env TESSERA_WIDEN=explain %tessera-opt --tessera-widen-blocks=target=sm_90a %examples/zoo/attn_sliding_window_d64.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=WHY
// RUN: env TESSERA_WIDEN=explain %tessera-opt --tessera-widen-blocks=target=sm_90a %examples/zoo/mlp_b2b_bf16.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=MLP
// MQA: tile.kernel blocks(%[[BQ:[a-z0-9]+]], %{{.*}}, %{{.*}}) in ({{.*}}) threads = 256 attributes {tile.widened = array<i64: 2, 1>}
// MQA: %[[C128:.*]] = arith.constant 128 : index
// MQA: arith.muli %[[BQ]], %[[C128]]
// MQA: tile.alloc : <128x64xbf16, shared>
// MQA: tile.alloc : <64x64xbf16, shared>
// MQA: tile.alloc : <128x64xf32, fragment>
// MQA: tile.alloc : <128xf32, fragment>
// MQA: tile.parallel (%{{.*}}, %{{.*}}) in [128, 64]
// D256: tile.kernel {{.*}} threads = 256 attributes {tile.widened = array<i64: 2, 1>}
// D256: tile.alloc : <128x256xf16, shared>
// D256: tile.alloc : <32x256xf16, shared>
// D256: tile.alloc : <128x256xf32, fragment>
// NONE-NOT: tile.widened
// WHY: remark: blocks not merged along x: a column value used by arith.ceildivui
// MLP: remark: blocks not merged along x: a one-dimensional grid of row blocks keeps its blocks
