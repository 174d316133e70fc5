// Y = C / ||C[m, :]|| per 128-column block (C = A B, bf16 in and out): the
// accumulator's rows reduced in the epilogue (sum of squares, rsqrt).
tile.func @gemm_rownorm_bf16(%A: !tile.tensor<[M, K], bf16>, %B: !tile.tensor<[K, N], bf16>,
                             %Y: !tile.tensor<[M, N], bf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %eps = arith.constant 1.0e-6 : f32
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], bf16>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], bf16>
  %n = tile.dim %B, 1 : !tile.tensor<[K, N], bf16>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c128 : index
  %nk = arith.ceildivui %k, %c32 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 256 {
    %As = tile.alloc : !tile.tile<128x32xbf16, shared>
    %Bs = tile.alloc : !tile.tile<32x128xbf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    %Sq = tile.alloc : !tile.tile<128x128xf32, fragment>
    %ss = tile.alloc : !tile.tile<128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 4 {
      %k0 = arith.muli %kt, %c32 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], bf16>, !tile.tile<128x32xbf16, shared>
      tile.copy %B[%k0, %col], %Bs : !tile.tensor<[K, N], bf16>, !tile.tile<32x128xbf16, shared>
      tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xbf16, shared>, !tile.tile<32x128xbf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    tile.parallel (%i, %j) in [128, 128] {
      %v = tile.load %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
      %q = arith.mulf %v, %v : f32
      tile.store %q, %Sq[%i, %j] : !tile.tile<128x128xf32, fragment>
    }
    tile.reduce sum %Sq, %ss dim = 1 : !tile.tile<128x128xf32, fragment>, !tile.tile<128xf32, fragment>
    tile.parallel (%i, %j) in [128, 128] {
      %v = tile.load %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
      %s = tile.load %ss[%i] : !tile.tile<128xf32, fragment>
      %se = arith.addf %s, %eps : f32
      %r = math.rsqrt %se : f32
      %o = arith.mulf %v, %r : f32
      tile.store %o, %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %Cf, %Y[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], bf16>
  }
  tile.return
}
