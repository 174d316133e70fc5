// C = A * B^T in integers: i8 inputs, i32 accumulation and an i32 result
// (the raw accumulator of an int8-quantized layer; the caller applies its
// scales). B is stored N x K (K-major), read with `transpose_b`.
// A: i8 [M, K], B: i8 [N, K], C: i32 [M, N].
// Grid (ceil(N / 128), ceil(M / 128)), 256 threads. Tiles: 128x128 output,
// K in steps of 64 (two 8 KiB i8 tiles per stage), a 4-stage pipeline.
tile.func @gemm_i8_i32(%A: !tile.tensor<[M, K], i8>, %B: !tile.tensor<[N, K], i8>,
                       %C: !tile.tensor<[M, N], i32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], i8>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], i8>
  %n = tile.dim %B, 0 : !tile.tensor<[N, K], i8>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c128 : index
  %nk = arith.ceildivui %k, %c64 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 256 {
    %As = tile.alloc : !tile.tile<128x64xi8, shared>
    %Bs = tile.alloc : !tile.tile<128x64xi8, shared>
    %Cf = tile.alloc : !tile.tile<128x128xi32, fragment>
    tile.clear %Cf : !tile.tile<128x128xi32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 4 {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], i8>, !tile.tile<128x64xi8, shared>
      tile.copy %B[%col, %k0], %Bs : !tile.tensor<[N, K], i8>, !tile.tile<128x64xi8, shared>
      tile.gemm %As, %Bs, %Cf transpose_b : !tile.tile<128x64xi8, shared>, !tile.tile<128x64xi8, shared>, !tile.tile<128x128xi32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xi32, fragment>, !tile.tensor<[M, N], i32>
  }
  tile.return
}
