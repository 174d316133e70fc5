// MoE router: scores = X * Wg over 256 experts, the top 8 experts of each
// token, and the softmax of their 8 scores (renormalized over the selected
// experts, as Mixtral / DeepSeek-style routers do).
// X: bf16 [T, D]; Wg: bf16 [D, 256]; Idx: i32 [T, 8] (expert ids, best
// first; equal scores pick the lower id); Wt: f32 [T, 8] (weights, summing
// to 1 per token).
// Grid (ceil(T / 32)), 128 threads. Tiles: 32 tokens per block; the 32x256
// f32 score fragment is accumulated over D in steps of 64 (X 32x64 and Wg
// 64x256 shared tiles, 2-stage pipeline). Then 8 rounds of: row max ->
// lowest column holding it (a min-reduce over the column index where the
// score equals the max, 256 elsewhere) -> record -> mask that column to
// -inf. Then the softmax over the 8 picks.
tile.func @moe_topk_gating(%X: !tile.tensor<[T, D], bf16>, %Wg: !tile.tensor<[D, 256], bf16>,
                           %Idx: !tile.tensor<[T, 8], i32>, %Wt: !tile.tensor<[T, 8], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %neg_inf = arith.constant 0xFF800000 : f32
  %none = arith.constant 256.0 : f32
  %t = tile.dim %X, 0 : !tile.tensor<[T, D], bf16>
  %d = tile.dim %X, 1 : !tile.tensor<[T, D], bf16>
  %grid = arith.ceildivui %t, %c32 : index
  %nk = arith.ceildivui %d, %c64 : index
  tile.kernel blocks(%bx) in (%grid) threads = 128 {
    %row = arith.muli %bx, %c32 : index
    %Xs = tile.alloc : !tile.tile<32x64xbf16, shared>
    %Ws = tile.alloc : !tile.tile<64x256xbf16, shared>
    %S = tile.alloc : !tile.tile<32x256xf32, fragment>
    %J = tile.alloc : !tile.tile<32x256xf32, fragment>
    %mx = tile.alloc : !tile.tile<32xf32, fragment>
    %sel = tile.alloc : !tile.tile<32xf32, fragment>
    %topv = tile.alloc : !tile.tile<32x8xf32, fragment>
    %topi = tile.alloc : !tile.tile<32x8xf32, fragment>
    %sum = tile.alloc : !tile.tile<32xf32, fragment>
    tile.clear %topv : !tile.tile<32x8xf32, fragment>
    tile.clear %topi : !tile.tile<32x8xf32, fragment>
    tile.clear %S : !tile.tile<32x256xf32, fragment>
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 2 {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %X[%row, %k0], %Xs : !tile.tensor<[T, D], bf16>, !tile.tile<32x64xbf16, shared>
      tile.copy %Wg[%k0, %c0], %Ws : !tile.tensor<[D, 256], bf16>, !tile.tile<64x256xbf16, shared>
      tile.gemm %Xs, %Ws, %S : !tile.tile<32x64xbf16, shared>, !tile.tile<64x256xbf16, shared>, !tile.tile<32x256xf32, fragment>
    }
    scf.for %r = %c0 to %c8 step %c1 {
      tile.reduce max %S, %mx dim = 1 : !tile.tile<32x256xf32, fragment>, !tile.tile<32xf32, fragment>
      tile.parallel (%i, %j) in [32, 256] {
        %s = tile.load %S[%i, %j] : !tile.tile<32x256xf32, fragment>
        %m = tile.load %mx[%i] : !tile.tile<32xf32, fragment>
        %hit = arith.cmpf oeq, %s, %m : f32
        %j_i64 = arith.index_cast %j : index to i64
        %jf = arith.sitofp %j_i64 : i64 to f32
        %c = arith.select %hit, %jf, %none : f32
        tile.store %c, %J[%i, %j] : !tile.tile<32x256xf32, fragment>
      }
      tile.reduce min %J, %sel dim = 1 : !tile.tile<32x256xf32, fragment>, !tile.tile<32xf32, fragment>
      tile.parallel (%i, %k) in [32, 8] {
        %is_r = arith.cmpi eq, %k, %r : index
        %m = tile.load %mx[%i] : !tile.tile<32xf32, fragment>
        %e = tile.load %sel[%i] : !tile.tile<32xf32, fragment>
        %ov = tile.load %topv[%i, %k] : !tile.tile<32x8xf32, fragment>
        %oi = tile.load %topi[%i, %k] : !tile.tile<32x8xf32, fragment>
        %nv = arith.select %is_r, %m, %ov : f32
        %ni = arith.select %is_r, %e, %oi : f32
        tile.store %nv, %topv[%i, %k] : !tile.tile<32x8xf32, fragment>
        tile.store %ni, %topi[%i, %k] : !tile.tile<32x8xf32, fragment>
      }
      tile.parallel (%i, %j) in [32, 256] {
        %s = tile.load %S[%i, %j] : !tile.tile<32x256xf32, fragment>
        %e = tile.load %sel[%i] : !tile.tile<32xf32, fragment>
        %j_i64 = arith.index_cast %j : index to i64
        %jf = arith.sitofp %j_i64 : i64 to f32
        %picked = arith.cmpf oeq, %jf, %e : f32
        %v = arith.select %picked, %neg_inf, %s : f32
        tile.store %v, %S[%i, %j] : !tile.tile<32x256xf32, fragment>
      }
    }
    // Softmax over the 8 picks (their max is the first pick; read from a
    // separate tile, as the region overwrites %topv in place).
    tile.reduce max %topv, %mx dim = 1 : !tile.tile<32x8xf32, fragment>, !tile.tile<32xf32, fragment>
    tile.parallel (%i, %k) in [32, 8] {
      %v = tile.load %topv[%i, %k] : !tile.tile<32x8xf32, fragment>
      %v0 = tile.load %mx[%i] : !tile.tile<32xf32, fragment>
      %dv = arith.subf %v, %v0 : f32
      %e = math.exp %dv : f32
      tile.store %e, %topv[%i, %k] : !tile.tile<32x8xf32, fragment>
    }
    tile.reduce sum %topv, %sum dim = 1 : !tile.tile<32x8xf32, fragment>, !tile.tile<32xf32, fragment>
    tile.parallel (%i, %k) in [32, 8] {
      %e = tile.load %topv[%i, %k] : !tile.tile<32x8xf32, fragment>
      %s = tile.load %sum[%i] : !tile.tile<32xf32, fragment>
      %w = arith.divf %e, %s : f32
      tile.store %w, %topv[%i, %k] : !tile.tile<32x8xf32, fragment>
    }
    // Expert ids are exact small integers in f32; the copy converts to i32.
    tile.copy %topi, %Idx[%row, %c0] : !tile.tile<32x8xf32, fragment>, !tile.tensor<[T, 8], i32>
    tile.copy %topv, %Wt[%row, %c0] : !tile.tile<32x8xf32, fragment>, !tile.tensor<[T, 8], f32>
  }
  tile.return
}
