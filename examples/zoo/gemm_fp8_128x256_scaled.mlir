// C = bf16((A * B^T) * a_scale[m] * b_scale[n]): an fp8 GEMM with the
// per-token (row) scale of A and the per-channel (column) scale of B applied
// in the epilogue, the usual dequantization of FP8 inference.
// A: f8E4M3FN [M, K], B: f8E4M3FN [N, K] (both K-major, as fp8 wgmma wants),
// a_scale: f32 [M], b_scale: f32 [N], C: bf16 [M, N]; f32 accumulation.
// Grid (ceil(N / 256), ceil(M / 128)), 256 threads. Tiles: 128x256 output,
// K in steps of 128 (128 bytes of fp8 per row; 16 + 32 KiB per stage), a
// 3-stage pipeline (144 KiB).
tile.func @gemm_fp8_128x256_scaled(%A: !tile.tensor<[M, K], f8E4M3FN>, %B: !tile.tensor<[N, K], f8E4M3FN>,
                                   %a_scale: !tile.tensor<[M], f32>, %b_scale: !tile.tensor<[N], f32>,
                                   %C: !tile.tensor<[M, N], bf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], f8E4M3FN>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], f8E4M3FN>
  %n = tile.dim %B, 0 : !tile.tensor<[N, K], f8E4M3FN>
  %gx = arith.ceildivui %n, %c256 : index
  %gy = arith.ceildivui %m, %c128 : index
  %nk = arith.ceildivui %k, %c128 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 256 {
    %As = tile.alloc : !tile.tile<128x128xf8E4M3FN, shared>
    %Bs = tile.alloc : !tile.tile<256x128xf8E4M3FN, shared>
    %Cf = tile.alloc : !tile.tile<128x256xf32, fragment>
    tile.clear %Cf : !tile.tile<128x256xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c256 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 3 {
      %k0 = arith.muli %kt, %c128 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], f8E4M3FN>, !tile.tile<128x128xf8E4M3FN, shared>
      tile.copy %B[%col, %k0], %Bs : !tile.tensor<[N, K], f8E4M3FN>, !tile.tile<256x128xf8E4M3FN, shared>
      tile.gemm %As, %Bs, %Cf transpose_b : !tile.tile<128x128xf8E4M3FN, shared>, !tile.tile<256x128xf8E4M3FN, shared>, !tile.tile<128x256xf32, fragment>
    }
    %sa = tile.alloc : !tile.tile<128xf32, fragment>
    %sb = tile.alloc : !tile.tile<256xf32, fragment>
    tile.copy %a_scale[%row], %sa : !tile.tensor<[M], f32>, !tile.tile<128xf32, fragment>
    tile.copy %b_scale[%col], %sb : !tile.tensor<[N], f32>, !tile.tile<256xf32, fragment>
    tile.parallel (%i, %j) in [128, 256] {
      %v = tile.load %Cf[%i, %j] : !tile.tile<128x256xf32, fragment>
      %a = tile.load %sa[%i] : !tile.tile<128xf32, fragment>
      %b = tile.load %sb[%j] : !tile.tile<256xf32, fragment>
      %va = arith.mulf %v, %a : f32
      %r = arith.mulf %va, %b : f32
      tile.store %r, %Cf[%i, %j] : !tile.tile<128x256xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x256xf32, fragment>, !tile.tensor<[M, N], bf16>
  }
  tile.return
}
