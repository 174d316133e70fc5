// LayerNorm over long f32 rows:
//   Y[r, c] = (X[r, c] - mean_r) / sqrt(var_r + eps) * gamma[c] + beta[c]
// with mean_r and the (biased) variance var_r over the row's N columns.
// X, Y: f32 [M, N]; gamma, beta: f32 [N]; eps: f32.
// Grid (ceil(M / 4)), 128 threads: each block owns 4 rows, walked in 4x2048
// column chunks, in three passes so that any N works and the variance is
// the stable two-pass one (no E[x^2] - E[x]^2 cancellation):
//   pass 1: row sums -> mean;
//   pass 2: sum of (x - mean)^2 over columns < N (the masked columns past N
//           load 0, so they are zeroed by index) -> rstd;
//   pass 3: normalize, scale, shift, store.
tile.func @layernorm_f32_16k(%X: !tile.tensor<[M, N], f32>, %gamma: !tile.tensor<[N], f32>,
                             %beta: !tile.tensor<[N], f32>, %Y: !tile.tensor<[M, N], f32>,
                             %eps: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c2048 = arith.constant 2048 : index
  %zero = arith.constant 0.0 : f32
  %m = tile.dim %X, 0 : !tile.tensor<[M, N], f32>
  %n = tile.dim %X, 1 : !tile.tensor<[M, N], f32>
  %n_i64 = arith.index_cast %n : index to i64
  %n_f = arith.sitofp %n_i64 : i64 to f32
  %grid = arith.ceildivui %m, %c4 : index
  %chunks = arith.ceildivui %n, %c2048 : index
  tile.kernel blocks(%bx) in (%grid) threads = 128 {
    %row = arith.muli %bx, %c4 : index
    %x = tile.alloc : !tile.tile<4x2048xf32, fragment>
    %g = tile.alloc : !tile.tile<2048xf32, fragment>
    %b = tile.alloc : !tile.tile<2048xf32, fragment>
    %sum = tile.alloc : !tile.tile<4xf32, fragment>
    %mean = tile.alloc : !tile.tile<4xf32, fragment>
    %var = tile.alloc : !tile.tile<4xf32, fragment>
    %rstd = tile.alloc : !tile.tile<4xf32, fragment>
    tile.clear %sum : !tile.tile<4xf32, fragment>
    tile.clear %var : !tile.tile<4xf32, fragment>
    scf.for %c = %c0 to %chunks step %c1 {
      %col0 = arith.muli %c, %c2048 : index
      tile.copy %X[%row, %col0], %x : !tile.tensor<[M, N], f32>, !tile.tile<4x2048xf32, fragment>
      tile.reduce sum %x, %sum dim = 1 accumulate : !tile.tile<4x2048xf32, fragment>, !tile.tile<4xf32, fragment>
    }
    tile.parallel (%i) in [4] {
      %s = tile.load %sum[%i] : !tile.tile<4xf32, fragment>
      %mu = arith.divf %s, %n_f : f32
      tile.store %mu, %mean[%i] : !tile.tile<4xf32, fragment>
    }
    scf.for %c = %c0 to %chunks step %c1 {
      %col0 = arith.muli %c, %c2048 : index
      tile.copy %X[%row, %col0], %x : !tile.tensor<[M, N], f32>, !tile.tile<4x2048xf32, fragment>
      tile.parallel (%i, %j) in [4, 2048] {
        %v = tile.load %x[%i, %j] : !tile.tile<4x2048xf32, fragment>
        %mu = tile.load %mean[%i] : !tile.tile<4xf32, fragment>
        %col = arith.addi %col0, %j : index
        %inside = arith.cmpi ult, %col, %n : index
        %d = arith.subf %v, %mu : f32
        %d2 = arith.mulf %d, %d : f32
        %r = arith.select %inside, %d2, %zero : f32
        tile.store %r, %x[%i, %j] : !tile.tile<4x2048xf32, fragment>
      }
      tile.reduce sum %x, %var dim = 1 accumulate : !tile.tile<4x2048xf32, fragment>, !tile.tile<4xf32, fragment>
    }
    tile.parallel (%i) in [4] {
      %v = tile.load %var[%i] : !tile.tile<4xf32, fragment>
      %vn = arith.divf %v, %n_f : f32
      %ve = arith.addf %vn, %eps : f32
      %r = math.rsqrt %ve : f32
      tile.store %r, %rstd[%i] : !tile.tile<4xf32, fragment>
    }
    scf.for %c = %c0 to %chunks step %c1 {
      %col0 = arith.muli %c, %c2048 : index
      tile.copy %X[%row, %col0], %x : !tile.tensor<[M, N], f32>, !tile.tile<4x2048xf32, fragment>
      tile.copy %gamma[%col0], %g : !tile.tensor<[N], f32>, !tile.tile<2048xf32, fragment>
      tile.copy %beta[%col0], %b : !tile.tensor<[N], f32>, !tile.tile<2048xf32, fragment>
      tile.parallel (%i, %j) in [4, 2048] {
        %v = tile.load %x[%i, %j] : !tile.tile<4x2048xf32, fragment>
        %mu = tile.load %mean[%i] : !tile.tile<4xf32, fragment>
        %r = tile.load %rstd[%i] : !tile.tile<4xf32, fragment>
        %gj = tile.load %g[%j] : !tile.tile<2048xf32, fragment>
        %bj = tile.load %b[%j] : !tile.tile<2048xf32, fragment>
        %d = arith.subf %v, %mu : f32
        %dn = arith.mulf %d, %r : f32
        %dg = arith.mulf %dn, %gj : f32
        %y = arith.addf %dg, %bj : f32
        tile.store %y, %x[%i, %j] : !tile.tile<4x2048xf32, fragment>
      }
      tile.copy %x, %Y[%row, %col0] : !tile.tile<4x2048xf32, fragment>, !tile.tensor<[M, N], f32>
    }
  }
  tile.return
}
