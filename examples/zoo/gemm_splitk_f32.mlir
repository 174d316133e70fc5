// C += A * B with split-K: K is cut into chunks of 512, one per grid z
// index; each block computes the partial 128x128 product of its chunk and
// adds it into C with `tile.atomic add`. For problems with small M and N and
// a large K, where an output-tiled grid alone has too few blocks to fill
// the machine. The caller zeroes C first (or passes a C to accumulate into).
// (The split count comes from K: a grid size must derive from tensor
// shapes, not from a scalar argument.)
// A: bf16 [M, K], B: bf16 [K, N], C: f32 [M, N].
// Grid (ceil(N / 128), ceil(M / 128), ceil(K / 512)), 128 threads. Tiles:
// 128x128 output, K in steps of 64 (8 steps per split), a 3-stage pipeline
// over the block's chunk. (64x64 tiles give four times the blocks but read
// each operand byte for a quarter of the work; at M = N = 1024, K = 16384
// the 128x128 tiles were 15% faster on the H100.)
tile.func @gemm_splitk_f32(%A: !tile.tensor<[M, K], bf16>, %B: !tile.tensor<[K, N], bf16>,
                           %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], bf16>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], bf16>
  %n = tile.dim %B, 1 : !tile.tensor<[K, N], bf16>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c128 : index
  %gz = arith.ceildivui %k, %c512 : index
  %nk = arith.ceildivui %k, %c64 : index
  tile.kernel blocks(%bx, %by, %bz) in (%gx, %gy, %gz) threads = 128 {
    %As = tile.alloc : !tile.tile<128x64xbf16, shared>
    %Bs = tile.alloc : !tile.tile<64x128xbf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    %kt_begin = arith.muli %bz, %c8 : index
    %kt_end0 = arith.addi %kt_begin, %c8 : index
    %kt_end = arith.minui %kt_end0, %nk : index
    tile.pipelined %kt = %kt_begin to %kt_end step %c1 stages = 3 {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], bf16>, !tile.tile<128x64xbf16, shared>
      tile.copy %B[%k0, %col], %Bs : !tile.tensor<[K, N], bf16>, !tile.tile<64x128xbf16, shared>
      tile.gemm %As, %Bs, %Cf : !tile.tile<128x64xbf16, shared>, !tile.tile<64x128xbf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    // Elements past M or N are skipped by the atomic.
    tile.atomic add %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}
