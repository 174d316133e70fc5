// A constant index into a fragment dimension of size 2 inside a
// tile.parallel: no layout relates it to the region (error).
tile.func @wide(%s: !tile.tensor<[M, 2], f32>, %C: !tile.tensor<[M, 64], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %Cf = tile.alloc : !tile.tile<64x64xf32, fragment>
    %sf = tile.alloc : !tile.tile<64x2xf32, fragment>
    tile.clear %Cf : !tile.tile<64x64xf32, fragment>
    tile.copy %s[%c0, %c0], %sf : !tile.tensor<[M, 2], f32>, !tile.tile<64x2xf32, fragment>
    tile.parallel (%i, %j) in [64, 64] {
      %v = tile.load %Cf[%i, %j] : !tile.tile<64x64xf32, fragment>
      %a = tile.load %sf[%i, %c0] : !tile.tile<64x2xf32, fragment>
      %r = arith.addf %v, %a : f32
      tile.store %r, %Cf[%i, %j] : !tile.tile<64x64xf32, fragment>
    }
    tile.copy %Cf, %C[%c0, %c0] : !tile.tile<64x64xf32, fragment>, !tile.tensor<[M, 64], f32>
  }
  tile.return
}
