// tile.widen below 1 is an error (widen_blocks.mlir).
tile.func @bad(%C: !tile.tensor<[M, N], f32>) {
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 128 attributes {tile.widen = 0} {
    %Cf = tile.alloc : !tile.tile<64x64xf32, fragment>
    tile.clear %Cf : !tile.tile<64x64xf32, fragment>
  }
  tile.return
}
