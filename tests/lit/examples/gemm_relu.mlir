// Parse, verify and print examples/gemm_relu.mlir; the printed form must parse
// back to the same text (custom and generic forms), and keep its key ops.
// RUN: %tessera-opt %examples/gemm_relu.mlir -o %t.1.mlir
// RUN: %tessera-opt %t.1.mlir -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: %tessera-opt %t.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.3.mlir
// RUN: diff %t.1.mlir %t.3.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// CHECK-LABEL: tile.func @gemm_relu(
// CHECK: tile.pipelined {{.*}} stages = 3
// CHECK: tile.gemm {{.*}} <128x128xf32, fragment>
// CHECK: }
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in [128, 128]
// CHECK-NEXT: %[[V:.*]] = tile.load %[[C:.*]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[V]], %{{.*}} : f32
// CHECK-NEXT: tile.store %[[R]], %[[C]][%[[I]], %[[J]]]
// CHECK: tile.copy %[[C]], {{.*}} : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f16>
