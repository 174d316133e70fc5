// tile.split_threads below 1 is an error (split_threads.mlir).
tile.func @bad(%C: !tile.tensor<[M, N], f32>) {
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 128 attributes {tile.split_threads = 0} {
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
  }
  tile.return
}
