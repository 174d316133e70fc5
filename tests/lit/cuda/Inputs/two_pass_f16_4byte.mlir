// The same two passes with 64 columns a chunk: two f16 (4 bytes) a thread
// and copy (tests/lit/cuda/l2_keep_refusal.mlir).
tile.func @two_pass_f16_4byte(%X: !tile.tensor<[M, N], f16>, %Y: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 64 : index
  %m = tile.dim %X, 0 : !tile.tensor<[M, N], f16>
  %n = tile.dim %X, 1 : !tile.tensor<[M, N], f16>
  %chunks = arith.ceildivui %n, %c32 : index
  tile.kernel blocks(%bx) in (%m) threads = 32 {
    %x = tile.alloc : !tile.tile<1x64xf16, fragment>
    %y = tile.alloc : !tile.tile<1x64xf32, fragment>
    %sum = tile.alloc : !tile.tile<1xf32, fragment>
    tile.clear %sum : !tile.tile<1xf32, fragment>
    scf.for %c = %c0 to %chunks step %c1 {
      %col0 = arith.muli %c, %c32 : index
      tile.copy %X[%bx, %col0], %x : !tile.tensor<[M, N], f16>, !tile.tile<1x64xf16, fragment>
      tile.copy %x, %y : !tile.tile<1x64xf16, fragment>, !tile.tile<1x64xf32, fragment>
      tile.reduce sum %y, %sum dim = 1 accumulate : !tile.tile<1x64xf32, fragment>, !tile.tile<1xf32, fragment>
    }
    scf.for %c = %c0 to %chunks step %c1 {
      %col0 = arith.muli %c, %c32 : index
      tile.copy %X[%bx, %col0], %x : !tile.tensor<[M, N], f16>, !tile.tile<1x64xf16, fragment>
      tile.parallel (%i, %j) in [1, 64] {
        %v = tile.load %x[%i, %j] : !tile.tile<1x64xf16, fragment>
        %s = tile.load %sum[%i] : !tile.tile<1xf32, fragment>
        %vf = arith.extf %v : f16 to f32
        %r = arith.subf %vf, %s : f32
        tile.store %r, %y[%i, %j] : !tile.tile<1x64xf32, fragment>
      }
      tile.copy %y, %Y[%bx, %col0] : !tile.tile<1x64xf32, fragment>, !tile.tensor<[M, N], f32>
    }
  }
  tile.return
}
