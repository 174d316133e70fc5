// Two gemms through a layout conversion (the first's f32 accumulator
// becomes the second's f16 A operand, 32 KiB staged through LDS), with both
// shared tiles read after it: no tile is dead at the conversion, so its
// scratch goes after the tiles, and neither is read only as an A operand
// (budget_errors.mlir).
tile.func @chained(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
                   %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 256 {
    %As = tile.alloc : !tile.tile<128x128xf16, shared>
    %Bs = tile.alloc : !tile.tile<128x128xf16, shared>
    %S = tile.alloc : !tile.tile<128x128xf32, fragment>
    %P = tile.alloc : !tile.tile<128x128xf16, fragment>
    %O = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.copy %A[%c0, %c0], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x128xf16, shared>
    tile.copy %B[%c0, %c0], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<128x128xf16, shared>
    tile.gemm %As, %Bs, %S clear : !tile.tile<128x128xf16, shared>, !tile.tile<128x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    tile.copy %S, %P : !tile.tile<128x128xf32, fragment>, !tile.tile<128x128xf16, fragment>
    tile.gemm %P, %Bs, %O clear : !tile.tile<128x128xf16, fragment>, !tile.tile<128x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    tile.gemm %Bs, %As, %O : !tile.tile<128x128xf16, shared>, !tile.tile<128x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    tile.copy %O, %C[%c0, %c0] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}
