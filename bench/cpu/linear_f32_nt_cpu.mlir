// C = A * W^T in f32, W stored N x K (a linear layer's weight as frameworks
// store it, out_features x in_features), read with `tile.gemm ...
// transpose_b`: the transposed-B case tessera-bench-cpu-gemm measures
// against OpenBLAS's sgemm with CblasTrans. Same CPU tiles as
// gemm_f32_cpu.mlir (128x256 output, K in steps of 64; see there why); the
// W tile is 256x64 (K-major), which the CPU lowering packs to 64x256 per
// K step before its register micro-kernel.
tile.func @linear_f32_nt(%A: !tile.tensor<[M, K], f32>, %W: !tile.tensor<[N, K], f32>,
                         %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], f32>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], f32>
  %n = tile.dim %W, 0 : !tile.tensor<[N, K], f32>
  %gx = arith.ceildivui %n, %c256 : index
  %gy = arith.ceildivui %m, %c128 : index
  %nk = arith.ceildivui %k, %c64 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %As = tile.alloc : !tile.tile<128x64xf32, shared>
    %Ws = tile.alloc : !tile.tile<256x64xf32, shared>
    %Cf = tile.alloc : !tile.tile<128x256xf32, fragment>
    tile.clear %Cf : !tile.tile<128x256xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c256 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 2 {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], f32>, !tile.tile<128x64xf32, shared>
      tile.copy %W[%col, %k0], %Ws : !tile.tensor<[N, K], f32>, !tile.tile<256x64xf32, shared>
      tile.gemm %As, %Ws, %Cf transpose_b : !tile.tile<128x64xf32, shared>, !tile.tile<256x64xf32, shared>, !tile.tile<128x256xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x256xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}
