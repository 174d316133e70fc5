// C = A * B in f32 throughout, with tiles chosen for CPUs: the kernel
// tessera-bench-cpu-gemm measures against OpenBLAS's sgemm next to
// examples/gemm_f32.mlir (the same program with 64x64x32 tiles, the portable
// example every backend compiles and tests).
//
// Why 128x256 output tiles and K in steps of 64 on a CPU: a block runs on one
// core, so its tiles should live in that core's L2 (1 MiB on Zen 4), not L1.
// Per K step a block reads a 128x64 slice of A and a 64x256 slice of B
// (32 + 64 KiB) and does 2*128*256*64 flops: 43 flops per byte loaded from
// L3/DRAM, 2.7x the 16 of 64x64x32 tiles, and each B row it touches is 1 KiB
// contiguous (one page, one TLB entry, for 256 columns instead of 64). The
// 128 KiB accumulator tile stays in L2 while the gemm's 4x32 register
// micro-kernel walks it. On a 2-vCPU Zen 4 this took 2048^3 from 0.78x to
// ~0.96x of OpenBLAS (docs/benchmarks.md). A GPU wants other tiles (the f32
// shared tiles here are 96 KiB per stage).
tile.func @gemm_f32(%A: !tile.tensor<[M, K], f32>, %B: !tile.tensor<[K, N], f32>,
                    %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], f32>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], f32>
  %n = tile.dim %B, 1 : !tile.tensor<[K, N], f32>
  %gx = arith.ceildivui %n, %c256 : index
  %gy = arith.ceildivui %m, %c128 : index
  %nk = arith.ceildivui %k, %c64 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %As = tile.alloc : !tile.tile<128x64xf32, shared>
    %Bs = tile.alloc : !tile.tile<64x256xf32, shared>
    %Cf = tile.alloc : !tile.tile<128x256xf32, fragment>
    tile.clear %Cf : !tile.tile<128x256xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c256 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 2 {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], f32>, !tile.tile<128x64xf32, shared>
      tile.copy %B[%k0, %col], %Bs : !tile.tensor<[K, N], f32>, !tile.tile<64x256xf32, shared>
      tile.gemm %As, %Bs, %Cf : !tile.tile<128x64xf32, shared>, !tile.tile<64x256xf32, shared>, !tile.tile<128x256xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x256xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}
