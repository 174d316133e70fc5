// Kernels for tests/lit/cuda/mask_versioning.mlir and
// tests/lit/spirv/mask_versioning.mlir: Y = X masked in 64x64 blocks.

// Not affine: the condition multiplies two indices.
tile.func @product(%X: !tile.tensor<[M, N], f32>, %Y: !tile.tensor<[M, N], f32>,
                   %t: i32) {
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = tile.dim %X, 0 : !tile.tensor<[M, N], f32>
  %n = tile.dim %X, 1 : !tile.tensor<[M, N], f32>
  %gm = arith.ceildivui %m, %c64 : index
  %gn = arith.ceildivui %n, %c64 : index
  %ti = arith.index_cast %t : i32 to index
  tile.kernel blocks(%bx, %by) in (%gn, %gm) threads = 128 {
    %r0 = arith.muli %by, %c64 : index
    %c0 = arith.muli %bx, %c64 : index
    %F = tile.alloc : !tile.tile<64x64xf32, fragment>
    tile.copy %X[%r0, %c0], %F : !tile.tensor<[M, N], f32>, !tile.tile<64x64xf32, fragment>
    tile.parallel (%i, %j) in [64, 64] {
      %v = tile.load %F[%i, %j] : !tile.tile<64x64xf32, fragment>
      %p = arith.muli %i, %j : index
      %small = arith.cmpi ult, %p, %ti : index
      %w = arith.select %small, %v, %zero : f32
      tile.store %w, %F[%i, %j] : !tile.tile<64x64xf32, fragment>
    }
    tile.copy %F, %Y[%r0, %c0] : !tile.tile<64x64xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// A condition on the loaded value (and one on an index, which alone would
// be decidable, in the same conjunction): not decidable per block.
tile.func @relu(%X: !tile.tensor<[M, N], f32>, %Y: !tile.tensor<[M, N], f32>) {
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = tile.dim %X, 0 : !tile.tensor<[M, N], f32>
  %n = tile.dim %X, 1 : !tile.tensor<[M, N], f32>
  %gm = arith.ceildivui %m, %c64 : index
  %gn = arith.ceildivui %n, %c64 : index
  tile.kernel blocks(%bx, %by) in (%gn, %gm) threads = 128 {
    %r0 = arith.muli %by, %c64 : index
    %c0 = arith.muli %bx, %c64 : index
    %F = tile.alloc : !tile.tile<64x64xf32, fragment>
    tile.copy %X[%r0, %c0], %F : !tile.tensor<[M, N], f32>, !tile.tile<64x64xf32, fragment>
    tile.parallel (%i, %j) in [64, 64] {
      %v = tile.load %F[%i, %j] : !tile.tile<64x64xf32, fragment>
      %col = arith.addi %c0, %j : index
      %inside = arith.cmpi ult, %col, %n : index
      %pos = arith.cmpf ogt, %v, %zero : f32
      %keep = arith.andi %inside, %pos : i1
      %w = arith.select %keep, %v, %zero : f32
      tile.store %w, %F[%i, %j] : !tile.tile<64x64xf32, fragment>
    }
    tile.copy %F, %Y[%r0, %c0] : !tile.tile<64x64xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}


// A lower-triangular mask inside the matrix (an attention-like condition:
// col <= row + shift, col < N), as a select: decidable per block.
tile.func @tri(%X: !tile.tensor<[M, N], f32>, %Y: !tile.tensor<[M, N], f32>,
               %shift: i32) {
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = tile.dim %X, 0 : !tile.tensor<[M, N], f32>
  %n = tile.dim %X, 1 : !tile.tensor<[M, N], f32>
  %gm = arith.ceildivui %m, %c64 : index
  %gn = arith.ceildivui %n, %c64 : index
  %s = arith.index_cast %shift : i32 to index
  tile.kernel blocks(%bx, %by) in (%gn, %gm) threads = 128 {
    %r0 = arith.muli %by, %c64 : index
    %c0 = arith.muli %bx, %c64 : index
    %F = tile.alloc : !tile.tile<64x64xf32, fragment>
    tile.copy %X[%r0, %c0], %F : !tile.tensor<[M, N], f32>, !tile.tile<64x64xf32, fragment>
    tile.parallel (%i, %j) in [64, 64] {
      %v = tile.load %F[%i, %j] : !tile.tile<64x64xf32, fragment>
      %row = arith.addi %r0, %i : index
      %col = arith.addi %c0, %j : index
      %lim = arith.addi %row, %s : index
      %below = arith.cmpi ule, %col, %lim : index
      %inside = arith.cmpi ult, %col, %n : index
      %keep = arith.andi %below, %inside : i1
      %w = arith.select %keep, %v, %zero : f32
      tile.store %w, %F[%i, %j] : !tile.tile<64x64xf32, fragment>
    }
    tile.copy %F, %Y[%r0, %c0] : !tile.tile<64x64xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// A band of half-width w around the diagonal, written with signed compares
// on i64 and a negation, guarding an scf.if (with a compare of an index
// alone): decidable per block.
tile.func @band(%X: !tile.tensor<[M, N], f32>, %Y: !tile.tensor<[M, N], f32>,
                %w32: i32) {
  %c64 = arith.constant 64 : index
  %true = arith.constant true
  %w = arith.extsi %w32 : i32 to i64
  %m = tile.dim %X, 0 : !tile.tensor<[M, N], f32>
  %n = tile.dim %X, 1 : !tile.tensor<[M, N], f32>
  %gm = arith.ceildivui %m, %c64 : index
  %gn = arith.ceildivui %n, %c64 : index
  tile.kernel blocks(%bx, %by) in (%gn, %gm) threads = 128 {
    %r0 = arith.muli %by, %c64 : index
    %c0 = arith.muli %bx, %c64 : index
    %r0i = arith.index_cast %r0 : index to i64
    %c0i = arith.index_cast %c0 : index to i64
    %F = tile.alloc : !tile.tile<64x64xf32, fragment>
    tile.copy %X[%r0, %c0], %F : !tile.tensor<[M, N], f32>, !tile.tile<64x64xf32, fragment>
    tile.parallel (%i, %j) in [64, 64] {
      %v = tile.load %F[%i, %j] : !tile.tile<64x64xf32, fragment>
      %ii = arith.index_cast %i : index to i64
      %jj = arith.index_cast %j : index to i64
      %row = arith.addi %r0i, %ii : i64
      %col = arith.addi %c0i, %jj : i64
      %d = arith.subi %col, %row : i64
      %hi = arith.cmpi sgt, %d, %w : i64
      %nd = arith.subi %row, %col : i64
      %lo = arith.cmpi sgt, %nd, %w : i64
      %out = arith.ori %hi, %lo : i1
      %in = arith.xori %out, %true : i1
      %inside = arith.cmpi ult, %j, %n : index
      %ok = arith.andi %in, %inside : i1
      %r = scf.if %ok -> f32 {
        %t = arith.mulf %v, %v : f32
        scf.yield %t : f32
      } else {
        %t = arith.negf %v : f32
        scf.yield %t : f32
      }
      tile.store %r, %F[%i, %j] : !tile.tile<64x64xf32, fragment>
    }
    tile.copy %F, %Y[%r0, %c0] : !tile.tile<64x64xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}