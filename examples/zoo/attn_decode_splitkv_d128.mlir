// Split-KV decoding attention (flash-decoding), head dim 128, f16: a few new
// queries per sequence (Sq <= 16; 1 for plain token-by-token decoding)
// attend to a long KV cache of Skv keys. One block per head would leave most
// of a GPU idle, so the keys are cut into splits of 256 and every
// (split, head, batch) gets a block that writes its partial, normalized
// output and its log-sum-exp; attn_decode_combine.mlir merges the splits.
//   Opart[b, h*NS + s] = softmax(Q K_s^T * sm_scale) V_s   (f32)
//   LSE[b, h*NS + s]   = log(sum(exp(Q K_s^T * sm_scale)))  (natural log)
// Q: f16 [B, H, Sq, 128]; K, V: f16 [B, H, Skv, 128];
// Opart: f32 [B, HS, Sq, 128] and LSE: f32 [B, HS, Sq] with
// HS = H * NS, NS = ceil(Skv / 256) (the caller sizes them).
// Grid (NS, H, B), 128 threads. Tiles: the Sq query rows padded to a 16x128
// Q tile (rows past Sq read zeros and are never stored), K and V in 64-key
// blocks (4 per split) with a 2-stage pipeline; S is 16x64. Every split
// holds at least one key, so every stored row has a finite max.
tile.func @attn_decode_splitkv_d128(%Q: !tile.tensor<[B, H, Sq, 128], f16>,
                                    %K: !tile.tensor<[B, H, Skv, 128], f16>,
                                    %V: !tile.tensor<[B, H, Skv, 128], f16>,
                                    %Opart: !tile.tensor<[B, HS, Sq, 128], f32>,
                                    %LSE: !tile.tensor<[B, HS, Sq], f32>,
                                    %sm_scale: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %neg_inf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %batch = tile.dim %Q, 0 : !tile.tensor<[B, H, Sq, 128], f16>
  %heads = tile.dim %Q, 1 : !tile.tensor<[B, H, Sq, 128], f16>
  %skv = tile.dim %K, 2 : !tile.tensor<[B, H, Skv, 128], f16>
  %splits = arith.ceildivui %skv, %c256 : index
  %kv_blocks = arith.ceildivui %skv, %c64 : index
  tile.kernel blocks(%bs, %bh, %bb) in (%splits, %heads, %batch) threads = 128 {
    %blk0 = arith.muli %bs, %c4 : index
    %blk1 = arith.addi %blk0, %c4 : index
    %kv_end = arith.minui %blk1, %kv_blocks : index
    %hs0 = arith.muli %bh, %splits : index
    %hs = arith.addi %hs0, %bs : index
    %Qs = tile.alloc : !tile.tile<16x128xf16, shared>
    %Ks = tile.alloc : !tile.tile<64x128xf16, shared>
    %Vs = tile.alloc : !tile.tile<64x128xf16, shared>
    %Sf = tile.alloc : !tile.tile<16x64xf32, fragment>
    %Pf = tile.alloc : !tile.tile<16x64xf16, fragment>
    %acc = tile.alloc : !tile.tile<16x128xf32, fragment>
    %m = tile.alloc : !tile.tile<16xf32, fragment>
    %m_prev = tile.alloc : !tile.tile<16xf32, fragment>
    %l = tile.alloc : !tile.tile<16xf32, fragment>
    %alpha = tile.alloc : !tile.tile<16xf32, fragment>
    tile.fill %m, %neg_inf : !tile.tile<16xf32, fragment>, f32
    tile.clear %l : !tile.tile<16xf32, fragment>
    tile.clear %acc : !tile.tile<16x128xf32, fragment>
    tile.copy %Q[%bb, %bh, %c0, %c0], %Qs : !tile.tensor<[B, H, Sq, 128], f16>, !tile.tile<16x128xf16, shared>
    tile.pipelined %j = %blk0 to %kv_end step %c1 stages = 2 {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%bb, %bh, %k0, %c0], %Ks : !tile.tensor<[B, H, Skv, 128], f16>, !tile.tile<64x128xf16, shared>
      tile.copy %V[%bb, %bh, %k0, %c0], %Vs : !tile.tensor<[B, H, Skv, 128], f16>, !tile.tile<64x128xf16, shared>
      tile.gemm %Qs, %Ks, %Sf transpose_b clear : !tile.tile<16x128xf16, shared>, !tile.tile<64x128xf16, shared>, !tile.tile<16x64xf32, fragment>
      tile.parallel (%i, %jj) in [16, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<16x64xf32, fragment>
        %scaled = arith.mulf %s, %sm_scale : f32
        %kpos = arith.addi %k0, %jj : index
        %in_seq = arith.cmpi ult, %kpos, %skv : index
        %v = arith.select %in_seq, %scaled, %neg_inf : f32
        tile.store %v, %Sf[%i, %jj] : !tile.tile<16x64xf32, fragment>
      }
      tile.copy %m, %m_prev : !tile.tile<16xf32, fragment>, !tile.tile<16xf32, fragment>
      tile.reduce max %Sf, %m dim = 1 accumulate : !tile.tile<16x64xf32, fragment>, !tile.tile<16xf32, fragment>
      tile.parallel (%i, %jj) in [16, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<16x64xf32, fragment>
        %mi = tile.load %m[%i] : !tile.tile<16xf32, fragment>
        %d = arith.subf %s, %mi : f32
        %p = math.exp %d fastmath<afn> : f32
        tile.store %p, %Sf[%i, %jj] : !tile.tile<16x64xf32, fragment>
      }
      tile.parallel (%i) in [16] {
        %old = tile.load %m_prev[%i] : !tile.tile<16xf32, fragment>
        %new = tile.load %m[%i] : !tile.tile<16xf32, fragment>
        %d = arith.subf %old, %new : f32
        %a = math.exp %d fastmath<afn> : f32
        tile.store %a, %alpha[%i] : !tile.tile<16xf32, fragment>
        %li = tile.load %l[%i] : !tile.tile<16xf32, fragment>
        %ls = arith.mulf %li, %a : f32
        tile.store %ls, %l[%i] : !tile.tile<16xf32, fragment>
      }
      tile.reduce sum %Sf, %l dim = 1 accumulate : !tile.tile<16x64xf32, fragment>, !tile.tile<16xf32, fragment>
      tile.parallel (%i, %d) in [16, 128] {
        %o = tile.load %acc[%i, %d] : !tile.tile<16x128xf32, fragment>
        %a = tile.load %alpha[%i] : !tile.tile<16xf32, fragment>
        %os = arith.mulf %o, %a : f32
        tile.store %os, %acc[%i, %d] : !tile.tile<16x128xf32, fragment>
      }
      tile.copy %Sf, %Pf : !tile.tile<16x64xf32, fragment>, !tile.tile<16x64xf16, fragment>
      tile.gemm %Pf, %Vs, %acc : !tile.tile<16x64xf16, fragment>, !tile.tile<64x128xf16, shared>, !tile.tile<16x128xf32, fragment>
    }
    // Partial output acc / l and lse = m + log(l), in f32 for the combine.
    tile.parallel (%i, %d) in [16, 128] {
      %o = tile.load %acc[%i, %d] : !tile.tile<16x128xf32, fragment>
      %li = tile.load %l[%i] : !tile.tile<16xf32, fragment>
      %on = arith.divf %o, %li fastmath<arcp> : f32
      tile.store %on, %acc[%i, %d] : !tile.tile<16x128xf32, fragment>
    }
    tile.parallel (%i) in [16] {
      %mi = tile.load %m[%i] : !tile.tile<16xf32, fragment>
      %li = tile.load %l[%i] : !tile.tile<16xf32, fragment>
      %lg = math.log %li : f32
      %lse = arith.addf %mi, %lg : f32
      tile.store %lse, %m[%i] : !tile.tile<16xf32, fragment>
    }
    tile.copy %acc, %Opart[%bb, %hs, %c0, %c0] : !tile.tile<16x128xf32, fragment>, !tile.tensor<[B, HS, Sq, 128], f32>
    tile.copy %m, %LSE[%bb, %hs, %c0] : !tile.tile<16xf32, fragment>, !tile.tensor<[B, HS, Sq], f32>
  }
  tile.return
}
