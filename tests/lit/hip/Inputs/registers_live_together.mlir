// Three 128x128 f32 fragments on 128 threads (128 registers each) all read
// by the last op: 384 registers live at once (register_peak.mlir).
tile.func @live_together(%X: !tile.tensor<[M, 128], f32>, %Y: !tile.tensor<[M, 128], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : !tile.tile<128x128xf32, fragment>
    %b = tile.alloc : !tile.tile<128x128xf32, fragment>
    %c = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.copy %X[%c0, %c0], %a : !tile.tensor<[M, 128], f32>, !tile.tile<128x128xf32, fragment>
    tile.copy %Y[%c0, %c0], %b : !tile.tensor<[M, 128], f32>, !tile.tile<128x128xf32, fragment>
    tile.copy %X[%c0, %c0], %c : !tile.tensor<[M, 128], f32>, !tile.tile<128x128xf32, fragment>
    tile.parallel (%i, %j) in [128, 128] {
      %u = tile.load %a[%i, %j] : !tile.tile<128x128xf32, fragment>
      %v = tile.load %b[%i, %j] : !tile.tile<128x128xf32, fragment>
      %w = tile.load %c[%i, %j] : !tile.tile<128x128xf32, fragment>
      %s = arith.addf %u, %v : f32
      %t = arith.addf %s, %w : f32
      tile.store %t, %a[%i, %j] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %a, %Y[%c0, %c0] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, 128], f32>
  }
  tile.return
}
