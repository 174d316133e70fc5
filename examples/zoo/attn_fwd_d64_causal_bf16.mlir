// Causal self-attention forward, head dim 64, bf16:
//   O[b, h] = softmax(Q K^T * sm_scale, keys <= query) V
// Q, K, V, O: bf16 [B, H, S, 64].
// Grid (ceil(S / 128), H, B), 256 threads: each block owns 128 query rows
// (a 128x64 Q tile, loaded once) and walks 64-key blocks of K and V with a
// 2-stage pipeline, keeping the online-softmax state per row (running max m,
// running sum l, f32 accumulator 128x64). The loop stops at the last key
// block the block's last row can see. P is rounded to bf16 before P V.
// Key block 0 holds key 0, visible to every row, so m is finite from the
// first step on; the `safe max` below only guards padding rows.
tile.func @attn_fwd_d64_causal_bf16(%Q: !tile.tensor<[B, H, S, 64], bf16>,
                                    %K: !tile.tensor<[B, H, S, 64], bf16>,
                                    %V: !tile.tensor<[B, H, S, 64], bf16>,
                                    %O: !tile.tensor<[B, H, S, 64], bf16>,
                                    %sm_scale: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %neg_inf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %batch = tile.dim %Q, 0 : !tile.tensor<[B, H, S, 64], bf16>
  %heads = tile.dim %Q, 1 : !tile.tensor<[B, H, S, 64], bf16>
  %seq = tile.dim %Q, 2 : !tile.tensor<[B, H, S, 64], bf16>
  %q_blocks = arith.ceildivui %seq, %c128 : index
  %kv_blocks = arith.ceildivui %seq, %c64 : index
  tile.kernel blocks(%bq, %bh, %bb) in (%q_blocks, %heads, %batch) threads = 256 {
    %q0 = arith.muli %bq, %c128 : index
    %q_end = arith.addi %q0, %c128 : index
    %last = arith.ceildivui %q_end, %c64 : index
    %kv_end = arith.minui %last, %kv_blocks : index
    %Qs = tile.alloc : !tile.tile<128x64xbf16, shared>
    %Ks = tile.alloc : !tile.tile<64x64xbf16, shared>
    %Vs = tile.alloc : !tile.tile<64x64xbf16, shared>
    %Sf = tile.alloc : !tile.tile<128x64xf32, fragment>
    %Pf = tile.alloc : !tile.tile<128x64xbf16, fragment>
    %acc = tile.alloc : !tile.tile<128x64xf32, fragment>
    %m = tile.alloc : !tile.tile<128xf32, fragment>
    %m_prev = tile.alloc : !tile.tile<128xf32, fragment>
    %m_safe = tile.alloc : !tile.tile<128xf32, fragment>
    %l = tile.alloc : !tile.tile<128xf32, fragment>
    %alpha = tile.alloc : !tile.tile<128xf32, fragment>
    tile.fill %m, %neg_inf : !tile.tile<128xf32, fragment>, f32
    tile.clear %l : !tile.tile<128xf32, fragment>
    tile.clear %acc : !tile.tile<128x64xf32, fragment>
    tile.copy %Q[%bb, %bh, %q0, %c0], %Qs : !tile.tensor<[B, H, S, 64], bf16>, !tile.tile<128x64xbf16, shared>
    tile.pipelined %j = %c0 to %kv_end step %c1 stages = 2 {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%bb, %bh, %k0, %c0], %Ks : !tile.tensor<[B, H, S, 64], bf16>, !tile.tile<64x64xbf16, shared>
      tile.copy %V[%bb, %bh, %k0, %c0], %Vs : !tile.tensor<[B, H, S, 64], bf16>, !tile.tile<64x64xbf16, shared>
      tile.gemm %Qs, %Ks, %Sf transpose_b clear : !tile.tile<128x64xbf16, shared>, !tile.tile<64x64xbf16, shared>, !tile.tile<128x64xf32, fragment>
      tile.parallel (%i, %jj) in [128, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
        %scaled = arith.mulf %s, %sm_scale : f32
        %kpos = arith.addi %k0, %jj : index
        %qpos = arith.addi %q0, %i : index
        %in_seq = arith.cmpi ult, %kpos, %seq : index
        %past = arith.cmpi ule, %kpos, %qpos : index
        %keep = arith.andi %in_seq, %past : i1
        %v = arith.select %keep, %scaled, %neg_inf : f32
        tile.store %v, %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
      }
      tile.copy %m, %m_prev : !tile.tile<128xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.reduce max %Sf, %m dim = 1 accumulate : !tile.tile<128x64xf32, fragment>, !tile.tile<128xf32, fragment>
      // alpha = exp(m_prev - m'), with m' replaced by 0 while a row has seen
      // no key (m' = -inf), so that no exp(-inf - -inf) arises.
      tile.parallel (%i) in [128] {
        %old = tile.load %m_prev[%i] : !tile.tile<128xf32, fragment>
        %new = tile.load %m[%i] : !tile.tile<128xf32, fragment>
        %none = arith.cmpf oeq, %new, %neg_inf : f32
        %ms = arith.select %none, %zero, %new : f32
        tile.store %ms, %m_safe[%i] : !tile.tile<128xf32, fragment>
        %d = arith.subf %old, %ms : f32
        %a = math.exp %d fastmath<afn> : f32
        tile.store %a, %alpha[%i] : !tile.tile<128xf32, fragment>
        %li = tile.load %l[%i] : !tile.tile<128xf32, fragment>
        %ls = arith.mulf %li, %a : f32
        tile.store %ls, %l[%i] : !tile.tile<128xf32, fragment>
      }
      tile.parallel (%i, %jj) in [128, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
        %mi = tile.load %m_safe[%i] : !tile.tile<128xf32, fragment>
        %d = arith.subf %s, %mi : f32
        %p = math.exp %d fastmath<afn> : f32
        tile.store %p, %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
      }
      tile.reduce sum %Sf, %l dim = 1 accumulate : !tile.tile<128x64xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.parallel (%i, %d) in [128, 64] {
        %o = tile.load %acc[%i, %d] : !tile.tile<128x64xf32, fragment>
        %a = tile.load %alpha[%i] : !tile.tile<128xf32, fragment>
        %os = arith.mulf %o, %a : f32
        tile.store %os, %acc[%i, %d] : !tile.tile<128x64xf32, fragment>
      }
      tile.copy %Sf, %Pf : !tile.tile<128x64xf32, fragment>, !tile.tile<128x64xbf16, fragment>
      tile.gemm %Pf, %Vs, %acc : !tile.tile<128x64xbf16, fragment>, !tile.tile<64x64xbf16, shared>, !tile.tile<128x64xf32, fragment>
    }
    tile.parallel (%i, %d) in [128, 64] {
      %o = tile.load %acc[%i, %d] : !tile.tile<128x64xf32, fragment>
      %li = tile.load %l[%i] : !tile.tile<128xf32, fragment>
      %on = arith.divf %o, %li fastmath<arcp> : f32
      tile.store %on, %acc[%i, %d] : !tile.tile<128x64xf32, fragment>
    }
    tile.copy %acc, %O[%bb, %bh, %q0, %c0] : !tile.tile<128x64xf32, fragment>, !tile.tensor<[B, H, S, 64], bf16>
  }
  tile.return
}
