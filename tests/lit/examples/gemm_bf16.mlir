// Parse, verify and print examples/gemm_bf16.mlir; the printed form must parse
// back to the same text (custom and generic forms), and keep its key ops.
// RUN: %tessera-opt %examples/gemm_bf16.mlir -o %t.1.mlir
// RUN: %tessera-opt %t.1.mlir -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: %tessera-opt %t.1.mlir --mlir-print-op-generic | %tessera-opt -o %t.3.mlir
// RUN: diff %t.1.mlir %t.3.mlir
// RUN: FileCheck %s --input-file=%t.1.mlir

// CHECK-LABEL: tile.func @gemm_bf16(
// CHECK-SAME: !tile.tensor<[M, K], bf16>, %{{.*}}: !tile.tensor<[K, N], bf16>, %{{.*}}: !tile.tensor<[M, N], bf16>)
// CHECK: tile.kernel blocks(%{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}}) threads = 128
// CHECK: tile.alloc : <128x32xbf16, shared>
// CHECK: tile.alloc : <32x128xbf16, shared>
// CHECK: tile.alloc : <128x128xf32, fragment>
// CHECK: tile.clear
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} stages = 3
// CHECK: tile.copy {{.*}} : !tile.tensor<[M, K], bf16>, !tile.tile<128x32xbf16, shared>
// CHECK: tile.copy {{.*}} : !tile.tensor<[K, N], bf16>, !tile.tile<32x128xbf16, shared>
// CHECK: tile.gemm {{.*}} : <128x32xbf16, shared>, <32x128xbf16, shared>, <128x128xf32, fragment>
// CHECK: tile.copy {{.*}} : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], bf16>
// CHECK: tile.return
