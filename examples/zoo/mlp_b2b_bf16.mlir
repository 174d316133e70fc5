// A fused MLP block, two back-to-back GEMMs: Y = silu(X * W1) * W2, the
// intermediate H = silu(X * W1) never leaving the chip. Each block owns 64
// rows of X and walks the hidden dimension F in chunks of 64:
//   H_c = silu(X * W1[:, c])      (64x64, f32 fragment, rounded to bf16)
//   Y  += H_c * W2[c, :]          (64x128, f32 fragment)
// so the 64 x F intermediate exists only one 64x64 fragment at a time. The
// model dimension is static (128) so X's 64-row slice is loaded once.
// X: bf16 [M, 128], W1: bf16 [128, F], W2: bf16 [F, 128], Y: bf16 [M, 128].
// Grid (ceil(M / 64)), 128 threads. Tiles: X 64x128 and per F chunk W1
// 128x64, W2 64x128 in shared memory (a 2-stage pipeline over F chunks,
// 80 KiB), H and Y accumulators in registers.
tile.func @mlp_b2b_bf16(%X: !tile.tensor<[M, 128], bf16>, %W1: !tile.tensor<[128, F], bf16>,
                        %W2: !tile.tensor<[F, 128], bf16>, %Y: !tile.tensor<[M, 128], bf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  %m = tile.dim %X, 0 : !tile.tensor<[M, 128], bf16>
  %f = tile.dim %W1, 1 : !tile.tensor<[128, F], bf16>
  %gx = arith.ceildivui %m, %c64 : index
  %nf = arith.ceildivui %f, %c64 : index
  tile.kernel blocks(%bx) in (%gx) threads = 128 {
    %Xs = tile.alloc : !tile.tile<64x128xbf16, shared>
    %W1s = tile.alloc : !tile.tile<128x64xbf16, shared>
    %W2s = tile.alloc : !tile.tile<64x128xbf16, shared>
    %Hf = tile.alloc : !tile.tile<64x64xf32, fragment>
    %Hb = tile.alloc : !tile.tile<64x64xbf16, fragment>
    %Yf = tile.alloc : !tile.tile<64x128xf32, fragment>
    tile.clear %Yf : !tile.tile<64x128xf32, fragment>
    %row = arith.muli %bx, %c64 : index
    tile.copy %X[%row, %c0], %Xs : !tile.tensor<[M, 128], bf16>, !tile.tile<64x128xbf16, shared>
    tile.pipelined %fc = %c0 to %nf step %c1 stages = 2 {
      %f0 = arith.muli %fc, %c64 : index
      // Hidden units past F read zero weights: H = silu(0) = 0 there, and
      // the zero rows of W2 add nothing.
      tile.copy %W1[%c0, %f0], %W1s : !tile.tensor<[128, F], bf16>, !tile.tile<128x64xbf16, shared>
      tile.copy %W2[%f0, %c0], %W2s : !tile.tensor<[F, 128], bf16>, !tile.tile<64x128xbf16, shared>
      tile.gemm %Xs, %W1s, %Hf clear : !tile.tile<64x128xbf16, shared>, !tile.tile<128x64xbf16, shared>, !tile.tile<64x64xf32, fragment>
      tile.parallel (%i, %j) in [64, 64] {
        %x = tile.load %Hf[%i, %j] : !tile.tile<64x64xf32, fragment>
        %nx = arith.negf %x : f32
        %e = math.exp %nx : f32
        %d = arith.addf %e, %one : f32
        %s = arith.divf %x, %d : f32
        tile.store %s, %Hf[%i, %j] : !tile.tile<64x64xf32, fragment>
      }
      tile.copy %Hf, %Hb : !tile.tile<64x64xf32, fragment>, !tile.tile<64x64xbf16, fragment>
      tile.gemm %Hb, %W2s, %Yf : !tile.tile<64x64xbf16, fragment>, !tile.tile<64x128xbf16, shared>, !tile.tile<64x128xf32, fragment>
    }
    tile.copy %Yf, %Y[%row, %c0] : !tile.tile<64x128xf32, fragment>, !tile.tensor<[M, 128], bf16>
  }
  tile.return
}
