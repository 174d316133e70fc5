// C = A^T * B^T with both operands stored transposed: A: bf16 [K, M],
// B: bf16 [N, K] (C^T = B A, computed without materializing a transpose);
// f32 result.
// A: bf16 [K, M], B: bf16 [N, K], C: f32 [M, N].
// Grid (ceil(N / 128), ceil(M / 128)), 128 threads. Tiles: 128x128 output;
// per K step of 64 a 64x128 slice of A and a 128x64 slice of B (32 KiB per
// stage), a 5-stage pipeline (160 KiB) to hide the latency of the strided
// loads.
tile.func @gemm_bf16_tt(%A: !tile.tensor<[K, M], bf16>, %B: !tile.tensor<[N, K], bf16>,
                        %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %k = tile.dim %A, 0 : !tile.tensor<[K, M], bf16>
  %m = tile.dim %A, 1 : !tile.tensor<[K, M], bf16>
  %n = tile.dim %B, 0 : !tile.tensor<[N, K], bf16>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c128 : index
  %nk = arith.ceildivui %k, %c64 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %As = tile.alloc : !tile.tile<64x128xbf16, shared>
    %Bs = tile.alloc : !tile.tile<128x64xbf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 5 {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%k0, %row], %As : !tile.tensor<[K, M], bf16>, !tile.tile<64x128xbf16, shared>
      tile.copy %B[%col, %k0], %Bs : !tile.tensor<[N, K], bf16>, !tile.tile<128x64xbf16, shared>
      tile.gemm %As, %Bs, %Cf transpose_a transpose_b : !tile.tile<64x128xbf16, shared>, !tile.tile<128x64xbf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}
