// MoE top-k routing from precomputed router logits: the top 8 of 256
// experts per token and the softmax of their 8 logits (renormalized over
// the selected experts). For routers whose logits come from elsewhere (a
// fused QKV-router GEMM, an fp32 router layer, or added expert biases).
// Logits: f32 [T, 256]; Idx: i32 [T, 8] (expert ids, best first; equal
// logits pick the lower id); Wt: f32 [T, 8] (weights summing to 1).
// Grid (ceil(T / 32)), 128 threads. Tiles: a 32x256 f32 logit fragment per
// block (rows past T load 0 and are never stored), then 8 rounds of row max
// -> lowest column holding it (min-reduce over column ids) -> record ->
// mask that column to -inf; then the softmax over the 8 picks.
tile.func @moe_topk_softmax_logits(%Logits: !tile.tensor<[T, 256], f32>,
                                  %Idx: !tile.tensor<[T, 8], i32>, %Wt: !tile.tensor<[T, 8], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %neg_inf = arith.constant 0xFF800000 : f32
  %none = arith.constant 256.0 : f32
  %t = tile.dim %Logits, 0 : !tile.tensor<[T, 256], f32>
  %grid = arith.ceildivui %t, %c32 : index
  tile.kernel blocks(%bx) in (%grid) threads = 128 {
    %row = arith.muli %bx, %c32 : index
    %S = tile.alloc : !tile.tile<32x256xf32, fragment>
    %J = tile.alloc : !tile.tile<32x256xf32, fragment>
    %mx = tile.alloc : !tile.tile<32xf32, fragment>
    %sel = tile.alloc : !tile.tile<32xf32, fragment>
    %topv = tile.alloc : !tile.tile<32x8xf32, fragment>
    %topi = tile.alloc : !tile.tile<32x8xf32, fragment>
    %sum = tile.alloc : !tile.tile<32xf32, fragment>
    tile.clear %topv : !tile.tile<32x8xf32, fragment>
    tile.clear %topi : !tile.tile<32x8xf32, fragment>
    tile.copy %Logits[%row, %c0], %S : !tile.tensor<[T, 256], f32>, !tile.tile<32x256xf32, fragment>
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
