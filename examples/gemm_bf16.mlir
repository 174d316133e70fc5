// C = A * B with bf16 inputs, f32 accumulation and a bf16 result: gemm.mlir
// in bfloat16.
// 128x128 output tiles, K in steps of 32, a 3-stage software pipeline.
// M, N and K are symbols: one compiled kernel runs any size.
tile.func @gemm_bf16(%A: !tile.tensor<[M, K], bf16>, %B: !tile.tensor<[K, N], bf16>,
                %C: !tile.tensor<[M, N], bf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], bf16>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], bf16>
  %n = tile.dim %B, 1 : !tile.tensor<[K, N], bf16>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c128 : index
  %nk = arith.ceildivui %k, %c32 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %As = tile.alloc : !tile.tile<128x32xbf16, shared>
    %Bs = tile.alloc : !tile.tile<32x128xbf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 3 {
      %k0 = arith.muli %kt, %c32 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], bf16>, !tile.tile<128x32xbf16, shared>
      tile.copy %B[%k0, %col], %Bs : !tile.tensor<[K, N], bf16>, !tile.tile<32x128xbf16, shared>
      tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xbf16, shared>, !tile.tile<32x128xbf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], bf16>
  }
  tile.return
}
