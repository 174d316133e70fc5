// The zoo's block-scaled fp8 GEMM (examples/zoo/gemm_fp8_blockscale.mlir) with
// a row-scale fragment of 512 rows (the block reads its first 128): a box
// that tall is more than a bulk copy takes (256 rows), so that copy stays a
// global-to-fragment copy while b_scale's goes through the stages.
tile.func @gemm_fp8_blockscale(%A: !tile.tensor<[M, K], f8E4M3FN>, %B: !tile.tensor<[N, K], f8E4M3FN>,
                               %a_scale: !tile.tensor<[M, KB], f32>, %b_scale: !tile.tensor<[NB, KB], f32>,
                               %C: !tile.tensor<[M, N], bf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], f8E4M3FN>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], f8E4M3FN>
  %n = tile.dim %B, 0 : !tile.tensor<[N, K], f8E4M3FN>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c128 : index
  %nk = arith.ceildivui %k, %c128 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 256 {
    %As = tile.alloc : !tile.tile<128x128xf8E4M3FN, shared>
    %Bs = tile.alloc : !tile.tile<128x128xf8E4M3FN, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    %Pf = tile.alloc : !tile.tile<128x128xf32, fragment>
    %sa = tile.alloc : !tile.tile<512x1xf32, fragment>
    %sb = tile.alloc : !tile.tile<1xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 4 {
      %k0 = arith.muli %kt, %c128 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], f8E4M3FN>, !tile.tile<128x128xf8E4M3FN, shared>
      tile.copy %B[%col, %k0], %Bs : !tile.tensor<[N, K], f8E4M3FN>, !tile.tile<128x128xf8E4M3FN, shared>
      // This K block's scales: a_scale[row : row + 128, kt] and
      // b_scale[bx, kt] (the block's 128 columns are one 128-row block of B).
      tile.copy %a_scale[%row, %kt], %sa : !tile.tensor<[M, KB], f32>, !tile.tile<512x1xf32, fragment>
      tile.copy %b_scale[%bx, %kt], %sb : !tile.tensor<[NB, KB], f32>, !tile.tile<1xf32, fragment>
      tile.gemm %As, %Bs, %Pf transpose_b clear : !tile.tile<128x128xf8E4M3FN, shared>, !tile.tile<128x128xf8E4M3FN, shared>, !tile.tile<128x128xf32, fragment>
      tile.parallel (%i, %j) in [128, 128] {
        %p = tile.load %Pf[%i, %j] : !tile.tile<128x128xf32, fragment>
        %acc = tile.load %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
        %a = tile.load %sa[%i, %c0] : !tile.tile<512x1xf32, fragment>
        %b = tile.load %sb[%c0] : !tile.tile<1xf32, fragment>
        %s = arith.mulf %a, %b : f32
        %ps = arith.mulf %p, %s : f32
        %r = arith.addf %acc, %ps : f32
        tile.store %r, %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
      }
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], bf16>
  }
  tile.return
}
