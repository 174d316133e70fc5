// Parse, verify and print examples/gemm_f32.mlir; the printed form must parse
// back to the same text (custom and generic forms), and keep its key ops.
// RUN: %tessera-opt %examples/gemm_f32.mlir -o %t.1.mlir
// RUN: %tessera-opt %t.1.mlir -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: %tessera-opt %t.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.3.mlir
// RUN: diff %t.1.mlir %t.3.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// CHECK-LABEL: tile.func @gemm_f32(
// CHECK-SAME: !tile.tensor<[M, K], f32>
// CHECK: tile.pipelined {{.*}} stages = 2
// CHECK: tile.gemm {{.*}} : <64x32xf32, shared>, <32x64xf32, shared>, <64x64xf32, fragment>
// CHECK: tile.copy {{.*}} : !tile.tile<64x64xf32, fragment>, !tile.tensor<[M, N], f32>
