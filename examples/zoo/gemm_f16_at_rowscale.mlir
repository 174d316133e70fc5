// C = f16((A^T * B) * scale[m]) with A stored transposed, A: f16 [K, M]
// (e.g. a weight gradient dW = X^T dY, or an activation kept column-major),
// read through `tile.gemm ... transpose_a`; a per-row scale in the epilogue.
// A: f16 [K, M], B: f16 [K, N], scale: f32 [M], C: f16 [M, N].
// Grid (ceil(N / 128), ceil(M / 128)), 128 threads. Tiles: 128x128 output;
// per K step of 32 a 32x128 slice of A (K rows, M columns) and a 32x128
// slice of B; a 3-stage pipeline.
tile.func @gemm_f16_at_rowscale(%A: !tile.tensor<[K, M], f16>, %B: !tile.tensor<[K, N], f16>,
                                %scale: !tile.tensor<[M], f32>,
                                %C: !tile.tensor<[M, N], f16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %k = tile.dim %A, 0 : !tile.tensor<[K, M], f16>
  %m = tile.dim %A, 1 : !tile.tensor<[K, M], f16>
  %n = tile.dim %B, 1 : !tile.tensor<[K, N], f16>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c128 : index
  %nk = arith.ceildivui %k, %c32 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %As = tile.alloc : !tile.tile<32x128xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x128xf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 3 {
      %k0 = arith.muli %kt, %c32 : index
      tile.copy %A[%k0, %row], %As : !tile.tensor<[K, M], f16>, !tile.tile<32x128xf16, shared>
      tile.copy %B[%k0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<32x128xf16, shared>
      tile.gemm %As, %Bs, %Cf transpose_a : !tile.tile<32x128xf16, shared>, !tile.tile<32x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    %sf = tile.alloc : !tile.tile<128xf32, fragment>
    tile.copy %scale[%row], %sf : !tile.tensor<[M], f32>, !tile.tile<128xf32, fragment>
    tile.parallel (%i, %j) in [128, 128] {
      %v = tile.load %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
      %s = tile.load %sf[%i] : !tile.tile<128xf32, fragment>
      %r = arith.mulf %v, %s : f32
      tile.store %r, %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f16>
  }
  tile.return
}
