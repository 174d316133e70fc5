// gemm.mlir with K steps of 16 (one wgmma K step per stage): tessera-k-steps
// doubles them (tests/lit/passes/k_steps.mlir, PipelineSemanticsTest).
// M, N and K are symbols: one compiled kernel runs any size.
tile.func @gemm(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
                %C: !tile.tensor<[M, N], f16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cbk = arith.constant 16 : index
  %ctm = arith.constant 128 : index
  %ctn = arith.constant 128 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], f16>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], f16>
  %n = tile.dim %B, 1 : !tile.tensor<[K, N], f16>
  %gx = arith.ceildivui %n, %ctn : index
  %gy = arith.ceildivui %m, %ctm : index
  %nk = arith.ceildivui %k, %cbk : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %As = tile.alloc : !tile.tile<128x16xf16, shared>
    %Bs = tile.alloc : !tile.tile<16x128xf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %ctm : index
    %col = arith.muli %bx, %ctn : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 3 {
      %k0 = arith.muli %kt, %cbk : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x16xf16, shared>
      tile.copy %B[%k0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<16x128xf16, shared>
      tile.gemm %As, %Bs, %Cf : !tile.tile<128x16xf16, shared>, !tile.tile<16x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f16>
  }
  tile.return
}
