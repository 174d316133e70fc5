tile.func @f(%A: !tile.tensor<[N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 32 {
    %t = tile.alloc : !tile.tile<16xf32, fragment>
    tile.copy %A[%c0, %c0], %t : !tile.tensor<[N], f32>, !tile.tile<16xf32, fragment>
  }
  tile.return
}
