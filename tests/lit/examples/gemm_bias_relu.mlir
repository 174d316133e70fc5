// Parse, verify and print examples/gemm_bias_relu.mlir; the printed form must
// parse back to the same text (custom and generic forms), and keep its key ops.
// RUN: %tessera-opt %examples/gemm_bias_relu.mlir -o %t.1.mlir
// RUN: %tessera-opt %t.1.mlir -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: %tessera-opt %t.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.3.mlir
// RUN: diff %t.1.mlir %t.3.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// CHECK-LABEL: tile.func @gemm_bias_relu(
// CHECK-SAME: !tile.tensor<[N], f16>
// CHECK: tile.gemm {{.*}} <128x128xf32, fragment>
// CHECK: tile.copy {{.*}} : !tile.tensor<[N], f16>, !tile.tile<128xf32, fragment>
// CHECK: tile.parallel
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: tile.copy {{.*}} : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f16>
