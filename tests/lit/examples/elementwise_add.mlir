// Parse, verify and print examples/elementwise_add.mlir; the printed form must parse
// back to the same text (custom and generic forms), and keep its key ops.
// RUN: %tessera-opt %examples/elementwise_add.mlir -o %t.1.mlir
// RUN: %tessera-opt %t.1.mlir -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: %tessera-opt %t.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.3.mlir
// RUN: diff %t.1.mlir %t.3.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// CHECK-LABEL: tile.func @elementwise_add(
// CHECK: tile.kernel blocks(%{{.*}}) in (%{{.*}}) threads = 256
// CHECK-COUNT-2: tile.copy {{.*}} : !tile.tensor<[N], f32>, !tile.tile<1024xf32, fragment>
// CHECK: tile.parallel (%{{.*}}) in [1024]
// CHECK: arith.addf
// CHECK: tile.copy {{.*}} : !tile.tile<1024xf32, fragment>, !tile.tensor<[N], f32>
