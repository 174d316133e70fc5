// RMSNorm: Y[r, c] = X[r, c] / sqrt(mean(X[r, :]^2) + eps) * W[c] over an
// f32 [M, N] tensor with an f32 [N] weight. Each block owns 4 rows and walks
// them in 4x1024 column chunks, so any N works:
//   pass 1: sum of squares per row (masked loads read 0, which adds nothing);
//   pass 2: Y = X * rsqrt(sum / N + eps) * W.
tile.func @rmsnorm(%X: !tile.tensor<[M, N], f32>, %W: !tile.tensor<[N], f32>,
                   %Y: !tile.tensor<[M, N], f32>, %eps: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c1024 = arith.constant 1024 : index
  %m = tile.dim %X, 0 : !tile.tensor<[M, N], f32>
  %n = tile.dim %X, 1 : !tile.tensor<[M, N], f32>
  %n_i64 = arith.index_castui %n : index to i64
  %n_f32 = arith.uitofp %n_i64 : i64 to f32
  %grid = arith.ceildivui %m, %c4 : index
  %chunks = arith.ceildivui %n, %c1024 : index
  tile.kernel blocks(%bx) in (%grid) threads = 128 {
    %row = arith.muli %bx, %c4 : index
    %x = tile.alloc : !tile.tile<4x1024xf32, fragment>
    %w = tile.alloc : !tile.tile<1024xf32, fragment>
    %ss = tile.alloc : !tile.tile<4xf32, fragment>
    tile.clear %ss : !tile.tile<4xf32, fragment>

    // Pass 1: per-row sum of squares.
    scf.for %c = %c0 to %chunks step %c1 {
      %col0 = arith.muli %c, %c1024 : index
      tile.copy %X[%row, %col0], %x : !tile.tensor<[M, N], f32>, !tile.tile<4x1024xf32, fragment>
      tile.parallel (%i, %j) in [4, 1024] {
        %v = tile.load %x[%i, %j] : !tile.tile<4x1024xf32, fragment>
        %sq = arith.mulf %v, %v : f32
        tile.store %sq, %x[%i, %j] : !tile.tile<4x1024xf32, fragment>
      }
      tile.reduce sum %x, %ss dim = 1 accumulate : !tile.tile<4x1024xf32, fragment>, !tile.tile<4xf32, fragment>
    }
    // %ss becomes the per-row scale 1 / sqrt(mean + eps).
    tile.parallel (%i) in [4] {
      %s = tile.load %ss[%i] : !tile.tile<4xf32, fragment>
      %mean = arith.divf %s, %n_f32 : f32
      %t = arith.addf %mean, %eps : f32
      %r = math.rsqrt %t : f32
      tile.store %r, %ss[%i] : !tile.tile<4xf32, fragment>
    }

    // Pass 2: scale by the row factor and the weight, store.
    scf.for %c = %c0 to %chunks step %c1 {
      %col0 = arith.muli %c, %c1024 : index
      tile.copy %X[%row, %col0], %x : !tile.tensor<[M, N], f32>, !tile.tile<4x1024xf32, fragment>
      tile.copy %W[%col0], %w : !tile.tensor<[N], f32>, !tile.tile<1024xf32, fragment>
      tile.parallel (%i, %j) in [4, 1024] {
        %v = tile.load %x[%i, %j] : !tile.tile<4x1024xf32, fragment>
        %r = tile.load %ss[%i] : !tile.tile<4xf32, fragment>
        %wj = tile.load %w[%j] : !tile.tile<1024xf32, fragment>
        %vr = arith.mulf %v, %r : f32
        %y = arith.mulf %vr, %wj : f32
        tile.store %y, %x[%i, %j] : !tile.tile<4x1024xf32, fragment>
      }
      tile.copy %x, %Y[%row, %col0] : !tile.tile<4x1024xf32, fragment>, !tile.tensor<[M, N], f32>
    }
  }
  tile.return
}
