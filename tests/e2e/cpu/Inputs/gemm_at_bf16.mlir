// C = A^T * B with A stored [K, M] in bf16, B [K, N] bf16, C [M, N] f32:
// exercises the CPU gemm micro-kernel with transpose_a and bf16 widening.
tile.func @gemm_at_bf16(%A: !tile.tensor<[K, M], bf16>, %B: !tile.tensor<[K, N], bf16>,
                        %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %m = tile.dim %A, 1 : !tile.tensor<[K, M], bf16>
  %k = tile.dim %A, 0 : !tile.tensor<[K, M], bf16>
  %n = tile.dim %B, 1 : !tile.tensor<[K, N], bf16>
  %gx = arith.ceildivui %n, %c64 : index
  %gy = arith.ceildivui %m, %c64 : index
  %nk = arith.ceildivui %k, %c16 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %As = tile.alloc : !tile.tile<16x64xbf16, shared>
    %Bs = tile.alloc : !tile.tile<16x64xbf16, shared>
    %Cf = tile.alloc : !tile.tile<64x64xf32, fragment>
    tile.clear %Cf : !tile.tile<64x64xf32, fragment>
    %row = arith.muli %by, %c64 : index
    %col = arith.muli %bx, %c64 : index
    scf.for %kt = %c0 to %nk step %c1 {
      %k0 = arith.muli %kt, %c16 : index
      tile.copy %A[%k0, %row], %As : !tile.tensor<[K, M], bf16>, !tile.tile<16x64xbf16, shared>
      tile.copy %B[%k0, %col], %Bs : !tile.tensor<[K, N], bf16>, !tile.tile<16x64xbf16, shared>
      tile.gemm %As, %Bs, %Cf transpose_a : !tile.tile<16x64xbf16, shared>, !tile.tile<16x64xbf16, shared>, !tile.tile<64x64xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<64x64xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}
