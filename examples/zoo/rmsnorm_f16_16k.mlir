// RMSNorm over long f16 rows: Y[r, c] = X[r, c] / sqrt(mean(X[r, :]^2) + eps) * W[c],
// computed in f32, stored f16. Rows of any length (16k and more).
// X, Y: f16 [M, N]; W: f16 [N]; eps: f32.
// Grid (M), 256 threads: one row per block, walked in 1x4096 chunks:
//   pass 1: sum of squares (masked columns load 0 and add nothing);
//   pass 2: Y = X * rsqrt(ss / N + eps) * W, chunk by chunk.
tile.func @rmsnorm_f16_16k(%X: !tile.tensor<[M, N], f16>, %W: !tile.tensor<[N], f16>,
                           %Y: !tile.tensor<[M, N], f16>, %eps: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %m = tile.dim %X, 0 : !tile.tensor<[M, N], f16>
  %n = tile.dim %X, 1 : !tile.tensor<[M, N], f16>
  %n_i64 = arith.index_cast %n : index to i64
  %n_f = arith.sitofp %n_i64 : i64 to f32
  %chunks = arith.ceildivui %n, %c4096 : index
  tile.kernel blocks(%bx) in (%m) threads = 256 {
    %x = tile.alloc : !tile.tile<1x4096xf32, fragment>
    %w = tile.alloc : !tile.tile<4096xf32, fragment>
    %ss = tile.alloc : !tile.tile<1xf32, fragment>
    %inv = tile.alloc : !tile.tile<1xf32, fragment>
    tile.clear %ss : !tile.tile<1xf32, fragment>
    scf.for %c = %c0 to %chunks step %c1 {
      %col0 = arith.muli %c, %c4096 : index
      tile.copy %X[%bx, %col0], %x : !tile.tensor<[M, N], f16>, !tile.tile<1x4096xf32, fragment>
      tile.parallel (%i, %j) in [1, 4096] {
        %v = tile.load %x[%i, %j] : !tile.tile<1x4096xf32, fragment>
        %sq = arith.mulf %v, %v : f32
        tile.store %sq, %x[%i, %j] : !tile.tile<1x4096xf32, fragment>
      }
      tile.reduce sum %x, %ss dim = 1 accumulate : !tile.tile<1x4096xf32, fragment>, !tile.tile<1xf32, fragment>
    }
    tile.parallel (%i) in [1] {
      %s = tile.load %ss[%i] : !tile.tile<1xf32, fragment>
      %mean = arith.divf %s, %n_f : f32
      %me = arith.addf %mean, %eps : f32
      %r = math.rsqrt %me : f32
      tile.store %r, %inv[%i] : !tile.tile<1xf32, fragment>
    }
    scf.for %c = %c0 to %chunks step %c1 {
      %col0 = arith.muli %c, %c4096 : index
      tile.copy %X[%bx, %col0], %x : !tile.tensor<[M, N], f16>, !tile.tile<1x4096xf32, fragment>
      tile.copy %W[%col0], %w : !tile.tensor<[N], f16>, !tile.tile<4096xf32, fragment>
      tile.parallel (%i, %j) in [1, 4096] {
        %v = tile.load %x[%i, %j] : !tile.tile<1x4096xf32, fragment>
        %r = tile.load %inv[%i] : !tile.tile<1xf32, fragment>
        %g = tile.load %w[%j] : !tile.tile<4096xf32, fragment>
        %vr = arith.mulf %v, %r : f32
        %y = arith.mulf %vr, %g : f32
        tile.store %y, %x[%i, %j] : !tile.tile<1x4096xf32, fragment>
      }
      tile.copy %x, %Y[%bx, %col0] : !tile.tile<1x4096xf32, fragment>, !tile.tensor<[M, N], f16>
    }
  }
  tile.return
}
