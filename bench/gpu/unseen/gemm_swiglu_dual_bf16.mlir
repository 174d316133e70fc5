// Y = silu(X Wg) * (X Wu): two GEMMs sharing the X tile, bf16 in and out,
// 128x128 blocks, K step 64, weights [K, N].
tile.func @gemm_swiglu_dual_bf16(%X: !tile.tensor<[M, K], bf16>, %Wg: !tile.tensor<[K, N], bf16>,
                                 %Wu: !tile.tensor<[K, N], bf16>, %Y: !tile.tensor<[M, N], bf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant 1.0 : f32
  %m = tile.dim %X, 0 : !tile.tensor<[M, K], bf16>
  %k = tile.dim %X, 1 : !tile.tensor<[M, K], bf16>
  %n = tile.dim %Wg, 1 : !tile.tensor<[K, N], bf16>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c128 : index
  %nk = arith.ceildivui %k, %c64 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 256 {
    %Xs = tile.alloc : !tile.tile<128x64xbf16, shared>
    %Gs = tile.alloc : !tile.tile<64x128xbf16, shared>
    %Us = tile.alloc : !tile.tile<64x128xbf16, shared>
    %Gf = tile.alloc : !tile.tile<128x128xf32, fragment>
    %Uf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Gf : !tile.tile<128x128xf32, fragment>
    tile.clear %Uf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 3 {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %X[%row, %k0], %Xs : !tile.tensor<[M, K], bf16>, !tile.tile<128x64xbf16, shared>
      tile.copy %Wg[%k0, %col], %Gs : !tile.tensor<[K, N], bf16>, !tile.tile<64x128xbf16, shared>
      tile.copy %Wu[%k0, %col], %Us : !tile.tensor<[K, N], bf16>, !tile.tile<64x128xbf16, shared>
      tile.gemm %Xs, %Gs, %Gf : !tile.tile<128x64xbf16, shared>, !tile.tile<64x128xbf16, shared>, !tile.tile<128x128xf32, fragment>
      tile.gemm %Xs, %Us, %Uf : !tile.tile<128x64xbf16, shared>, !tile.tile<64x128xbf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    tile.parallel (%i, %j) in [128, 128] {
      %g = tile.load %Gf[%i, %j] : !tile.tile<128x128xf32, fragment>
      %u = tile.load %Uf[%i, %j] : !tile.tile<128x128xf32, fragment>
      %ng = arith.negf %g : f32
      %e = math.exp %ng fastmath<afn> : f32
      %d = arith.addf %e, %one : f32
      %s = arith.divf %g, %d fastmath<arcp> : f32
      %y = arith.mulf %s, %u : f32
      tile.store %y, %Gf[%i, %j] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %Gf, %Y[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], bf16>
  }
  tile.return
}
