// Two f16 GEMMs over the same A whose f32 accumulators are multiplied, then
// exp(-|C1 * C2| / 8) written out and summed along rows into R by atomics
// (the random multi family's "gemm2 mul" shape, minimized).
tile.func @two_accumulators(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>, %B2: !tile.tensor<[K, N], f16>, %E: !tile.tensor<[M, N], f32>, %R: !tile.tensor<[M], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %neg_eighth = arith.constant -1.250000e-01 : f32
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], f16>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], f16>
  %n = tile.dim %B, 1 : !tile.tensor<[K, N], f16>
  %gx = arith.ceildivui %n, %c16 : index
  %gy = arith.ceildivui %m, %c16 : index
  %nk = arith.ceildivui %k, %c16 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 32 {
    %As = tile.alloc : !tile.tile<16x16xf16, shared>
    %Bs = tile.alloc : !tile.tile<16x16xf16, shared>
    %B2s = tile.alloc : !tile.tile<16x16xf16, shared>
    %C1 = tile.alloc : !tile.tile<16x16xf32, fragment>
    %C2 = tile.alloc : !tile.tile<16x16xf32, fragment>
    tile.clear %C1 : !tile.tile<16x16xf32, fragment>
    tile.clear %C2 : !tile.tile<16x16xf32, fragment>
    %row = arith.muli %by, %c16 : index
    %col = arith.muli %bx, %c16 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 1 {
      %k0 = arith.muli %kt, %c16 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], f16>, !tile.tile<16x16xf16, shared>
      tile.copy %B[%k0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<16x16xf16, shared>
      tile.copy %B2[%k0, %col], %B2s : !tile.tensor<[K, N], f16>, !tile.tile<16x16xf16, shared>
      tile.gemm %As, %Bs, %C1 : !tile.tile<16x16xf16, shared>, !tile.tile<16x16xf16, shared>, !tile.tile<16x16xf32, fragment>
      tile.gemm %As, %B2s, %C2 : !tile.tile<16x16xf16, shared>, !tile.tile<16x16xf16, shared>, !tile.tile<16x16xf32, fragment>
    }
    %Ef = tile.alloc : !tile.tile<16x16xf32, fragment>
    tile.parallel (%i, %j) in [16, 16] {
      %g1 = tile.load %C1[%i, %j] : !tile.tile<16x16xf32, fragment>
      %g2 = tile.load %C2[%i, %j] : !tile.tile<16x16xf32, fragment>
      %x = arith.mulf %g1, %g2 : f32
      %xa = math.absf %x : f32
      %xm = arith.mulf %xa, %neg_eighth : f32
      %xe = math.exp %xm : f32
      tile.store %xe, %Ef[%i, %j] : !tile.tile<16x16xf32, fragment>
    }
    tile.copy %Ef, %E[%row, %col] : !tile.tile<16x16xf32, fragment>, !tile.tensor<[M, N], f32>
    %Rf = tile.alloc : !tile.tile<16xf32, fragment>
    tile.reduce sum %Ef, %Rf dim = 1 : !tile.tile<16x16xf32, fragment>, !tile.tile<16xf32, fragment>
    tile.atomic add %Rf, %R[%row] : !tile.tile<16xf32, fragment>, !tile.tensor<[M], f32>
  }
  tile.return
}
