// A gemm operand held in fewer registers than its atom's layout takes is
// read by lane shuffles each k-step instead of being converted into a
// repeated copy (core/passes/lib/LaneGather.h). RDNA3's WMMA reads A with
// lanes l and l + 16 holding the same row (32 halves of this 64x32 tile per
// lane); held compactly (lane l + 16 holding k 8..15 of row l: 16 halves),
// layout inference keeps it and records the layout the atom reads as
// `a_layout` on the gemm; distribution gathers each k-step's operand with an
// XOR-16 shuffle and a select.
// RUN: %tessera-opt --tessera-infer-layouts=target=gfx1100 %s | FileCheck %s
// Without the compact layout, or on RDNA4 (whose WMMA repeats nothing), the
// operand has the atom's layout and no gather.
// RUN: sed -e 's/, #tile.layout<[^>]*>//' %s | %tessera-opt --tessera-infer-layouts=target=gfx1100 | FileCheck %s --check-prefix=PLAIN
// RUN: sed -e 's/, #tile.layout<[^>]*>//' %s | %tessera-opt --tessera-infer-layouts=target=gfx1201 | FileCheck %s --check-prefix=PLAIN
// A layout the atom cannot gather from (rows in other warps) is converted.
// RUN: sed -e 's/warp = \[\[16, 0\], \[32, 0\]\]/warp = [[32, 0], [16, 0]]/' %s | %tessera-opt --tessera-infer-layouts=target=gfx1100 | FileCheck %s --check-prefix=CONVERT

// CHECK: %[[A:[0-9]+]] = tile.alloc : <64x32xf16, fragment, #tile.layout<reg = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 16]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [0, 8]]
// CHECK-NOT: tile.convert_layout
// CHECK: tile.gemm %[[A]], %{{[0-9]+}}, %{{[0-9]+}} clear {a_layout = #tile.layout<reg = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [0, 0]], warp = {{\[\[}}16, 0], [32, 0]], block = []>, atom = "wmma_16x16x16_f16_f32"

// PLAIN-NOT: a_layout
// PLAIN-NOT: tile.convert_layout
// PLAIN: tile.gemm
// PLAIN-NOT: a_layout

// CONVERT-NOT: a_layout
// CONVERT: tile.convert_layout
// CONVERT-NOT: a_layout

tile.func @held_compactly(%A: !tile.tensor<[M, 32], f16>, %B: !tile.tensor<[32, N], f16>,
                          %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, 32], f16>
  %n = tile.dim %B, 1 : !tile.tensor<[32, N], f16>
  %gx = arith.ceildivui %n, %c64 : index
  %gy = arith.ceildivui %m, %c64 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %row = arith.muli %by, %c64 : index
    %col = arith.muli %bx, %c64 : index
    %Af = tile.alloc : !tile.tile<64x32xf16, fragment, #tile.layout<reg = [[0, 1], [0, 2], [0, 4], [0, 16]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]], warp = [[16, 0], [32, 0]], block = []>>
    %Bs = tile.alloc : !tile.tile<32x64xf16, shared>
    %Cf = tile.alloc : !tile.tile<64x64xf32, fragment>
    tile.copy %A[%row, %c0], %Af : !tile.tensor<[M, 32], f16>, !tile.tile<64x32xf16, fragment, #tile.layout<reg = [[0, 1], [0, 2], [0, 4], [0, 16]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]], warp = [[16, 0], [32, 0]], block = []>>
    tile.copy %B[%c0, %col], %Bs : !tile.tensor<[32, N], f16>, !tile.tile<32x64xf16, shared>
    tile.gemm %Af, %Bs, %Cf clear : !tile.tile<64x32xf16, fragment, #tile.layout<reg = [[0, 1], [0, 2], [0, 4], [0, 16]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]], warp = [[16, 0], [32, 0]], block = []>>, !tile.tile<32x64xf16, shared>, !tile.tile<64x64xf32, fragment>
    tile.copy %Cf, %C[%row, %col] : !tile.tile<64x64xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}
