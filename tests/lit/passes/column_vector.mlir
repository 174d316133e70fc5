// A size-1 tile dimension indexed by the constant 0 inside a tile.parallel
// (a column vector [64, 1] read beside a [64, 64] region, as a per-row scale
// loaded from a column of a row-major tensor): layout inference gives it the
// region's layout projected onto the rows, with the unit dimension's
// coordinate 0 in every basis (a broadcast over the columns), so the threads
// that hold a row of the accumulator hold its scale, and no conversion is
// needed. Distribution reads it from their registers
// (spirv/column_vector.mlir runs it; cuda/gemm_fp8_blockscale.mlir).
// RUN: %tessera-opt --tessera-infer-layouts=target=sm_90a %s | FileCheck %s --check-prefix=SM90
// RUN: %tessera-opt --tessera-infer-layouts=target=host %s | FileCheck %s --check-prefix=HOST

// SM90: tile.alloc : <64x64xf32, fragment, #tile.layout<reg = {{\[\[}}0, 1], [8, 0], [0, 8], [0, 16], [0, 32{{\]\]}}, lane = {{\[\[}}0, 2], [0, 4], [1, 0], [2, 0], [4, 0{{\]\]}}, warp = {{\[\[}}16, 0], [32, 0{{\]\]}}, block = []>>
// SM90-NEXT: tile.alloc : <64x1xf32, fragment, #tile.layout<reg = {{\[\[}}8, 0{{\]\]}}, lane = {{\[\[}}0, 0], [0, 0], [1, 0], [2, 0], [4, 0{{\]\]}}, warp = {{\[\[}}16, 0], [32, 0{{\]\]}}, block = []>>
// SM90: tile.copy %arg2[{{.*}}], %{{.*}} {vector_bytes = 4 : i64} : !tile.tensor<[M, KB], f32>, !tile.tile<64x1xf32, fragment
// SM90: tile.load %{{.*}}[%{{.*}}, %c0] : <64x1xf32, fragment, #tile.layout<reg = {{\[\[}}8, 0{{\]\]}},
// SM90-NOT: tile.convert_layout

// HOST: tile.alloc : <64x64xf32, fragment, #tile.layout<reg = {{\[\[}}0, 1], [0, 2], [0, 32], [16, 0], [32, 0{{\]\]}}, lane = {{\[\[}}0, 4], [0, 8], [0, 16], [1, 0{{\]\]}}, warp = {{\[\[}}2, 0], [4, 0], [8, 0{{\]\]}}, block = []>>
// HOST-NEXT: tile.alloc : <64x1xf32, fragment, #tile.layout<reg = {{\[\[}}16, 0], [32, 0{{\]\]}}, lane = {{\[\[}}0, 0], [0, 0], [0, 0], [1, 0{{\]\]}}, warp = {{\[\[}}2, 0], [4, 0], [8, 0{{\]\]}}, block = []>>
// HOST-NOT: tile.convert_layout

// C = (A . B) * s[m, kb] for one K block kb given as a scalar.
tile.func @column_scale(%A: !tile.tensor<[M, K], bf16>, %B: !tile.tensor<[K, N], bf16>,
                        %s: !tile.tensor<[M, KB], f32>, %kb: index,
                        %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c32 = arith.constant 32 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], bf16>
  %n = tile.dim %B, 1 : !tile.tensor<[K, N], bf16>
  %gx = arith.ceildivui %n, %c64 : index
  %gy = arith.ceildivui %m, %c64 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 attributes {tile.widen = 1} {
    %As = tile.alloc : !tile.tile<64x32xbf16, shared>
    %Bs = tile.alloc : !tile.tile<32x64xbf16, shared>
    %Cf = tile.alloc : !tile.tile<64x64xf32, fragment>
    %sf = tile.alloc : !tile.tile<64x1xf32, fragment>
    %row = arith.muli %by, %c64 : index
    %col = arith.muli %bx, %c64 : index
    tile.copy %A[%row, %c0], %As : !tile.tensor<[M, K], bf16>, !tile.tile<64x32xbf16, shared>
    tile.copy %B[%c0, %col], %Bs : !tile.tensor<[K, N], bf16>, !tile.tile<32x64xbf16, shared>
    tile.gemm %As, %Bs, %Cf clear : !tile.tile<64x32xbf16, shared>, !tile.tile<32x64xbf16, shared>, !tile.tile<64x64xf32, fragment>
    tile.copy %s[%row, %kb], %sf : !tile.tensor<[M, KB], f32>, !tile.tile<64x1xf32, fragment>
    tile.parallel (%i, %j) in [64, 64] {
      %v = tile.load %Cf[%i, %j] : !tile.tile<64x64xf32, fragment>
      %a = tile.load %sf[%i, %c0] : !tile.tile<64x1xf32, fragment>
      %r = arith.mulf %v, %a : f32
      tile.store %r, %Cf[%i, %j] : !tile.tile<64x64xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<64x64xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}
