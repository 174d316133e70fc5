// Not a zoo kernel: Y = f8E4M3FN(X) through a fragment, the narrowing
// conversion tile.copy does (round to nearest even, saturate to +-448, NaN
// stays NaN). The zoo test feeds it edge cases.
tile.func @cast_f32_fp8(%X: !tile.tensor<[N], f32>, %Y: !tile.tensor<[N], f8E4M3FN>) {
  %c64 = arith.constant 64 : index
  %n = tile.dim %X, 0 : !tile.tensor<[N], f32>
  %grid = arith.ceildivui %n, %c64 : index
  tile.kernel blocks(%bx) in (%grid) threads = 64 {
    %i0 = arith.muli %bx, %c64 : index
    %x = tile.alloc : !tile.tile<64xf32, fragment>
    tile.copy %X[%i0], %x : !tile.tensor<[N], f32>, !tile.tile<64xf32, fragment>
    tile.copy %x, %Y[%i0] : !tile.tile<64xf32, fragment>, !tile.tensor<[N], f8E4M3FN>
  }
  tile.return
}
