// Y = X * W^T + bias[n]: a linear layer whose weight is stored the way
// frameworks store it, W: [N, K] (out_features x in_features), read through
// `tile.gemm ... transpose_b` with no transposed copy.
// X: f32 [M, K], W: f32 [N, K], bias: f32 [N], Y: f32 [M, N].
// Grid (ceil(N / 128), ceil(M / 128)), 128 threads. Tiles: 128x128 output,
// X and W slices of 128x32 (K in steps of 32, both K-major, 16 KiB each per
// stage), a 3-stage pipeline.
tile.func @linear_f32_nt(%X: !tile.tensor<[M, K], f32>, %W: !tile.tensor<[N, K], f32>,
                         %bias: !tile.tensor<[N], f32>,
                         %Y: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %m = tile.dim %X, 0 : !tile.tensor<[M, K], f32>
  %k = tile.dim %X, 1 : !tile.tensor<[M, K], f32>
  %n = tile.dim %W, 0 : !tile.tensor<[N, K], f32>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c128 : index
  %nk = arith.ceildivui %k, %c32 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %Xs = tile.alloc : !tile.tile<128x32xf32, shared>
    %Ws = tile.alloc : !tile.tile<128x32xf32, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 3 {
      %k0 = arith.muli %kt, %c32 : index
      tile.copy %X[%row, %k0], %Xs : !tile.tensor<[M, K], f32>, !tile.tile<128x32xf32, shared>
      tile.copy %W[%col, %k0], %Ws : !tile.tensor<[N, K], f32>, !tile.tile<128x32xf32, shared>
      tile.gemm %Xs, %Ws, %Cf transpose_b : !tile.tile<128x32xf32, shared>, !tile.tile<128x32xf32, shared>, !tile.tile<128x128xf32, fragment>
    }
    %bf = tile.alloc : !tile.tile<128xf32, fragment>
    tile.copy %bias[%col], %bf : !tile.tensor<[N], f32>, !tile.tile<128xf32, fragment>
    tile.parallel (%i, %j) in [128, 128] {
      %v = tile.load %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
      %b = tile.load %bf[%j] : !tile.tile<128xf32, fragment>
      %r = arith.addf %v, %b : f32
      tile.store %r, %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %Cf, %Y[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}
