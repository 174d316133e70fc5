// C = A B^T with B stored [N, K] (a linear layer's weight, read through
// transpose_b), 256x128 blocks of 256 threads, K step 64, bf16 in and out.
tile.func @gemm_nt_bf16_256x128(%A: !tile.tensor<[M, K], bf16>, %B: !tile.tensor<[N, K], bf16>,
                                %C: !tile.tensor<[M, N], bf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], bf16>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], bf16>
  %n = tile.dim %B, 0 : !tile.tensor<[N, K], bf16>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c256 : index
  %nk = arith.ceildivui %k, %c64 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 256 {
    %As = tile.alloc : !tile.tile<256x64xbf16, shared>
    %Bs = tile.alloc : !tile.tile<128x64xbf16, shared>
    %Cf = tile.alloc : !tile.tile<256x128xf32, fragment>
    tile.clear %Cf : !tile.tile<256x128xf32, fragment>
    %row = arith.muli %by, %c256 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 3 {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], bf16>, !tile.tile<256x64xbf16, shared>
      tile.copy %B[%col, %k0], %Bs : !tile.tensor<[N, K], bf16>, !tile.tile<128x64xbf16, shared>
      tile.gemm %As, %Bs, %Cf transpose_b : !tile.tile<256x64xbf16, shared>, !tile.tile<128x64xbf16, shared>, !tile.tile<256x128xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<256x128xf32, fragment>, !tile.tensor<[M, N], bf16>
  }
  tile.return
}
