// C += A * B with split-K: K is cut into chunks, one per grid z index; each
// block computes the partial 128x128 product of its chunk and adds it into C
// with `tile.atomic add`. For problems with small M and N and a large K,
// where an output-tiled grid alone has too few blocks to fill the machine.
// The caller zeroes C first (or passes a C to accumulate into).
// The split count comes from the shapes (a grid size must derive from tensor
// shapes, not from a scalar argument): enough splits for about 512 blocks in
// all, at most one per K step of 64, and none where the output tiles alone
// make 512 blocks -- there a split only adds atomic traffic (at 4096^3 eight
// splits of 512 were 0.63 ms on the H100, 2.5x a plain GEMM).
// A: bf16 [M, K], B: bf16 [K, N], C: f32 [M, N].
// Grid (ceil(N / 128), ceil(M / 128), S), 128 threads, with
//   tiles = ceil(M / 128) * ceil(N / 128), steps = ceil(K / 64),
//   S0 = min(ceil(512 / tiles), steps), per = ceil(steps / S0),
//   S = ceil(steps / per) (no empty split).
// Tiles: 128x128 output, K in steps of 64, a 3-stage pipeline over the
// block's chunk. (64x64 tiles give four times the blocks but read each
// operand byte for a quarter of the work; at M = N = 1024, K = 16384 the
// 128x128 tiles were 15% faster on the H100.)
tile.func @gemm_splitk_f32(%A: !tile.tensor<[M, K], bf16>, %B: !tile.tensor<[K, N], bf16>,
                           %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], bf16>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], bf16>
  %n = tile.dim %B, 1 : !tile.tensor<[K, N], bf16>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c128 : index
  %nk = arith.ceildivui %k, %c64 : index
  %tiles0 = arith.muli %gx, %gy : index
  %tiles = arith.maxui %tiles0, %c1 : index
  %want = arith.ceildivui %c512, %tiles : index
  %s0 = arith.minui %want, %nk : index
  %s1 = arith.maxui %s0, %c1 : index
  %per = arith.ceildivui %nk, %s1 : index
  %gz = arith.ceildivui %nk, %per : index
  tile.kernel blocks(%bx, %by, %bz) in (%gx, %gy, %gz) threads = 128 {
    %As = tile.alloc : !tile.tile<128x64xbf16, shared>
    %Bs = tile.alloc : !tile.tile<64x128xbf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    %kt_begin = arith.muli %bz, %per : index
    %kt_end0 = arith.addi %kt_begin, %per : index
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
