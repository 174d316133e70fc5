// Conversion and reduction scratch placed in tiles that are dead there
// (tessera-plan-shared's tile.scratch_offset), checked on the zoo's GQA
// attention for gfx942 (64 KiB of LDS: Q 32 KiB + K 16 KiB + V 16 KiB fill
// it at one stage; the S -> P conversion goes into K's buffer, which the
// loop rewrites before reading again; the row reductions need no scratch,
// their layout keeps a row within one warp), and the negative cases: V
// (read by the P*V gemm after the conversion) and Q (live after).
// RUN: %tessera-opt --tessera-pipeline=gfx942 %examples/zoo/attn_gqa_d128_causal.mlir | FileCheck %s
// RUN: %tessera compile %examples/zoo/attn_gqa_d128_causal.mlir --target amdgcn-amd-amdhsa:gfx942 -o %t.tsb
// RUN: %tessera compile %examples/zoo/attn_fwd_d256_cross_f16.mlir --target amdgcn-amd-amdhsa:gfx942 -o %t2.tsb

// CHECK: tile.shared_bytes = 65536
// CHECK-DAG: %[[Q:.*]] = tile.alloc {offset = [[QOFF:[0-9]+]] : i64{{.*}} : <128x128xf16, shared
// CHECK-DAG: %[[K:.*]] = tile.alloc {offset = [[KOFF:[0-9]+]] : i64{{.*}} : <64x128xf16, shared
// CHECK: scf.for
// CHECK: tile.gemm %[[Q]], %[[K]]
// CHECK: tile.reduce max
// CHECK-NOT: tile.scratch_offset
// CHECK: tile.reduce sum
// CHECK-NOT: tile.scratch_offset
// CHECK: tile.copy {{.*}}tile.scratch_offset = [[KOFF]] : i64
// CHECK: tile.gemm
// CHECK: tile.num_stages = 1
