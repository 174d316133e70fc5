// The combine step of split-KV decoding (attn_decode_splitkv_d128.mlir):
// merges the NS partial outputs of each (batch, head) with their
// log-sum-exps into the final attention output:
//   m = max_s LSE_s,  w_s = exp(LSE_s - m),  O = sum_s w_s Opart_s / sum_s w_s
// computed in one pass over the splits with a running max (as in the online
// softmax), so NS can be any size.
// Opart: f32 [B, HS, Sq, 128]; LSE: f32 [B, HS, Sq]; O: f16 [B, H, Sq, 128];
// HS = H * NS, split s of head h at index h * NS + s; Sq <= 16.
// Grid (H, B), 128 threads. Tiles: a 16x128 f32 fragment per split (rows
// past Sq read zeros and are not stored) and 16-element running max, sum
// and weight fragments.
tile.func @attn_decode_combine(%Opart: !tile.tensor<[B, HS, Sq, 128], f32>,
                               %LSE: !tile.tensor<[B, HS, Sq], f32>,
                               %O: !tile.tensor<[B, H, Sq, 128], f16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %neg_inf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %batch = tile.dim %O, 0 : !tile.tensor<[B, H, Sq, 128], f16>
  %heads = tile.dim %O, 1 : !tile.tensor<[B, H, Sq, 128], f16>
  %hs = tile.dim %Opart, 1 : !tile.tensor<[B, HS, Sq, 128], f32>
  %splits = arith.divui %hs, %heads : index
  tile.kernel blocks(%bh, %bb) in (%heads, %batch) threads = 128 {
    %s0 = arith.muli %bh, %splits : index
    %part = tile.alloc : !tile.tile<16x128xf32, fragment>
    %acc = tile.alloc : !tile.tile<16x128xf32, fragment>
    %lse = tile.alloc : !tile.tile<16xf32, fragment>
    %m = tile.alloc : !tile.tile<16xf32, fragment>
    %l = tile.alloc : !tile.tile<16xf32, fragment>
    %alpha = tile.alloc : !tile.tile<16xf32, fragment>
    %beta = tile.alloc : !tile.tile<16xf32, fragment>
    tile.fill %m, %neg_inf : !tile.tile<16xf32, fragment>, f32
    tile.clear %l : !tile.tile<16xf32, fragment>
    tile.clear %acc : !tile.tile<16x128xf32, fragment>
    scf.for %s = %c0 to %splits step %c1 {
      %row = arith.addi %s0, %s : index
      tile.copy %Opart[%bb, %row, %c0, %c0], %part : !tile.tensor<[B, HS, Sq, 128], f32>, !tile.tile<16x128xf32, fragment>
      tile.copy %LSE[%bb, %row, %c0], %lse : !tile.tensor<[B, HS, Sq], f32>, !tile.tile<16xf32, fragment>
      // m' = max(m, lse); alpha = exp(m - m') rescales the running sums,
      // beta = exp(lse - m') weighs this split.
      tile.parallel (%i) in [16] {
        %old = tile.load %m[%i] : !tile.tile<16xf32, fragment>
        %x = tile.load %lse[%i] : !tile.tile<16xf32, fragment>
        %new = arith.maximumf %old, %x : f32
        %none = arith.cmpf oeq, %new, %neg_inf : f32
        %ms = arith.select %none, %zero, %new : f32
        %da = arith.subf %old, %ms : f32
        %a = math.exp %da fastmath<afn> : f32
        %db = arith.subf %x, %ms : f32
        %bw = math.exp %db fastmath<afn> : f32
        tile.store %new, %m[%i] : !tile.tile<16xf32, fragment>
        tile.store %a, %alpha[%i] : !tile.tile<16xf32, fragment>
        tile.store %bw, %beta[%i] : !tile.tile<16xf32, fragment>
        %li = tile.load %l[%i] : !tile.tile<16xf32, fragment>
        %la = arith.mulf %li, %a : f32
        %ln = arith.addf %la, %bw : f32
        tile.store %ln, %l[%i] : !tile.tile<16xf32, fragment>
      }
      tile.parallel (%i, %d) in [16, 128] {
        %o = tile.load %acc[%i, %d] : !tile.tile<16x128xf32, fragment>
        %p = tile.load %part[%i, %d] : !tile.tile<16x128xf32, fragment>
        %a = tile.load %alpha[%i] : !tile.tile<16xf32, fragment>
        %bw = tile.load %beta[%i] : !tile.tile<16xf32, fragment>
        %oa = arith.mulf %o, %a : f32
        %pb = arith.mulf %p, %bw : f32
        %r = arith.addf %oa, %pb : f32
        tile.store %r, %acc[%i, %d] : !tile.tile<16x128xf32, fragment>
      }
    }
    tile.parallel (%i, %d) in [16, 128] {
      %o = tile.load %acc[%i, %d] : !tile.tile<16x128xf32, fragment>
      %li = tile.load %l[%i] : !tile.tile<16xf32, fragment>
      %on = arith.divf %o, %li fastmath<arcp> : f32
      tile.store %on, %acc[%i, %d] : !tile.tile<16x128xf32, fragment>
    }
    tile.copy %acc, %O[%bb, %bh, %c0, %c0] : !tile.tile<16x128xf32, fragment>, !tile.tensor<[B, H, Sq, 128], f16>
  }
  tile.return
}
