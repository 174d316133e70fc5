// C = A * B^T with fp8 (E4M3FN) inputs, f32 accumulation and an f16 result.
// B is stored N x K (both operands K-major, as fp8 wgmma needs): the gemm
// reads it with `transpose_b`.
// 128x128 output tiles, K in steps of 128 (128 bytes of fp8 per row), a
// 4-stage software pipeline. M, N and K are symbols: one compiled kernel
// runs any size. @gemm_fp8_e5m2 is the same kernel on E5M2 inputs.
tile.func @gemm_fp8(%A: !tile.tensor<[M, K], f8E4M3FN>, %B: !tile.tensor<[N, K], f8E4M3FN>,
                    %C: !tile.tensor<[M, N], f16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], f8E4M3FN>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], f8E4M3FN>
  %n = tile.dim %B, 0 : !tile.tensor<[N, K], f8E4M3FN>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c128 : index
  %nk = arith.ceildivui %k, %c128 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %As = tile.alloc : !tile.tile<128x128xf8E4M3FN, shared>
    %Bs = tile.alloc : !tile.tile<128x128xf8E4M3FN, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 4 {
      %k0 = arith.muli %kt, %c128 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], f8E4M3FN>, !tile.tile<128x128xf8E4M3FN, shared>
      tile.copy %B[%col, %k0], %Bs : !tile.tensor<[N, K], f8E4M3FN>, !tile.tile<128x128xf8E4M3FN, shared>
      tile.gemm %As, %Bs, %Cf transpose_b : !tile.tile<128x128xf8E4M3FN, shared>, !tile.tile<128x128xf8E4M3FN, shared>, !tile.tile<128x128xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f16>
  }
  tile.return
}

tile.func @gemm_fp8_e5m2(%A: !tile.tensor<[M, K], f8E5M2>, %B: !tile.tensor<[N, K], f8E5M2>,
                         %C: !tile.tensor<[M, N], f16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], f8E5M2>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], f8E5M2>
  %n = tile.dim %B, 0 : !tile.tensor<[N, K], f8E5M2>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c128 : index
  %nk = arith.ceildivui %k, %c128 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %As = tile.alloc : !tile.tile<128x128xf8E5M2, shared>
    %Bs = tile.alloc : !tile.tile<128x128xf8E5M2, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 4 {
      %k0 = arith.muli %kt, %c128 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], f8E5M2>, !tile.tile<128x128xf8E5M2, shared>
      tile.copy %B[%col, %k0], %Bs : !tile.tensor<[N, K], f8E5M2>, !tile.tile<128x128xf8E5M2, shared>
      tile.gemm %As, %Bs, %Cf transpose_b : !tile.tile<128x128xf8E5M2, shared>, !tile.tile<128x128xf8E5M2, shared>, !tile.tile<128x128xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f16>
  }
  tile.return
}
