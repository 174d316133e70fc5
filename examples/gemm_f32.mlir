// C = A * B in f32 throughout (f32 inputs, accumulator and result), the
// variant benchmarked against OpenBLAS's sgemm on CPUs.
// 64x64 output tiles and K in steps of 32: a 64x64 f32 accumulator (16 KiB)
// plus the A and B tiles (8 KiB each) stay within a CPU core's L1/L2, and the
// 2-stage pipeline prefetches the next K slice while the current one is
// multiplied. M, N and K are symbols; edge tiles are masked.
tile.func @gemm_f32(%A: !tile.tensor<[M, K], f32>, %B: !tile.tensor<[K, N], f32>,
                    %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], f32>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], f32>
  %n = tile.dim %B, 1 : !tile.tensor<[K, N], f32>
  %gx = arith.ceildivui %n, %c64 : index
  %gy = arith.ceildivui %m, %c64 : index
  %nk = arith.ceildivui %k, %c32 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %As = tile.alloc : !tile.tile<64x32xf32, shared>
    %Bs = tile.alloc : !tile.tile<32x64xf32, shared>
    %Cf = tile.alloc : !tile.tile<64x64xf32, fragment>
    tile.clear %Cf : !tile.tile<64x64xf32, fragment>
    %row = arith.muli %by, %c64 : index
    %col = arith.muli %bx, %c64 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 2 {
      %k0 = arith.muli %kt, %c32 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], f32>, !tile.tile<64x32xf32, shared>
      tile.copy %B[%k0, %col], %Bs : !tile.tensor<[K, N], f32>, !tile.tile<32x64xf32, shared>
      tile.gemm %As, %Bs, %Cf : !tile.tile<64x32xf32, shared>, !tile.tile<32x64xf32, shared>, !tile.tile<64x64xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<64x64xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}
