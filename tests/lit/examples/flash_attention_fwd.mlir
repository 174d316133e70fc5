// Parse, verify and print examples/flash_attention_fwd.mlir; the printed form must parse
// back to the same text (custom and generic forms), and keep its key ops.
// RUN: %tessera-opt %examples/flash_attention_fwd.mlir -o %t.1.mlir
// RUN: %tessera-opt %t.1.mlir -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: %tessera-opt %t.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.3.mlir
// RUN: diff %t.1.mlir %t.3.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// CHECK-LABEL: tile.func @flash_attention_fwd(
// CHECK-SAME: !tile.tensor<[B, H, S, 128], f16>
// CHECK-SAME: %{{.*}}: i32, %{{.*}}: f32)
// CHECK: tile.kernel blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}}, %{{.*}}) threads = 128
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} : !tile.tensor<[B, H, S, 128], f16>, !tile.tile<64x128xf16, shared>
// CHECK: tile.pipelined {{.*}} stages = 2
// CHECK: tile.gemm {{.*}} transpose_b clear : <64x128xf16, shared>, <64x128xf16, shared>, <64x64xf32, fragment>
// CHECK: arith.cmpi ugt
// CHECK: tile.reduce max {{.*}} dim = 1 accumulate
// CHECK: math.exp
// CHECK: tile.reduce sum {{.*}} dim = 1 accumulate
// CHECK: tile.copy {{.*}} : !tile.tile<64x64xf32, fragment>, !tile.tile<64x64xf16, fragment>
// CHECK: tile.gemm {{.*}} : <64x64xf16, fragment>, <64x128xf16, shared>, <64x128xf32, fragment>
// CHECK: }
// CHECK: arith.divf
// CHECK: tile.copy {{.*}} : !tile.tile<64x128xf32, fragment>, !tile.tensor<[B, H, S, 128], f16>
