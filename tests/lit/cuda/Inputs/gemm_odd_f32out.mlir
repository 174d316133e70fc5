// C = A * B with f16 inputs and an f32 result on a static odd shape: M =
// 1000 and N = 776 are not multiples of the 64x64 tile (the last row and
// column of blocks reach past the tensor), K = 520 not one of the K step.
// Rows stay 16-byte aligned (776 x 4 bytes), so tensor maps describe C.
tile.func @gemm_odd_f32out(%A: !tile.tensor<[1000, 520], f16>,
                           %B: !tile.tensor<[520, 776], f16>,
                           %C: !tile.tensor<[1000, 776], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %m = tile.dim %A, 0 : !tile.tensor<[1000, 520], f16>
  %k = tile.dim %A, 1 : !tile.tensor<[1000, 520], f16>
  %n = tile.dim %B, 1 : !tile.tensor<[520, 776], f16>
  %gx = arith.ceildivui %n, %c64 : index
  %gy = arith.ceildivui %m, %c64 : index
  %nk = arith.ceildivui %k, %c32 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 attributes {tile.widen = 1} {
    %As = tile.alloc : !tile.tile<64x32xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x64xf16, shared>
    %Cf = tile.alloc : !tile.tile<64x64xf32, fragment>
    tile.clear %Cf : !tile.tile<64x64xf32, fragment>
    %row = arith.muli %by, %c64 : index
    %col = arith.muli %bx, %c64 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 3 {
      %k0 = arith.muli %kt, %c32 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[1000, 520], f16>, !tile.tile<64x32xf16, shared>
      tile.copy %B[%k0, %col], %Bs : !tile.tensor<[520, 776], f16>, !tile.tile<32x64xf16, shared>
      tile.gemm %As, %Bs, %Cf : !tile.tile<64x32xf16, shared>, !tile.tile<32x64xf16, shared>, !tile.tile<64x64xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<64x64xf32, fragment>, !tile.tensor<[1000, 776], f32>
  }
  tile.return
}
