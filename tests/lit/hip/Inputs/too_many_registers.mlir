// A 256x256 f32 accumulator on 128 threads: 512 registers per thread.
tile.func @too_many_registers(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
                              %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], f16>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], f16>
  %n = tile.dim %B, 1 : !tile.tensor<[K, N], f16>
  %gx = arith.ceildivui %n, %c256 : index
  %gy = arith.ceildivui %m, %c256 : index
  %nk = arith.ceildivui %k, %c32 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %As = tile.alloc : !tile.tile<256x32xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x256xf16, shared>
    %Cf = tile.alloc : !tile.tile<256x256xf32, fragment>
    tile.clear %Cf : !tile.tile<256x256xf32, fragment>
    %row = arith.muli %by, %c256 : index
    %col = arith.muli %bx, %c256 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 2 {
      %k0 = arith.muli %kt, %c32 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], f16>, !tile.tile<256x32xf16, shared>
      tile.copy %B[%k0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<32x256xf16, shared>
      tile.gemm %As, %Bs, %Cf : !tile.tile<256x32xf16, shared>, !tile.tile<32x256xf16, shared>, !tile.tile<256x256xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<256x256xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}
