// Seed: tile types with layouts, rank-3 tiles, atomics, a transposed copy.
tile.func @layouts(%A: !tile.tensor<[B, M, N], f32>, %C: !tile.tensor<[?, 64], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    %f = tile.alloc : !tile.tile<16x32xf32, fragment, #tile.layout<reg = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0]], warp = [], block = []>>
    %t = tile.alloc : !tile.tile<2x4x8xf32, shared>
    %s = tile.alloc : !tile.tile<32x16xf32, shared>
    tile.copy %A[%b, %c0, %c0], %f : !tile.tensor<[B, M, N], f32>, !tile.tile<16x32xf32, fragment, #tile.layout<reg = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0]], warp = [], block = []>>
    tile.copy %A[%c0, %c0, %c0], %t : !tile.tensor<[B, M, N], f32>, !tile.tile<2x4x8xf32, shared>
    tile.copy %f, %s transpose : !tile.tile<16x32xf32, fragment, #tile.layout<reg = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0]], warp = [], block = []>>, !tile.tile<32x16xf32, shared>
    tile.atomic max %f, %C[%c0, %c0] : !tile.tile<16x32xf32, fragment, #tile.layout<reg = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0]], warp = [], block = []>>, !tile.tensor<[?, 64], f32>
  }
  tile.return
}
