// The vector-FMA accumulator layout follows how the operands are stored
// (core/passes/include/tessera/Passes/FmaLayout.h). An operand stored with K
// contiguous is read a chunk of K per row: the lanes take consecutive rows
// (the swizzle puts the same chunk of consecutive rows in distinct banks)
// and a thread's rows are a lane-and-warp stride apart. An operand stored
// with M / N contiguous is read 4 consecutive elements per lane. Threads
// hold 2-D blocks: 8 x 16 of a 128 x 128 tile at 128 threads (24 values per
// k, not the 36 of 32 rows x 4 columns). Same on gfx1100 (no f32 WMMA).
// TESSERA_FMA_LAYOUT=0: the plain blocked layout.
// RUN: %tessera-opt --tessera-infer-layouts=target=sm_90a %s | FileCheck %s
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx1100 %s | FileCheck %s
// RUN: env TESSERA_FMA_LAYOUT=0 %tessera-opt --tessera-infer-layouts=target=sm_90a %s | FileCheck %s --check-prefix=OFF

// Y = X W^T: both operands K contiguous. 4 x 8 lanes on consecutive rows
// and columns, warps along M, 8 rows and 16 columns per thread.
// CHECK-LABEL: tile.func @nt
// CHECK: tile.gemm {{.*}}atom = "fma"{{.*}}<128x128xf32, fragment, #tile.layout<reg = {{\[\[}}0, 8], [0, 16], [0, 32], [0, 64], [16, 0], [32, 0], [64, 0{{\]\]}}, lane = {{\[\[}}0, 1], [0, 2], [0, 4], [1, 0], [2, 0{{\]\]}}, warp = {{\[\[}}4, 0], [8, 0{{\]\]}}, block = []>>
// OFF-LABEL: tile.func @nt
// OFF: tile.gemm {{.*}}atom = "fma"{{.*}}#tile.layout<reg = {{\[\[}}0, 1], [0, 2], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0{{\]\]}}, lane = {{\[\[}}0, 4], [0, 8], [0, 16], [0, 32], [0, 64{{\]\]}}, warp = {{\[\[}}1, 0], [2, 0{{\]\]}}
tile.func @nt(%X: !tile.tensor<[M, K], f32>, %W: !tile.tensor<[N, K], f32>, %Y: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %Xs = tile.alloc : !tile.tile<128x32xf32, shared>
    %Ws = tile.alloc : !tile.tile<128x32xf32, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    tile.copy %X[%c0, %c0], %Xs : !tile.tensor<[M, K], f32>, !tile.tile<128x32xf32, shared>
    tile.copy %W[%c0, %c0], %Ws : !tile.tensor<[N, K], f32>, !tile.tile<128x32xf32, shared>
    tile.gemm %Xs, %Ws, %Cf transpose_b : !tile.tile<128x32xf32, shared>, !tile.tile<128x32xf32, shared>, !tile.tile<128x128xf32, fragment>
    tile.copy %Cf, %Y[%c0, %c0] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// C = A B, B stored K x N: N takes vectors of 4 columns over 8 lanes.
// CHECK-LABEL: tile.func @nn
// CHECK: tile.gemm {{.*}}atom = "fma"{{.*}}<128x128xf32, fragment, #tile.layout<reg = {{\[\[}}0, 1], [0, 2], [0, 32], [0, 64], [16, 0], [32, 0], [64, 0{{\]\]}}, lane = {{\[\[}}0, 4], [0, 8], [0, 16], [1, 0], [2, 0{{\]\]}}, warp = {{\[\[}}4, 0], [8, 0{{\]\]}}, block = []>>
tile.func @nn(%A: !tile.tensor<[M, K], f32>, %B: !tile.tensor<[K, N], f32>, %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %As = tile.alloc : !tile.tile<128x32xf32, shared>
    %Bs = tile.alloc : !tile.tile<32x128xf32, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    tile.copy %A[%c0, %c0], %As : !tile.tensor<[M, K], f32>, !tile.tile<128x32xf32, shared>
    tile.copy %B[%c0, %c0], %Bs : !tile.tensor<[K, N], f32>, !tile.tile<32x128xf32, shared>
    tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xf32, shared>, !tile.tile<32x128xf32, shared>, !tile.tile<128x128xf32, fragment>
    tile.copy %Cf, %C[%c0, %c0] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// C = A^T B^T, A stored K x M, B stored N x K: M takes vectors of 4 rows,
// N one column per lane step.
// CHECK-LABEL: tile.func @tt
// CHECK: tile.gemm {{.*}}transpose_a transpose_b {atom = "fma"{{.*}}<128x64xf32, fragment, #tile.layout<reg = {{\[\[}}1, 0], [2, 0], [0, 8], [0, 16], [0, 32{{\]\]}}, lane = {{\[\[}}0, 1], [0, 2], [0, 4], [4, 0], [8, 0{{\]\]}}, warp = {{\[\[}}16, 0], [32, 0], [64, 0{{\]\]}}, block = []>>
tile.func @tt(%A: !tile.tensor<[K, M], f32>, %B: !tile.tensor<[N, K], f32>, %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 256 {
    %As = tile.alloc : !tile.tile<16x128xf32, shared>
    %Bs = tile.alloc : !tile.tile<64x16xf32, shared>
    %Cf = tile.alloc : !tile.tile<128x64xf32, fragment>
    tile.clear %Cf : !tile.tile<128x64xf32, fragment>
    tile.copy %A[%c0, %c0], %As : !tile.tensor<[K, M], f32>, !tile.tile<16x128xf32, shared>
    tile.copy %B[%c0, %c0], %Bs : !tile.tensor<[N, K], f32>, !tile.tile<64x16xf32, shared>
    tile.gemm %As, %Bs, %Cf transpose_a transpose_b : !tile.tile<16x128xf32, shared>, !tile.tile<64x16xf32, shared>, !tile.tile<128x64xf32, fragment>
    tile.copy %Cf, %C[%c0, %c0] : !tile.tile<128x64xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}
