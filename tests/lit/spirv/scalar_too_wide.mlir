// A Vulkan launch passes every slot as one 32-bit push-constant word: a
// 64-bit scalar argument is a compile error at the argument, not a silently
// truncated value.
// REQUIRES: tessera, plugin-spirv
// RUN: not %tessera compile %s --no-cache --target spirv64-unknown-vulkan1.3:lavapipe -o %t.tsb 2>&1 | FileCheck %s
// CHECK: scalar_too_wide.mlir:7:{{[0-9]+}}: error: a kernel argument of type 'i64' does not fit the 32-bit push-constant word a Vulkan launch passes per slot
tile.func @add_i64(%X: !tile.tensor<[N], f32>, %s: i64) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = tile.dim %X, 0 : !tile.tensor<[N], f32>
  %g = arith.ceildivui %n, %c64 : index
  tile.kernel blocks(%bx) in (%g) threads = 64 {
    %t = tile.alloc : !tile.tile<64xf32, fragment>
    %o = arith.muli %bx, %c64 : index
    tile.copy %X[%o], %t : !tile.tensor<[N], f32>, !tile.tile<64xf32, fragment>
    tile.copy %t, %X[%o] : !tile.tile<64xf32, fragment>, !tile.tensor<[N], f32>
  }
  tile.return
}
