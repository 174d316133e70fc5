// The zoo's GQA program (examples/zoo/attn_gqa_d128_causal.mlir) written
// with 32-key blocks: tessera-deepen-keys takes it to 128 keys (F = 4).
tile.func @attn_gqa_d128_causal(%Q: !tile.tensor<[B, Hq, S, 128], f16>,
    %K: !tile.tensor<[B, Hkv, S, 128], f16>, %V: !tile.tensor<[B, Hkv, S, 128], f16>,
    %O: !tile.tensor<[B, Hq, S, 128], f16>, %sm_scale: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cbq = arith.constant 128 : index
  %cbk = arith.constant 32 : index
  %true = arith.constant true
  %neg_inf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %batch = tile.dim %Q, 0 : !tile.tensor<[B, Hq, S, 128], f16>
  %heads = tile.dim %Q, 1 : !tile.tensor<[B, Hq, S, 128], f16>
  %sq = tile.dim %Q, 2 : !tile.tensor<[B, Hq, S, 128], f16>
  %skv = tile.dim %K, 2 : !tile.tensor<[B, Hkv, S, 128], f16>
  %q_blocks = arith.ceildivui %sq, %cbq : index
  %kv_blocks = arith.ceildivui %skv, %cbk : index
  %kv_heads = tile.dim %K, 1 : !tile.tensor<[B, Hkv, S, 128], f16>
  %group = arith.divui %heads, %kv_heads : index
  tile.kernel blocks(%bq, %bh, %bb) in (%q_blocks, %heads, %batch) threads = 256 {
    %q0 = arith.muli %bq, %cbq : index
    %kvh = arith.divui %bh, %group : index
    %kv_begin = arith.constant 0 : index
    %q_lim = arith.addi %q0, %cbq : index
    %last_blk = arith.ceildivui %q_lim, %cbk : index
    %kv_end = arith.minui %last_blk, %kv_blocks : index
    %Qs = tile.alloc : !tile.tile<128x128xf16, shared>
    %Ks = tile.alloc : !tile.tile<32x128xf16, shared>
    %Vs = tile.alloc : !tile.tile<32x128xf16, shared>
    %Sf = tile.alloc : !tile.tile<128x32xf32, fragment>
    %Pf = tile.alloc : !tile.tile<128x32xf16, fragment>
    %acc = tile.alloc : !tile.tile<128x128xf32, fragment>
    %m = tile.alloc : !tile.tile<128xf32, fragment>
    %m_prev = tile.alloc : !tile.tile<128xf32, fragment>
    %m_safe = tile.alloc : !tile.tile<128xf32, fragment>
    %l = tile.alloc : !tile.tile<128xf32, fragment>
    %alpha = tile.alloc : !tile.tile<128xf32, fragment>
    tile.fill %m, %neg_inf : !tile.tile<128xf32, fragment>, f32
    tile.clear %l : !tile.tile<128xf32, fragment>
    tile.clear %acc : !tile.tile<128x128xf32, fragment>
    tile.copy %Q[%bb, %bh, %q0, %c0], %Qs : !tile.tensor<[B, Hq, S, 128], f16>, !tile.tile<128x128xf16, shared>
    tile.pipelined %j = %kv_begin to %kv_end step %c1 stages = 2 {
      %k0 = arith.muli %j, %cbk : index
      tile.copy %K[%bb, %kvh, %k0, %c0], %Ks : !tile.tensor<[B, Hkv, S, 128], f16>, !tile.tile<32x128xf16, shared>
      tile.copy %V[%bb, %kvh, %k0, %c0], %Vs : !tile.tensor<[B, Hkv, S, 128], f16>, !tile.tile<32x128xf16, shared>
      tile.gemm %Qs, %Ks, %Sf transpose_b clear : !tile.tile<128x128xf16, shared>, !tile.tile<32x128xf16, shared>, !tile.tile<128x32xf32, fragment>
      tile.parallel (%i, %jj) in [128, 32] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x32xf32, fragment>
        %scaled = arith.mulf %s, %sm_scale : f32
        %kpos = arith.addi %k0, %jj : index
        %qpos = arith.addi %q0, %i : index
        %in_seq = arith.cmpi ult, %kpos, %skv : index
        %past = arith.cmpi ule, %kpos, %qpos : index
        %keep = arith.andi %in_seq, %past : i1
        %v = arith.select %keep, %scaled, %neg_inf : f32
        tile.store %v, %Sf[%i, %jj] : !tile.tile<128x32xf32, fragment>
      }
      tile.copy %m, %m_prev : !tile.tile<128xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.reduce max %Sf, %m dim = 1 accumulate : !tile.tile<128x32xf32, fragment>, !tile.tile<128xf32, fragment>
      // alpha = exp(m_prev - m'); while a row has seen no visible key
      // (m' = -inf) m' is replaced by 0, so no exp(-inf - -inf) arises.
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
      tile.parallel (%i, %jj) in [128, 32] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x32xf32, fragment>
        %mi = tile.load %m_safe[%i] : !tile.tile<128xf32, fragment>
        %d = arith.subf %s, %mi : f32
        %p = math.exp %d fastmath<afn> : f32
        tile.store %p, %Sf[%i, %jj] : !tile.tile<128x32xf32, fragment>
      }
      tile.reduce sum %Sf, %l dim = 1 accumulate : !tile.tile<128x32xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.parallel (%i, %d) in [128, 128] {
        %o = tile.load %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
        %a = tile.load %alpha[%i] : !tile.tile<128xf32, fragment>
        %os = arith.mulf %o, %a : f32
        tile.store %os, %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
      }
      tile.copy %Sf, %Pf : !tile.tile<128x32xf32, fragment>, !tile.tile<128x32xf16, fragment>
      tile.gemm %Pf, %Vs, %acc : !tile.tile<128x32xf16, fragment>, !tile.tile<32x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    // O = acc / l; rows past the query length are not stored.
    tile.parallel (%i, %d) in [128, 128] {
      %o = tile.load %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
      %li = tile.load %l[%i] : !tile.tile<128xf32, fragment>
      %on = arith.divf %o, %li fastmath<arcp> : f32
      tile.store %on, %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %acc, %O[%bb, %bh, %q0, %c0] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[B, Hq, S, 128], f16>
  }
  tile.return
}
