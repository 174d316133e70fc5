// C = A B + R accumulated in f16 (an f16 accumulator tile: tensor cores
// with f16 accumulators), 128x128 blocks, K step 32.
tile.func @gemm_f16acc_residual(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
                             %R: !tile.tensor<[M, N], f16>, %C: !tile.tensor<[M, N], f16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], f16>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], f16>
  %n = tile.dim %B, 1 : !tile.tensor<[K, N], f16>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c128 : index
  %nk = arith.ceildivui %k, %c32 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 256 {
    %As = tile.alloc : !tile.tile<128x32xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x128xf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf16, fragment>
    %Rf = tile.alloc : !tile.tile<128x128xf16, fragment>
    tile.clear %Cf : !tile.tile<128x128xf16, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 4 {
      %k0 = arith.muli %kt, %c32 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x32xf16, shared>
      tile.copy %B[%k0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<32x128xf16, shared>
      tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xf16, shared>, !tile.tile<32x128xf16, shared>, !tile.tile<128x128xf16, fragment>
    }
    tile.copy %R[%row, %col], %Rf : !tile.tensor<[M, N], f16>, !tile.tile<128x128xf16, fragment>
    tile.parallel (%i, %j) in [128, 128] {
      %v = tile.load %Cf[%i, %j] : !tile.tile<128x128xf16, fragment>
      %r = tile.load %Rf[%i, %j] : !tile.tile<128x128xf16, fragment>
      %x = arith.addf %v, %r : f16
      tile.store %x, %Cf[%i, %j] : !tile.tile<128x128xf16, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf16, fragment>, !tile.tensor<[M, N], f16>
  }
  tile.return
}

