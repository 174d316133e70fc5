// seed 16: b2b f16->f16 tiles bm=128 bf=64 bn=128 K1=32, 256 threads, 2 stages, act relu, bias1=False h_shared=True t1=False t2=False epilogue [] gemm2=True
tile.func @rand(%X: !tile.tensor<[M, K], f16>, %W1: !tile.tensor<[K, F], f16>, %W2: !tile.tensor<[F, N], f16>, %Y: !tile.tensor<[M, N], f16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0x00000000 : f32
  %one = arith.constant 0x3F800000 : f32
  %half = arith.constant 0x3F000000 : f32
  %eighth = arith.constant 0x3E000000 : f32
  %neg_eighth = arith.constant 0xBE000000 : f32
  %gelu_k = arith.constant 0x3F4C422A : f32
  %gelu_c = arith.constant 0x3D372713 : f32
  %m = tile.dim %X, 0 : !tile.tensor<[M, K], f16>
  %f = tile.dim %W1, 1 : !tile.tensor<[K, F], f16>
  %gy = arith.ceildivui %m, %c128 : index
  %nf = arith.ceildivui %f, %c64 : index
  %n = tile.dim %Y, 1 : !tile.tensor<[M, N], f16>
  %gx = arith.ceildivui %n, %c128 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 256 {
    %col = arith.muli %bx, %c128 : index
    %row = arith.muli %by, %c128 : index
    %Xs = tile.alloc : !tile.tile<128x32xf16, shared>
    %W1s = tile.alloc : !tile.tile<32x64xf16, shared>
    %Hf = tile.alloc : !tile.tile<128x64xf32, fragment>
    %W2s = tile.alloc : !tile.tile<64x128xf16, shared>
    %Hb = tile.alloc : !tile.tile<128x64xf16, shared>
    %Yf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Yf : !tile.tile<128x128xf32, fragment>
    tile.copy %X[%row, %c0], %Xs : !tile.tensor<[M, K], f16>, !tile.tile<128x32xf16, shared>
    tile.pipelined %fc = %c0 to %nf step %c1 stages = 2 {
      %f0 = arith.muli %fc, %c64 : index
      tile.copy %W1[%c0, %f0], %W1s : !tile.tensor<[K, F], f16>, !tile.tile<32x64xf16, shared>
      tile.copy %W2[%f0, %col], %W2s : !tile.tensor<[F, N], f16>, !tile.tile<64x128xf16, shared>
      tile.gemm %Xs, %W1s, %Hf clear : !tile.tile<128x32xf16, shared>, !tile.tile<32x64xf16, shared>, !tile.tile<128x64xf32, fragment>
      tile.parallel (%i, %j) in [128, 64] {
        %h0 = tile.load %Hf[%i, %j] : !tile.tile<128x64xf32, fragment>
        %ha = arith.maximumf %h0, %zero : f32
        tile.store %ha, %Hf[%i, %j] : !tile.tile<128x64xf32, fragment>
      }
      tile.copy %Hf, %Hb : !tile.tile<128x64xf32, fragment>, !tile.tile<128x64xf16, shared>
      tile.gemm %Hb, %W2s, %Yf : !tile.tile<128x64xf16, shared>, !tile.tile<64x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    tile.copy %Yf, %Y[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f16>
  }
  tile.return
}
// --shape M=200,N=128,F=131,K=32
// --shape M=17,N=200,F=17,K=17
