// C = A^T B with A stored [K, M] (read transposed), 64x256 blocks, K step 32, f16.
tile.func @gemm_at_f16_64x256(%A: !tile.tensor<[K, M], f16>, %B: !tile.tensor<[K, N], f16>,
                              %C: !tile.tensor<[M, N], f16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %k = tile.dim %A, 0 : !tile.tensor<[K, M], f16>
  %m = tile.dim %A, 1 : !tile.tensor<[K, M], f16>
  %n = tile.dim %B, 1 : !tile.tensor<[K, N], f16>
  %gx = arith.ceildivui %n, %c256 : index
  %gy = arith.ceildivui %m, %c64 : index
  %nk = arith.ceildivui %k, %c32 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %As = tile.alloc : !tile.tile<32x64xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x256xf16, shared>
    %Cf = tile.alloc : !tile.tile<64x256xf32, fragment>
    tile.clear %Cf : !tile.tile<64x256xf32, fragment>
    %row = arith.muli %by, %c64 : index
    %col = arith.muli %bx, %c256 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 4 {
      %k0 = arith.muli %kt, %c32 : index
      tile.copy %A[%k0, %row], %As : !tile.tensor<[K, M], f16>, !tile.tile<32x64xf16, shared>
      tile.copy %B[%k0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<32x256xf16, shared>
      tile.gemm %As, %Bs, %Cf transpose_a : !tile.tile<32x64xf16, shared>, !tile.tile<32x256xf16, shared>, !tile.tile<64x256xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<64x256xf32, fragment>, !tile.tensor<[M, N], f16>
  }
  tile.return
}
