// Row softmax over long bf16 rows (vocabulary-sized, up to 16k columns and
// beyond): Y[r, :] = softmax(X[r, :] * scale), computed in f32, stored bf16.
// X, Y: bf16 [M, N]; scale: f32 (e.g. 1 / temperature).
// Grid (ceil(M / 2)), 256 threads: each block owns 2 rows and walks them in
// 2x4096 column chunks (a 16k row is 4 chunks):
//   pass 1: online max and rescaled sum over the chunks;
//   pass 2: Y = exp(x - m) / l, chunk by chunk.
// Masked loads past N read 0, so those columns are set to -inf before the
// max (exp(-inf - m) = 0 keeps them out of the sum).
tile.func @softmax_bf16_16k(%X: !tile.tensor<[M, N], bf16>, %Y: !tile.tensor<[M, N], bf16>,
                            %scale: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4096 = arith.constant 4096 : index
  %neg_inf = arith.constant 0xFF800000 : f32
  %m = tile.dim %X, 0 : !tile.tensor<[M, N], bf16>
  %n = tile.dim %X, 1 : !tile.tensor<[M, N], bf16>
  %grid = arith.ceildivui %m, %c2 : index
  %chunks = arith.ceildivui %n, %c4096 : index
  tile.kernel blocks(%bx) in (%grid) threads = 256 {
    %row = arith.muli %bx, %c2 : index
    %x = tile.alloc : !tile.tile<2x4096xf32, fragment>
    %mx = tile.alloc : !tile.tile<2xf32, fragment>
    %mprev = tile.alloc : !tile.tile<2xf32, fragment>
    %sum = tile.alloc : !tile.tile<2xf32, fragment>
    tile.fill %mx, %neg_inf : !tile.tile<2xf32, fragment>, f32
    tile.clear %sum : !tile.tile<2xf32, fragment>
    scf.for %c = %c0 to %chunks step %c1 {
      %col0 = arith.muli %c, %c4096 : index
      tile.copy %X[%row, %col0], %x : !tile.tensor<[M, N], bf16>, !tile.tile<2x4096xf32, fragment>
      tile.parallel (%i, %j) in [2, 4096] {
        %col = arith.addi %col0, %j : index
        %inside = arith.cmpi ult, %col, %n : index
        %v = tile.load %x[%i, %j] : !tile.tile<2x4096xf32, fragment>
        %vs = arith.mulf %v, %scale : f32
        %masked = arith.select %inside, %vs, %neg_inf : f32
        tile.store %masked, %x[%i, %j] : !tile.tile<2x4096xf32, fragment>
      }
      tile.copy %mx, %mprev : !tile.tile<2xf32, fragment>, !tile.tile<2xf32, fragment>
      tile.reduce max %x, %mx dim = 1 accumulate : !tile.tile<2x4096xf32, fragment>, !tile.tile<2xf32, fragment>
      tile.parallel (%i, %j) in [2, 4096] {
        %v = tile.load %x[%i, %j] : !tile.tile<2x4096xf32, fragment>
        %mi = tile.load %mx[%i] : !tile.tile<2xf32, fragment>
        %d = arith.subf %v, %mi : f32
        %e = math.exp %d : f32
        tile.store %e, %x[%i, %j] : !tile.tile<2x4096xf32, fragment>
      }
      tile.parallel (%i) in [2] {
        %old = tile.load %mprev[%i] : !tile.tile<2xf32, fragment>
        %new = tile.load %mx[%i] : !tile.tile<2xf32, fragment>
        %d = arith.subf %old, %new : f32
        %r = math.exp %d : f32
        %l = tile.load %sum[%i] : !tile.tile<2xf32, fragment>
        %ls = arith.mulf %l, %r : f32
        tile.store %ls, %sum[%i] : !tile.tile<2xf32, fragment>
      }
      tile.reduce sum %x, %sum dim = 1 accumulate : !tile.tile<2x4096xf32, fragment>, !tile.tile<2xf32, fragment>
    }
    scf.for %c = %c0 to %chunks step %c1 {
      %col0 = arith.muli %c, %c4096 : index
      tile.copy %X[%row, %col0], %x : !tile.tensor<[M, N], bf16>, !tile.tile<2x4096xf32, fragment>
      tile.parallel (%i, %j) in [2, 4096] {
        %v = tile.load %x[%i, %j] : !tile.tile<2x4096xf32, fragment>
        %mi = tile.load %mx[%i] : !tile.tile<2xf32, fragment>
        %l = tile.load %sum[%i] : !tile.tile<2xf32, fragment>
        %vs = arith.mulf %v, %scale : f32
        %d = arith.subf %vs, %mi : f32
        %e = math.exp %d : f32
        %y = arith.divf %e, %l : f32
        tile.store %y, %x[%i, %j] : !tile.tile<2x4096xf32, fragment>
      }
      tile.copy %x, %Y[%row, %col0] : !tile.tile<2x4096xf32, fragment>, !tile.tensor<[M, N], bf16>
    }
  }
  tile.return
}
