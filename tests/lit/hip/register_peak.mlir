// The register budget holds where the most fragments are live, not for the
// sum of all of them: a fragment's registers are free between its last read
// and the next op that overwrites it whole. Here three 128x128 f32 fragments
// (128 registers each on 128 threads, 384 in all) are computed one from the
// other, each dead once the next is written, so 128 registers are live at
// any point and the kernel compiles for gfx1201 (256 per thread).
// Inputs/registers_live_together.mlir reads all three in one op: the error
// names them and the op where they are live together.
// REQUIRES: tessera, plugin-hip
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %s --target amdgcn-amd-amdhsa:gfx1201 --no-cache -o %t/ok.tsb
// RUN: not %tessera compile %S/Inputs/registers_live_together.mlir --target amdgcn-amd-amdhsa:gfx1201 --no-cache -o %t/bad.tsb 2>&1 | FileCheck %s

// CHECK: registers_live_together.mlir:6:3: error: the kernel's fragments need 384 registers per thread, more than the 256 of target 'gfx1201'
// CHECK-NEXT: registers_live_together.mlir:7:10: note: 128x128xf32 fragment: 128 registers
// CHECK-NEXT: registers_live_together.mlir:8:10: note: 128x128xf32 fragment: 128 registers
// CHECK-NEXT: registers_live_together.mlir:9:10: note: 128x128xf32 fragment: 128 registers
// CHECK-NEXT: registers_live_together.mlir:12:5: note: all of them are live across this op

tile.func @one_after_another(%X: !tile.tensor<[M, 128], f32>, %Y: !tile.tensor<[M, 128], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : !tile.tile<128x128xf32, fragment>
    %b = tile.alloc : !tile.tile<128x128xf32, fragment>
    %c = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.copy %X[%c0, %c0], %a : !tile.tensor<[M, 128], f32>, !tile.tile<128x128xf32, fragment>
    tile.parallel (%i, %j) in [128, 128] {
      %v = tile.load %a[%i, %j] : !tile.tile<128x128xf32, fragment>
      %w = arith.mulf %v, %v : f32
      tile.store %w, %b[%i, %j] : !tile.tile<128x128xf32, fragment>
    }
    tile.parallel (%i, %j) in [128, 128] {
      %v = tile.load %b[%i, %j] : !tile.tile<128x128xf32, fragment>
      %w = arith.addf %v, %v : f32
      tile.store %w, %c[%i, %j] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %c, %Y[%c0, %c0] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, 128], f32>
  }
  tile.return
}
