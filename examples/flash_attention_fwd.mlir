// Flash attention forward (FlashAttention-2 style):
//   O[b, h] = softmax(Q[b, h] K[b, h]^T * sm_scale [+ causal mask]) V[b, h]
// Q, K, V, O: f16 [B, H, S, 128] (head dim 128). `causal` = 1 masks key
// positions after the query position (query i sees keys 0..i); any other
// value attends to all S keys.
//
// Grid (ceil(S / 64), H, B): each block owns 64 query rows of one head and
// walks the keys in 64-row blocks of K and V (2-stage pipeline) keeping, per
// query row, the running max m and the running sum l of the online softmax:
//   S_j  = Q K_j^T * sm_scale, masked to -inf past S and above the diagonal
//   m'   = max(m, rowmax(S_j));  alpha = exp(m - m')
//   P_j  = exp(S_j - m');        l' = alpha * l + rowsum(P_j)
//   acc' = alpha * acc + P_j V_j
// and finally O = acc / l. Causal blocks stop at the diagonal block. The key
// block 0 always holds a visible key for every row, so m is finite after the
// first step and no exp(-inf - (-inf)) arises. The exps may be approximated
// (`fastmath<afn>`): on NVIDIA GPUs they become one ex2.approx each. The
// final division may use a reciprocal (`fastmath<arcp>`): one per row and a
// multiply per element instead of an IEEE division each.
tile.func @flash_attention_fwd(%Q: !tile.tensor<[B, H, S, 128], f16>,
                               %K: !tile.tensor<[B, H, S, 128], f16>,
                               %V: !tile.tensor<[B, H, S, 128], f16>,
                               %O: !tile.tensor<[B, H, S, 128], f16>,
                               %causal: i32, %sm_scale: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %true = arith.constant true
  %c1_i32 = arith.constant 1 : i32
  %neg_inf = arith.constant 0xFF800000 : f32
  %batch = tile.dim %Q, 0 : !tile.tensor<[B, H, S, 128], f16>
  %heads = tile.dim %Q, 1 : !tile.tensor<[B, H, S, 128], f16>
  %seq = tile.dim %Q, 2 : !tile.tensor<[B, H, S, 128], f16>
  %q_blocks = arith.ceildivui %seq, %c64 : index
  %kv_blocks = arith.ceildivui %seq, %c64 : index
  %is_causal = arith.cmpi eq, %causal, %c1_i32 : i32
  tile.kernel blocks(%bq, %bh, %bb) in (%q_blocks, %heads, %batch) threads = 128 {
    %q0 = arith.muli %bq, %c64 : index
    // Causal: key blocks 0..bq (the last one straddles the diagonal).
    %diag_end = arith.addi %bq, %c1 : index
    %causal_end = arith.minui %diag_end, %kv_blocks : index
    %kv_end = arith.select %is_causal, %causal_end, %kv_blocks : index

    %Qs = tile.alloc : !tile.tile<64x128xf16, shared>
    %Ks = tile.alloc : !tile.tile<64x128xf16, shared>
    %Vs = tile.alloc : !tile.tile<64x128xf16, shared>
    %Sf = tile.alloc : !tile.tile<64x64xf32, fragment>
    %Pf = tile.alloc : !tile.tile<64x64xf16, fragment>
    %acc = tile.alloc : !tile.tile<64x128xf32, fragment>
    %m = tile.alloc : !tile.tile<64xf32, fragment>
    %m_prev = tile.alloc : !tile.tile<64xf32, fragment>
    %l = tile.alloc : !tile.tile<64xf32, fragment>
    %alpha = tile.alloc : !tile.tile<64xf32, fragment>
    tile.fill %m, %neg_inf : !tile.tile<64xf32, fragment>, f32
    tile.clear %l : !tile.tile<64xf32, fragment>
    tile.clear %acc : !tile.tile<64x128xf32, fragment>
    // Query rows past S read zeros; their outputs are never stored.
    tile.copy %Q[%bb, %bh, %q0, %c0], %Qs : !tile.tensor<[B, H, S, 128], f16>, !tile.tile<64x128xf16, shared>

    tile.pipelined %j = %c0 to %kv_end step %c1 stages = 2 {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%bb, %bh, %k0, %c0], %Ks : !tile.tensor<[B, H, S, 128], f16>, !tile.tile<64x128xf16, shared>
      tile.copy %V[%bb, %bh, %k0, %c0], %Vs : !tile.tensor<[B, H, S, 128], f16>, !tile.tile<64x128xf16, shared>
      // S = Q K^T (K read as NxK).
      tile.gemm %Qs, %Ks, %Sf transpose_b clear : !tile.tile<64x128xf16, shared>, !tile.tile<64x128xf16, shared>, !tile.tile<64x64xf32, fragment>
      // Scale, then mask keys past S and (causal) keys after the query.
      tile.parallel (%i, %jj) in [64, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<64x64xf32, fragment>
        %scaled = arith.mulf %s, %sm_scale : f32
        %kpos = arith.addi %k0, %jj : index
        %qpos = arith.addi %q0, %i : index
        %in_seq = arith.cmpi ult, %kpos, %seq : index
        %future = arith.cmpi ugt, %kpos, %qpos : index
        %hidden = arith.andi %is_causal, %future : i1
        %visible = arith.xori %hidden, %true : i1
        %keep = arith.andi %in_seq, %visible : i1
        %v = arith.select %keep, %scaled, %neg_inf : f32
        tile.store %v, %Sf[%i, %jj] : !tile.tile<64x64xf32, fragment>
      }
      // m' = max(m, rowmax(S)).
      tile.copy %m, %m_prev : !tile.tile<64xf32, fragment>, !tile.tile<64xf32, fragment>
      tile.reduce max %Sf, %m dim = 1 accumulate : !tile.tile<64x64xf32, fragment>, !tile.tile<64xf32, fragment>
      // P = exp(S - m').
      tile.parallel (%i, %jj) in [64, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<64x64xf32, fragment>
        %mi = tile.load %m[%i] : !tile.tile<64xf32, fragment>
        %d = arith.subf %s, %mi : f32
        %p = math.exp %d fastmath<afn> : f32
        tile.store %p, %Sf[%i, %jj] : !tile.tile<64x64xf32, fragment>
      }
      // alpha = exp(m - m'); l = alpha * l + rowsum(P).
      tile.parallel (%i) in [64] {
        %old = tile.load %m_prev[%i] : !tile.tile<64xf32, fragment>
        %new = tile.load %m[%i] : !tile.tile<64xf32, fragment>
        %d = arith.subf %old, %new : f32
        %a = math.exp %d fastmath<afn> : f32
        tile.store %a, %alpha[%i] : !tile.tile<64xf32, fragment>
        %li = tile.load %l[%i] : !tile.tile<64xf32, fragment>
        %ls = arith.mulf %li, %a : f32
        tile.store %ls, %l[%i] : !tile.tile<64xf32, fragment>
      }
      tile.reduce sum %Sf, %l dim = 1 accumulate : !tile.tile<64x64xf32, fragment>, !tile.tile<64xf32, fragment>
      // acc = alpha * acc + P V, with P rounded to f16 for the tensor cores.
      tile.parallel (%i, %d) in [64, 128] {
        %o = tile.load %acc[%i, %d] : !tile.tile<64x128xf32, fragment>
        %a = tile.load %alpha[%i] : !tile.tile<64xf32, fragment>
        %os = arith.mulf %o, %a : f32
        tile.store %os, %acc[%i, %d] : !tile.tile<64x128xf32, fragment>
      }
      tile.copy %Sf, %Pf : !tile.tile<64x64xf32, fragment>, !tile.tile<64x64xf16, fragment>
      tile.gemm %Pf, %Vs, %acc : !tile.tile<64x64xf16, fragment>, !tile.tile<64x128xf16, shared>, !tile.tile<64x128xf32, fragment>
    }

    // O = acc / l, converted to f16; rows past S are not stored.
    tile.parallel (%i, %d) in [64, 128] {
      %o = tile.load %acc[%i, %d] : !tile.tile<64x128xf32, fragment>
      %li = tile.load %l[%i] : !tile.tile<64xf32, fragment>
      %on = arith.divf %o, %li fastmath<arcp> : f32
      tile.store %on, %acc[%i, %d] : !tile.tile<64x128xf32, fragment>
    }
    tile.copy %acc, %O[%bb, %bh, %q0, %c0] : !tile.tile<64x128xf32, fragment>, !tile.tensor<[B, H, S, 128], f16>
  }
  tile.return
}
