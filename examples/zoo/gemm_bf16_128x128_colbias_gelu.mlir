// C = bf16(gelu(A * B + bias[n])): the up-projection of a transformer MLP.
// GELU in its tanh form: gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// A: bf16 [M, K], B: bf16 [K, N], bias: f32 [N] (one value per column),
// C: bf16 [M, N].
// Grid (ceil(N / 128), ceil(M / 128)), 256 threads (8 warps, 64 accumulator
// registers each). Tiles: 128x128 output, K in steps of 64 (two 16 KiB bf16
// shared tiles per stage), a 3-stage pipeline (96 KiB of shared memory).
tile.func @gemm_bf16_128x128_colbias_gelu(%A: !tile.tensor<[M, K], bf16>, %B: !tile.tensor<[K, N], bf16>,
                                          %bias: !tile.tensor<[N], f32>,
                                          %C: !tile.tensor<[M, N], bf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %k0c = arith.constant 0.7978845608028654 : f32
  %k1c = arith.constant 0.044715 : f32
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], bf16>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], bf16>
  %n = tile.dim %B, 1 : !tile.tensor<[K, N], bf16>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c128 : index
  %nk = arith.ceildivui %k, %c64 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 256 {
    %As = tile.alloc : !tile.tile<128x64xbf16, shared>
    %Bs = tile.alloc : !tile.tile<64x128xbf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 3 {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], bf16>, !tile.tile<128x64xbf16, shared>
      tile.copy %B[%k0, %col], %Bs : !tile.tensor<[K, N], bf16>, !tile.tile<64x128xbf16, shared>
      tile.gemm %As, %Bs, %Cf : !tile.tile<128x64xbf16, shared>, !tile.tile<64x128xbf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    %bf = tile.alloc : !tile.tile<128xf32, fragment>
    tile.copy %bias[%col], %bf : !tile.tensor<[N], f32>, !tile.tile<128xf32, fragment>
    tile.parallel (%i, %j) in [128, 128] {
      %v = tile.load %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
      %b = tile.load %bf[%j] : !tile.tile<128xf32, fragment>
      %x = arith.addf %v, %b : f32
      %x2 = arith.mulf %x, %x : f32
      %x3 = arith.mulf %x2, %x : f32
      %t0 = arith.mulf %x3, %k1c : f32
      %t1 = arith.addf %x, %t0 : f32
      %t2 = arith.mulf %t1, %k0c : f32
      %th = math.tanh %t2 : f32
      %t3 = arith.addf %th, %one : f32
      %hx = arith.mulf %x, %half : f32
      %g = arith.mulf %hx, %t3 : f32
      tile.store %g, %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], bf16>
  }
  tile.return
}
