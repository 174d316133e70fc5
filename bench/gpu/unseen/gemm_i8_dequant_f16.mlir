// C = f16((A . B^T) * sa[m] * sb[n]): s8 GEMM with a dequantizing epilogue
// (per-row and per-column scales), 128x128 blocks, K step 64.
tile.func @gemm_i8_dequant_f16(%A: !tile.tensor<[M, K], i8>, %B: !tile.tensor<[N, K], i8>,
                               %sa: !tile.tensor<[M], f32>, %sb: !tile.tensor<[N], f32>,
                               %C: !tile.tensor<[M, N], f16>) {
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
    %Of = tile.alloc : !tile.tile<128x128xf32, fragment>
    %ra = tile.alloc : !tile.tile<128xf32, fragment>
    %rb = tile.alloc : !tile.tile<128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xi32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 4 {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], i8>, !tile.tile<128x64xi8, shared>
      tile.copy %B[%col, %k0], %Bs : !tile.tensor<[N, K], i8>, !tile.tile<128x64xi8, shared>
      tile.gemm %As, %Bs, %Cf transpose_b : !tile.tile<128x64xi8, shared>, !tile.tile<128x64xi8, shared>, !tile.tile<128x128xi32, fragment>
    }
    tile.copy %sa[%row], %ra : !tile.tensor<[M], f32>, !tile.tile<128xf32, fragment>
    tile.copy %sb[%col], %rb : !tile.tensor<[N], f32>, !tile.tile<128xf32, fragment>
    tile.parallel (%i, %j) in [128, 128] {
      %v = tile.load %Cf[%i, %j] : !tile.tile<128x128xi32, fragment>
      %a = tile.load %ra[%i] : !tile.tile<128xf32, fragment>
      %b = tile.load %rb[%j] : !tile.tile<128xf32, fragment>
      %vf = arith.sitofp %v : i32 to f32
      %s = arith.mulf %a, %b : f32
      %o = arith.mulf %vf, %s : f32
      tile.store %o, %Of[%i, %j] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %Of, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f16>
  }
  tile.return
}
