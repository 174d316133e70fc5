// Row softmax: Y[r, :] = exp(X[r, :] - max(X[r, :])) / sum(exp(X[r, :] - max(X[r, :])))
// over an f32 [M, N] tensor. Each block owns 4 rows and walks them in
// 4x1024 column chunks, so any N works (N <= 1024 takes one chunk per pass):
//   pass 1: online max and sum: for each chunk, m' = max(m, rowmax(chunk)),
//           l' = l * exp(m - m') + rowsum(exp(chunk - m'));
//   pass 2: Y = exp(X - m) / l.
// Masked loads read 0, which would corrupt the max, so columns at or past N
// are set to -inf by index before the reductions (exp(-inf - m) = 0 then
// keeps them out of the sum). Rows at or past M read zeros and are never
// stored.
tile.func @softmax(%X: !tile.tensor<[M, N], f32>, %Y: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c1024 = arith.constant 1024 : index
  %neg_inf = arith.constant 0xFF800000 : f32
  %m = tile.dim %X, 0 : !tile.tensor<[M, N], f32>
  %n = tile.dim %X, 1 : !tile.tensor<[M, N], f32>
  %grid = arith.ceildivui %m, %c4 : index
  %chunks = arith.ceildivui %n, %c1024 : index
  tile.kernel blocks(%bx) in (%grid) threads = 128 {
    %row = arith.muli %bx, %c4 : index
    %x = tile.alloc : !tile.tile<4x1024xf32, fragment>
    %mx = tile.alloc : !tile.tile<4xf32, fragment>
    %mprev = tile.alloc : !tile.tile<4xf32, fragment>
    %sum = tile.alloc : !tile.tile<4xf32, fragment>
    tile.fill %mx, %neg_inf : !tile.tile<4xf32, fragment>, f32
    tile.clear %sum : !tile.tile<4xf32, fragment>

    // Pass 1: running max and rescaled running sum.
    scf.for %c = %c0 to %chunks step %c1 {
      %col0 = arith.muli %c, %c1024 : index
      tile.copy %X[%row, %col0], %x : !tile.tensor<[M, N], f32>, !tile.tile<4x1024xf32, fragment>
      tile.parallel (%i, %j) in [4, 1024] {
        %col = arith.addi %col0, %j : index
        %inside = arith.cmpi ult, %col, %n : index
        %v = tile.load %x[%i, %j] : !tile.tile<4x1024xf32, fragment>
        %masked = arith.select %inside, %v, %neg_inf : f32
        tile.store %masked, %x[%i, %j] : !tile.tile<4x1024xf32, fragment>
      }
      tile.copy %mx, %mprev : !tile.tile<4xf32, fragment>, !tile.tile<4xf32, fragment>
      tile.reduce max %x, %mx dim = 1 accumulate : !tile.tile<4x1024xf32, fragment>, !tile.tile<4xf32, fragment>
      tile.parallel (%i, %j) in [4, 1024] {
        %v = tile.load %x[%i, %j] : !tile.tile<4x1024xf32, fragment>
        %mi = tile.load %mx[%i] : !tile.tile<4xf32, fragment>
        %d = arith.subf %v, %mi : f32
        %e = math.exp %d : f32
        tile.store %e, %x[%i, %j] : !tile.tile<4x1024xf32, fragment>
      }
      tile.parallel (%i) in [4] {
        %old = tile.load %mprev[%i] : !tile.tile<4xf32, fragment>
        %new = tile.load %mx[%i] : !tile.tile<4xf32, fragment>
        %d = arith.subf %old, %new : f32
        %scale = math.exp %d : f32
        %l = tile.load %sum[%i] : !tile.tile<4xf32, fragment>
        %ls = arith.mulf %l, %scale : f32
        tile.store %ls, %sum[%i] : !tile.tile<4xf32, fragment>
      }
      tile.reduce sum %x, %sum dim = 1 accumulate : !tile.tile<4x1024xf32, fragment>, !tile.tile<4xf32, fragment>
    }

    // Pass 2: normalize and store (the copy skips columns past N).
    scf.for %c = %c0 to %chunks step %c1 {
      %col0 = arith.muli %c, %c1024 : index
      tile.copy %X[%row, %col0], %x : !tile.tensor<[M, N], f32>, !tile.tile<4x1024xf32, fragment>
      tile.parallel (%i, %j) in [4, 1024] {
        %v = tile.load %x[%i, %j] : !tile.tile<4x1024xf32, fragment>
        %mi = tile.load %mx[%i] : !tile.tile<4xf32, fragment>
        %l = tile.load %sum[%i] : !tile.tile<4xf32, fragment>
        %d = arith.subf %v, %mi : f32
        %e = math.exp %d : f32
        %y = arith.divf %e, %l : f32
        tile.store %y, %x[%i, %j] : !tile.tile<4x1024xf32, fragment>
      }
      tile.copy %x, %Y[%row, %col0] : !tile.tile<4x1024xf32, fragment>, !tile.tensor<[M, N], f32>
    }
  }
  tile.return
}
