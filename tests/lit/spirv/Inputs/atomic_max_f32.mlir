tile.func @atomic_max_f32(%X: !tile.tensor<[M], f32>, %R: !tile.tensor<[16], f32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %m = tile.dim %X, 0 : !tile.tensor<[M], f32>
  %g = arith.ceildivui %m, %c16 : index
  tile.kernel blocks(%b) in (%g) threads = 32 {
    %x0 = arith.muli %b, %c16 : index
    %t = tile.alloc : !tile.tile<16xf32, fragment>
    tile.copy %X[%x0], %t : !tile.tensor<[M], f32>, !tile.tile<16xf32, fragment>
    tile.atomic max %t, %R[%c0] : !tile.tile<16xf32, fragment>, !tile.tensor<[16], f32>
  }
  tile.return
}
