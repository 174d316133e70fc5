// C = A * B in f32 throughout (f32 inputs, accumulator and result).
// 64x64 output tiles and K in steps of 32: portable tiles every backend
// compiles (on a GPU: 16 KiB of shared memory per stage, 32 accumulators
// per thread at 128 threads); on a CPU a block's 64x64 accumulator (16 KiB)
// plus the A and B tiles (8 KiB each) fill one core's 32 KiB L1. The 2-stage
// pipeline prefetches the next K slice while the current one is multiplied
// (on a CPU, where loads are synchronous, it is a plain loop). M, N and K are
// symbols; edge tiles are masked.
//
// For large CPU GEMMs these tiles are too small: each block reloads its A and
// B panels from L3 at 16 flops per byte, so at 2048^3 this kernel runs at
// ~0.8x OpenBLAS. bench/cpu/gemm_f32_cpu.mlir is the same program with CPU
// tiles (128x256x64, sized for L2), at ~0.96x; tessera-bench-cpu-gemm
// measures both (docs/benchmarks.md).
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
