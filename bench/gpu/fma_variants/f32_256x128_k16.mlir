// Tile-size variant of examples/zoo/gemm_f32_256x128_colscale.mlir for the
// FMA operand-prefetch A/B (docs/benchmarks.md 2026-11-29 morning).
tile.func @f32_256x128_k16(%A: !tile.tensor<[M, K], f32>, %B: !tile.tensor<[K, N], f32>,
                                     %scale: !tile.tensor<[N], f32>,
                                     %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], f32>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], f32>
  %n = tile.dim %B, 1 : !tile.tensor<[K, N], f32>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c256 : index
  %nk = arith.ceildivui %k, %c32 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 256 {
    %As = tile.alloc : !tile.tile<256x16xf32, shared>
    %Bs = tile.alloc : !tile.tile<16x128xf32, shared>
    %Cf = tile.alloc : !tile.tile<256x128xf32, fragment>
    tile.clear %Cf : !tile.tile<256x128xf32, fragment>
    %row = arith.muli %by, %c256 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 3 {
      %k0 = arith.muli %kt, %c32 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], f32>, !tile.tile<256x16xf32, shared>
      tile.copy %B[%k0, %col], %Bs : !tile.tensor<[K, N], f32>, !tile.tile<16x128xf32, shared>
      tile.gemm %As, %Bs, %Cf : !tile.tile<256x16xf32, shared>, !tile.tile<16x128xf32, shared>, !tile.tile<256x128xf32, fragment>
    }
    %sf = tile.alloc : !tile.tile<128xf32, fragment>
    tile.copy %scale[%col], %sf : !tile.tensor<[N], f32>, !tile.tile<128xf32, fragment>
    tile.parallel (%i, %j) in [256, 128] {
      %v = tile.load %Cf[%i, %j] : !tile.tile<256x128xf32, fragment>
      %s = tile.load %sf[%j] : !tile.tile<128xf32, fragment>
      %r = arith.mulf %v, %s : f32
      tile.store %r, %Cf[%i, %j] : !tile.tile<256x128xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<256x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}
