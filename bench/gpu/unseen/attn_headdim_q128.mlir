// Flash attention over any head dim up to 128: the q128 example with the
// head dim a symbol D instead of 128. The tiles stay 128 wide; copies read
// zeros past D and store nothing there, so D = 96 (or 80, 112) is exact:
// the zero columns add nothing to Q K^T and P V's extra columns are never
// stored. Q, K, V, O: f16 [B, H, S, D], D <= 128.
tile.func @attn_headdim_q128(%Q: !tile.tensor<[B, H, S, D], f16>,
                               %K: !tile.tensor<[B, H, S, D], f16>,
                               %V: !tile.tensor<[B, H, S, D], f16>,
                               %O: !tile.tensor<[B, H, S, D], f16>,
                               %causal: i32, %sm_scale: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %true = arith.constant true
  %c1_i32 = arith.constant 1 : i32
  %neg_inf = arith.constant 0xFF800000 : f32
  %batch = tile.dim %Q, 0 : !tile.tensor<[B, H, S, D], f16>
  %heads = tile.dim %Q, 1 : !tile.tensor<[B, H, S, D], f16>
  %seq = tile.dim %Q, 2 : !tile.tensor<[B, H, S, D], f16>
  %q_blocks = arith.ceildivui %seq, %c128 : index
  %kv_blocks = arith.ceildivui %seq, %c128 : index
  %is_causal = arith.cmpi eq, %causal, %c1_i32 : i32
  tile.kernel blocks(%bq, %bh, %bb) in (%q_blocks, %heads, %batch) threads = 256 {
    %q0 = arith.muli %bq, %c128 : index
    // Causal: key blocks 0..bq (the last one straddles the diagonal).
    %diag_end = arith.addi %bq, %c1 : index
    %causal_end = arith.minui %diag_end, %kv_blocks : index
    %kv_end = arith.select %is_causal, %causal_end, %kv_blocks : index

    %Qs = tile.alloc : !tile.tile<128x128xf16, shared>
    %Ks = tile.alloc : !tile.tile<128x128xf16, shared>
    %Vs = tile.alloc : !tile.tile<128x128xf16, shared>
    %Sf = tile.alloc : !tile.tile<128x128xf32, fragment>
    %Pf = tile.alloc : !tile.tile<128x128xf16, fragment>
    %acc = tile.alloc : !tile.tile<128x128xf32, fragment>
    %m = tile.alloc : !tile.tile<128xf32, fragment>
    %m_prev = tile.alloc : !tile.tile<128xf32, fragment>
    %l = tile.alloc : !tile.tile<128xf32, fragment>
    %alpha = tile.alloc : !tile.tile<128xf32, fragment>
    tile.fill %m, %neg_inf : !tile.tile<128xf32, fragment>, f32
    tile.clear %l : !tile.tile<128xf32, fragment>
    tile.clear %acc : !tile.tile<128x128xf32, fragment>
    // Query rows past S read zeros; their outputs are never stored.
    tile.copy %Q[%bb, %bh, %q0, %c0], %Qs : !tile.tensor<[B, H, S, D], f16>, !tile.tile<128x128xf16, shared>

    tile.pipelined %j = %c0 to %kv_end step %c1 stages = 2 {
      %k0 = arith.muli %j, %c128 : index
      tile.copy %K[%bb, %bh, %k0, %c0], %Ks : !tile.tensor<[B, H, S, D], f16>, !tile.tile<128x128xf16, shared>
      tile.copy %V[%bb, %bh, %k0, %c0], %Vs : !tile.tensor<[B, H, S, D], f16>, !tile.tile<128x128xf16, shared>
      // S = Q K^T (K read as NxK).
      tile.gemm %Qs, %Ks, %Sf transpose_b clear : !tile.tile<128x128xf16, shared>, !tile.tile<128x128xf16, shared>, !tile.tile<128x128xf32, fragment>
      // Scale, then mask keys past S and (causal) keys after the query.
      tile.parallel (%i, %jj) in [128, 128] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x128xf32, fragment>
        %scaled = arith.mulf %s, %sm_scale : f32
        %kpos = arith.addi %k0, %jj : index
        %qpos = arith.addi %q0, %i : index
        %in_seq = arith.cmpi ult, %kpos, %seq : index
        %future = arith.cmpi ugt, %kpos, %qpos : index
        %hidden = arith.andi %is_causal, %future : i1
        %visible = arith.xori %hidden, %true : i1
        %keep = arith.andi %in_seq, %visible : i1
        %v = arith.select %keep, %scaled, %neg_inf : f32
        tile.store %v, %Sf[%i, %jj] : !tile.tile<128x128xf32, fragment>
      }
      // m' = max(m, rowmax(S)).
      tile.copy %m, %m_prev : !tile.tile<128xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.reduce max %Sf, %m dim = 1 accumulate : !tile.tile<128x128xf32, fragment>, !tile.tile<128xf32, fragment>
      // P = exp(S - m').
      tile.parallel (%i, %jj) in [128, 128] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x128xf32, fragment>
        %mi = tile.load %m[%i] : !tile.tile<128xf32, fragment>
        %d = arith.subf %s, %mi : f32
        %p = math.exp %d fastmath<afn> : f32
        tile.store %p, %Sf[%i, %jj] : !tile.tile<128x128xf32, fragment>
      }
      // alpha = exp(m - m'); l = alpha * l + rowsum(P).
      tile.parallel (%i) in [128] {
        %old = tile.load %m_prev[%i] : !tile.tile<128xf32, fragment>
        %new = tile.load %m[%i] : !tile.tile<128xf32, fragment>
        %d = arith.subf %old, %new : f32
        %a = math.exp %d fastmath<afn> : f32
        tile.store %a, %alpha[%i] : !tile.tile<128xf32, fragment>
        %li = tile.load %l[%i] : !tile.tile<128xf32, fragment>
        %ls = arith.mulf %li, %a : f32
        tile.store %ls, %l[%i] : !tile.tile<128xf32, fragment>
      }
      tile.reduce sum %Sf, %l dim = 1 accumulate : !tile.tile<128x128xf32, fragment>, !tile.tile<128xf32, fragment>
      // acc = alpha * acc + P V, with P rounded to f16 for the tensor cores.
      tile.parallel (%i, %d) in [128, 128] {
        %o = tile.load %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
        %a = tile.load %alpha[%i] : !tile.tile<128xf32, fragment>
        %os = arith.mulf %o, %a : f32
        tile.store %os, %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
      }
      tile.copy %Sf, %Pf : !tile.tile<128x128xf32, fragment>, !tile.tile<128x128xf16, fragment>
      tile.gemm %Pf, %Vs, %acc : !tile.tile<128x128xf16, fragment>, !tile.tile<128x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    }

    // O = acc / l, converted to f16; rows past S are not stored.
    tile.parallel (%i, %d) in [128, 128] {
      %o = tile.load %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
      %li = tile.load %l[%i] : !tile.tile<128xf32, fragment>
      %on = arith.divf %o, %li fastmath<arcp> : f32
      tile.store %on, %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %acc, %O[%bb, %bh, %q0, %c0] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[B, H, S, D], f16>
  }
  tile.return
}
