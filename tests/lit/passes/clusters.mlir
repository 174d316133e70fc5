// Paired blocks (Clusters.cpp, decided by tessera-pipeline-loops): on
// sm_90a (cluster_multicast = 2) gemm.mlir's pipeline has a stage to spare
// (min_pipeline_stages took 3 to 4), so its blocks are paired: tile.cluster =
// 2, the grid's y size rounded up to even, the result's write guarded by
// by < gy, and copies two iterations ahead (prologue of 2, refill of i + 2).
// A pipeline as deep as the program asked (zoo colbias_gelu: 3 of 3) is not
// paired, nor is anything on a target without clusters, nor a program that
// says tile.cluster = 1. tile.cluster = 2 pairs regardless; other values
// and clusters on a target without them are errors.
// (TESSERA_WIDEN=0 on sm_90a: the blocks as the program wrote them; merged
// blocks are tested in passes/widen_blocks.mlir.)
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/gemm.mlir | FileCheck %s
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/gemm_bf16_128x128_colbias_gelu.mlir | FileCheck %s --check-prefix=NONE
// RUN: %tessera-opt --tessera-pipeline=gfx942 %examples/gemm.mlir | FileCheck %s --check-prefix=NONE
// RUN: %tessera-opt --tessera-pipeline=sm_80 %examples/gemm.mlir | FileCheck %s --check-prefix=NONE
// RUN: env TESSERA_WIDEN=0 TESSERA_CLUSTERS=0 %tessera-opt --tessera-pipeline=sm_90a %examples/gemm.mlir | FileCheck %s --check-prefix=NONE
// RUN: %tessera-opt --tessera-pipeline-loops=target=sm_90a %s --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=OWN

// CHECK: arith.ceildivui %{{.*}}, %c128
// CHECK: %[[GY:.*]] = arith.ceildivui %{{.*}}, %c128
// CHECK: %[[HALF:.*]] = arith.ceildivui %[[GY]], %c2
// CHECK: %[[EVEN:.*]] = arith.muli %[[HALF]], %c2
// CHECK: tile.kernel blocks(%{{.*}}, %[[BY:.*]]) in (%{{.*}}, %[[EVEN]]) threads = 128 attributes {tile.cluster = 2 : i64, tile.cluster_rounded,
// CHECK: %[[REAL:.*]] = arith.cmpi ult, %[[BY]], %[[GY]]
// CHECK: tile.commit_group
// CHECK: tile.commit_group
// CHECK-NEXT: scf.for
// CHECK: tile.wait_group pending = 1
// CHECK: arith.addi %{{.*}}, %c2
// CHECK: tile.num_stages = 4 : i64, tile.requested_stages = 3 : i64
// CHECK: scf.if %[[REAL]] {
// CHECK-NEXT: tile.copy
// NONE-NOT: tile.cluster

// The program's tile.cluster = 1 stays; blocks unpaired.
// OWN: tile.cluster = 1 : i64
// OWN-NOT: tile.cluster_rounded
tile.func @own(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
               %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 128 attributes {tile.cluster = 1} {
    %As = tile.alloc : !tile.tile<64x64xf16, shared>
    %Bs = tile.alloc : !tile.tile<64x64xf16, shared>
    %Cf = tile.alloc : !tile.tile<64x64xf32, fragment>
    tile.clear %Cf : !tile.tile<64x64xf32, fragment>
    %row = arith.muli %by, %c64 : index
    %col = arith.muli %bx, %c64 : index
    tile.pipelined %kt = %c0 to %c4 step %c1 stages = 2 {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], f16>, !tile.tile<64x64xf16, shared>
      tile.copy %B[%k0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<64x64xf16, shared>
      tile.gemm %As, %Bs, %Cf : !tile.tile<64x64xf16, shared>, !tile.tile<64x64xf16, shared>, !tile.tile<64x64xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<64x64xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// -----

tile.func @bad(%A: !tile.tensor<[M], f32>) {
  %c4 = arith.constant 4 : index
  // expected-error @below {{tile.cluster must be 1 or 2, got 3}}
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 64 attributes {tile.cluster = 3} {
  }
  tile.return
}

// -----

tile.func @flat(%A: !tile.tensor<[M], f32>) {
  %c4 = arith.constant 4 : index
  // expected-error @below {{tile.cluster = 2 needs a grid of two or three dimensions}}
  tile.kernel blocks(%bx) in (%c4) threads = 64 attributes {tile.cluster = 2} {
  }
  tile.return
}
