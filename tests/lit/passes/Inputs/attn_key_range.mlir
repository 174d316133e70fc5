// Attention over the key blocks [first, last) only, chosen by two scalar
// arguments, with no mask of the program's own but the sequence's end: a
// loop whose bounds alone keep keys out. tessera-deepen-keys must mask the
// keys its deeper blocks add before `first` and from `last` on
// (tests/unit/passes/PipelineSemanticsTest.cpp, Sm90aDeepenedKeys).
// Q, K, V, O: f16 [B, H, S, 64]. Grid (ceil(S / 64), H, B), 128 threads.
tile.func @attn_key_range(%Q: !tile.tensor<[B, H, S, 64], f16>,
    %K: !tile.tensor<[B, H, S, 64], f16>, %V: !tile.tensor<[B, H, S, 64], f16>,
    %O: !tile.tensor<[B, H, S, 64], f16>, %sm_scale: f32, %first: i32,
    %last: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cb = arith.constant 64 : index
  %neg_inf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %batch = tile.dim %Q, 0 : !tile.tensor<[B, H, S, 64], f16>
  %heads = tile.dim %Q, 1 : !tile.tensor<[B, H, S, 64], f16>
  %seq = tile.dim %Q, 2 : !tile.tensor<[B, H, S, 64], f16>
  %q_blocks = arith.ceildivui %seq, %cb : index
  %lo = arith.index_cast %first : i32 to index
  %hi = arith.index_cast %last : i32 to index
  tile.kernel blocks(%bq, %bh, %bb) in (%q_blocks, %heads, %batch) threads = 128 {
    %q0 = arith.muli %bq, %cb : index
    %Qs = tile.alloc : !tile.tile<64x64xf16, shared>
    %Ks = tile.alloc : !tile.tile<64x64xf16, shared>
    %Vs = tile.alloc : !tile.tile<64x64xf16, shared>
    %Sf = tile.alloc : !tile.tile<64x64xf32, fragment>
    %Pf = tile.alloc : !tile.tile<64x64xf16, fragment>
    %acc = tile.alloc : !tile.tile<64x64xf32, fragment>
    %m = tile.alloc : !tile.tile<64xf32, fragment>
    %m_prev = tile.alloc : !tile.tile<64xf32, fragment>
    %l = tile.alloc : !tile.tile<64xf32, fragment>
    %alpha = tile.alloc : !tile.tile<64xf32, fragment>
    tile.fill %m, %neg_inf : !tile.tile<64xf32, fragment>, f32
    tile.clear %l : !tile.tile<64xf32, fragment>
    tile.clear %acc : !tile.tile<64x64xf32, fragment>
    tile.copy %Q[%bb, %bh, %q0, %c0], %Qs : !tile.tensor<[B, H, S, 64], f16>, !tile.tile<64x64xf16, shared>
    tile.pipelined %j = %lo to %hi step %c1 stages = 2 {
      %k0 = arith.muli %j, %cb : index
      tile.copy %K[%bb, %bh, %k0, %c0], %Ks : !tile.tensor<[B, H, S, 64], f16>, !tile.tile<64x64xf16, shared>
      tile.copy %V[%bb, %bh, %k0, %c0], %Vs : !tile.tensor<[B, H, S, 64], f16>, !tile.tile<64x64xf16, shared>
      tile.gemm %Qs, %Ks, %Sf transpose_b clear : !tile.tile<64x64xf16, shared>, !tile.tile<64x64xf16, shared>, !tile.tile<64x64xf32, fragment>
      tile.parallel (%i, %jj) in [64, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<64x64xf32, fragment>
        %kpos = arith.addi %k0, %jj : index
        %in_seq = arith.cmpi ult, %kpos, %seq : index
        %v = arith.select %in_seq, %s, %neg_inf : f32
        tile.store %v, %Sf[%i, %jj] : !tile.tile<64x64xf32, fragment>
      }
      tile.copy %m, %m_prev : !tile.tile<64xf32, fragment>, !tile.tile<64xf32, fragment>
      tile.reduce max %Sf, %m dim = 1 accumulate : !tile.tile<64x64xf32, fragment>, !tile.tile<64xf32, fragment>
      // The scale folded into the exponent: exp2(c (S - m)), c a scalar
      // whose sign the compiler cannot know (so P is masked as well).
      tile.parallel (%i, %jj) in [64, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<64x64xf32, fragment>
        %mi = tile.load %m[%i] : !tile.tile<64xf32, fragment>
        %d = arith.subf %s, %mi : f32
        %x = arith.mulf %d, %sm_scale : f32
        %p = math.exp2 %x : f32
        tile.store %p, %Sf[%i, %jj] : !tile.tile<64x64xf32, fragment>
      }
      tile.parallel (%i) in [64] {
        %old = tile.load %m_prev[%i] : !tile.tile<64xf32, fragment>
        %new = tile.load %m[%i] : !tile.tile<64xf32, fragment>
        %d = arith.subf %old, %new : f32
        %x = arith.mulf %d, %sm_scale : f32
        %a = math.exp2 %x : f32
        tile.store %a, %alpha[%i] : !tile.tile<64xf32, fragment>
        %li = tile.load %l[%i] : !tile.tile<64xf32, fragment>
        %ls = arith.mulf %li, %a : f32
        tile.store %ls, %l[%i] : !tile.tile<64xf32, fragment>
      }
      tile.reduce sum %Sf, %l dim = 1 accumulate : !tile.tile<64x64xf32, fragment>, !tile.tile<64xf32, fragment>
      tile.parallel (%i, %d) in [64, 64] {
        %o = tile.load %acc[%i, %d] : !tile.tile<64x64xf32, fragment>
        %a = tile.load %alpha[%i] : !tile.tile<64xf32, fragment>
        %os = arith.mulf %o, %a : f32
        tile.store %os, %acc[%i, %d] : !tile.tile<64x64xf32, fragment>
      }
      tile.copy %Sf, %Pf : !tile.tile<64x64xf32, fragment>, !tile.tile<64x64xf16, fragment>
      tile.gemm %Pf, %Vs, %acc : !tile.tile<64x64xf16, fragment>, !tile.tile<64x64xf16, shared>, !tile.tile<64x64xf32, fragment>
    }
    tile.parallel (%i, %d) in [64, 64] {
      %o = tile.load %acc[%i, %d] : !tile.tile<64x64xf32, fragment>
      %li = tile.load %l[%i] : !tile.tile<64xf32, fragment>
      %on = arith.divf %o, %li fastmath<arcp> : f32
      tile.store %on, %acc[%i, %d] : !tile.tile<64x64xf32, fragment>
    }
    tile.copy %acc, %O[%bb, %bh, %q0, %c0] : !tile.tile<64x64xf32, fragment>, !tile.tensor<[B, H, S, 64], f16>
  }
  tile.return
}
