// C = relu(A * B + bias): the gemm of gemm.mlir with a fused bias + ReLU
// epilogue, the shape of a linear layer. f16 inputs and bias, f32
// accumulation, f16 result; the bias row for the block's 128 columns is
// loaded once into a fragment and added to the accumulator in registers.
tile.func @gemm_bias_relu(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
                          %bias: !tile.tensor<[N], f16>,
                          %C: !tile.tensor<[M, N], f16>) {
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
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %As = tile.alloc : !tile.tile<128x32xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x128xf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 3 {
      %k0 = arith.muli %kt, %c32 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x32xf16, shared>
      tile.copy %B[%k0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<32x128xf16, shared>
      tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xf16, shared>, !tile.tile<32x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    // Epilogue: add the bias of each column, then ReLU, in place.
    %bf = tile.alloc : !tile.tile<128xf32, fragment>
    tile.copy %bias[%col], %bf : !tile.tensor<[N], f16>, !tile.tile<128xf32, fragment>
    %zero = arith.constant 0.0 : f32
    tile.parallel (%i, %j) in [128, 128] {
      %v = tile.load %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
      %b = tile.load %bf[%j] : !tile.tile<128xf32, fragment>
      %s = arith.addf %v, %b : f32
      %r = arith.maximumf %s, %zero : f32
      tile.store %r, %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
    }
    // Partial tiles at the M and N edges are masked by the copy.
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f16>
  }
  tile.return
}
