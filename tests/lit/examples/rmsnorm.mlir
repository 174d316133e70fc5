// Parse, verify and print examples/rmsnorm.mlir; the printed form must parse
// back to the same text (custom and generic forms), and keep its key ops.
// RUN: %tessera-opt %examples/rmsnorm.mlir -o %t.1.mlir
// RUN: %tessera-opt %t.1.mlir -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: %tessera-opt %t.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.3.mlir
// RUN: diff %t.1.mlir %t.3.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// CHECK-LABEL: tile.func @rmsnorm(
// CHECK-SAME: %{{.*}}: f32)
// CHECK: scf.for
// CHECK: arith.mulf
// CHECK: tile.reduce sum {{.*}} dim = 1 accumulate
// CHECK: tile.parallel (%{{.*}}) in [4]
// CHECK: math.rsqrt
// CHECK: scf.for
// CHECK: tile.copy {{.*}} : !tile.tensor<[N], f32>, !tile.tile<1024xf32, fragment>
// CHECK: tile.copy {{.*}} : !tile.tile<4x1024xf32, fragment>, !tile.tensor<[M, N], f32>
