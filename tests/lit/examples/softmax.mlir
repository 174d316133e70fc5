// Parse, verify and print examples/softmax.mlir; the printed form must parse
// back to the same text (custom and generic forms), and keep its key ops.
// RUN: %tessera-opt %examples/softmax.mlir -o %t.1.mlir
// RUN: %tessera-opt %t.1.mlir -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: %tessera-opt %t.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.3.mlir
// RUN: diff %t.1.mlir %t.3.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// CHECK-LABEL: tile.func @softmax(
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: tile.fill %{{.*}}, %[[NEG_INF]]
// CHECK: scf.for
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in [4, 1024]
// CHECK: arith.cmpi ult
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[NEG_INF]] : f32
// CHECK: tile.reduce max {{.*}} dim = 1 accumulate
// CHECK: math.exp
// CHECK: tile.reduce sum {{.*}} dim = 1 accumulate
// CHECK: scf.for
// CHECK: arith.divf
// CHECK: tile.copy {{.*}} : !tile.tile<4x1024xf32, fragment>, !tile.tensor<[M, N], f32>
