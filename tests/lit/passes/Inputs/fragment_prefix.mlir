// Fragments longer than the tile.parallel dims that index them: the region
// reads their first elements (a scale vector of 128 rows, one of [128, 1],
// read by a 64-row block). Y = X * s[i] * t[i, 0] * u[i], where u holds the
// row sums of W (a reduction's layout: the region's needs a conversion).
// X, Y: f32 [M, N]; s: f32 [R], t: f32 [R, 1], W: f32 [R, 32], R >= 128.
tile.func @fragment_prefix(%X: !tile.tensor<[M, N], f32>, %s: !tile.tensor<[R], f32>,
                           %t: !tile.tensor<[R, 1], f32>, %W: !tile.tensor<[R, 32], f32>,
                           %Y: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %m = tile.dim %X, 0 : !tile.tensor<[M, N], f32>
  %n = tile.dim %X, 1 : !tile.tensor<[M, N], f32>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c64 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %row = arith.muli %by, %c64 : index
    %col = arith.muli %bx, %c128 : index
    %xf = tile.alloc : !tile.tile<64x128xf32, fragment>
    %sf = tile.alloc : !tile.tile<128xf32, fragment>
    %tf = tile.alloc : !tile.tile<128x1xf32, fragment>
    %uf = tile.alloc : !tile.tile<128xf32, fragment>
    tile.copy %X[%row, %col], %xf : !tile.tensor<[M, N], f32>, !tile.tile<64x128xf32, fragment>
    tile.copy %s[%c0], %sf : !tile.tensor<[R], f32>, !tile.tile<128xf32, fragment>
    tile.copy %t[%c0, %c0], %tf : !tile.tensor<[R, 1], f32>, !tile.tile<128x1xf32, fragment>
    %wf = tile.alloc : !tile.tile<128x32xf32, fragment>
    tile.copy %W[%c0, %c0], %wf : !tile.tensor<[R, 32], f32>, !tile.tile<128x32xf32, fragment>
    tile.reduce sum %wf, %uf dim = 1 : !tile.tile<128x32xf32, fragment>, !tile.tile<128xf32, fragment>
    tile.parallel (%i, %j) in [64, 128] {
      %v = tile.load %xf[%i, %j] : !tile.tile<64x128xf32, fragment>
      %a = tile.load %sf[%i] : !tile.tile<128xf32, fragment>
      %b = tile.load %tf[%i, %c0] : !tile.tile<128x1xf32, fragment>
      %u = tile.load %uf[%i] : !tile.tile<128xf32, fragment>
      %ab = arith.mulf %a, %b : f32
      %abu = arith.mulf %ab, %u : f32
      %r = arith.mulf %v, %abu : f32
      tile.store %r, %xf[%i, %j] : !tile.tile<64x128xf32, fragment>
    }
    tile.copy %xf, %Y[%row, %col] : !tile.tile<64x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}
