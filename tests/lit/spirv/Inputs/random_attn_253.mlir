// seed 253: attention f32->f32 D=128 blocks 32x32, 64 threads, 4 stages, causal=True exp2=True afn=True safe=False k_t=True p_shared=True heads=True lse=False pv=True scale=0.0888671875
tile.func @rand(%Q: !tile.tensor<[H, Lq, 128], f32>, %K: !tile.tensor<[H, 128, Lk], f32>, %V: !tile.tensor<[H, Lk, 128], f32>, %O: !tile.tensor<[H, Lq, 128], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %neg_inf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0x3E034906 : f32
  %lq = tile.dim %Q, 1 : !tile.tensor<[H, Lq, 128], f32>
  %lk = tile.dim %V, 1 : !tile.tensor<[H, Lk, 128], f32>
  %q_blocks = arith.ceildivui %lq, %c32 : index
  %kv_blocks = arith.ceildivui %lk, %c32 : index
  %heads = tile.dim %Q, 0 : !tile.tensor<[H, Lq, 128], f32>
  tile.kernel blocks(%bq, %bh) in (%q_blocks, %heads) threads = 64 {
    %q0 = arith.muli %bq, %c32 : index
    %q_end = arith.addi %q0, %c32 : index
    %diag = arith.ceildivui %q_end, %c32 : index
    %kv_end = arith.minui %diag, %kv_blocks : index
    %Qs = tile.alloc : !tile.tile<32x128xf32, shared>
    %Ks = tile.alloc : !tile.tile<128x32xf32, shared>
    %Vs = tile.alloc : !tile.tile<32x128xf32, shared>
    %Sf = tile.alloc : !tile.tile<32x32xf32, fragment>
    %Pf = tile.alloc : !tile.tile<32x32xf32, shared>
    %acc = tile.alloc : !tile.tile<32x128xf32, fragment>
    %m = tile.alloc : !tile.tile<32xf32, fragment>
    %m_prev = tile.alloc : !tile.tile<32xf32, fragment>
    %l = tile.alloc : !tile.tile<32xf32, fragment>
    %alpha = tile.alloc : !tile.tile<32xf32, fragment>
    tile.fill %m, %neg_inf : !tile.tile<32xf32, fragment>, f32
    tile.clear %l : !tile.tile<32xf32, fragment>
    tile.clear %acc : !tile.tile<32x128xf32, fragment>
    tile.copy %Q[%bh, %q0, %c0], %Qs : !tile.tensor<[H, Lq, 128], f32>, !tile.tile<32x128xf32, shared>
    tile.pipelined %j = %c0 to %kv_end step %c1 stages = 4 {
      %k0 = arith.muli %j, %c32 : index
      tile.copy %K[%bh, %c0, %k0], %Ks : !tile.tensor<[H, 128, Lk], f32>, !tile.tile<128x32xf32, shared>
      tile.copy %V[%bh, %k0, %c0], %Vs : !tile.tensor<[H, Lk, 128], f32>, !tile.tile<32x128xf32, shared>
      tile.gemm %Qs, %Ks, %Sf clear : !tile.tile<32x128xf32, shared>, !tile.tile<128x32xf32, shared>, !tile.tile<32x32xf32, fragment>
      tile.parallel (%i, %jj) in [32, 32] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<32x32xf32, fragment>
        %scaled = arith.mulf %s, %scale : f32
        %kpos = arith.addi %k0, %jj : index
        %keep0 = arith.cmpi ult, %kpos, %lk : index
        %qpos = arith.addi %q0, %i : index
        %past = arith.cmpi ule, %kpos, %qpos : index
        %keep = arith.andi %keep0, %past : i1
        %v = arith.select %keep, %scaled, %neg_inf : f32
        tile.store %v, %Sf[%i, %jj] : !tile.tile<32x32xf32, fragment>
      }
      tile.copy %m, %m_prev : !tile.tile<32xf32, fragment>, !tile.tile<32xf32, fragment>
      tile.reduce max %Sf, %m dim = 1 accumulate : !tile.tile<32x32xf32, fragment>, !tile.tile<32xf32, fragment>
      tile.parallel (%i) in [32] {
        %old = tile.load %m_prev[%i] : !tile.tile<32xf32, fragment>
        %new = tile.load %m[%i] : !tile.tile<32xf32, fragment>
        %dm = arith.subf %old, %new : f32
        %a = math.exp2 %dm fastmath<afn> : f32
        tile.store %a, %alpha[%i] : !tile.tile<32xf32, fragment>
        %li = tile.load %l[%i] : !tile.tile<32xf32, fragment>
        %ls = arith.mulf %li, %a : f32
        tile.store %ls, %l[%i] : !tile.tile<32xf32, fragment>
      }
      tile.parallel (%i, %jj) in [32, 32] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<32x32xf32, fragment>
        %mi = tile.load %m[%i] : !tile.tile<32xf32, fragment>
        %ds = arith.subf %s, %mi : f32
        %p = math.exp2 %ds fastmath<afn> : f32
        tile.store %p, %Sf[%i, %jj] : !tile.tile<32x32xf32, fragment>
      }
      tile.reduce sum %Sf, %l dim = 1 accumulate : !tile.tile<32x32xf32, fragment>, !tile.tile<32xf32, fragment>
      tile.parallel (%i, %dd) in [32, 128] {
        %x = tile.load %acc[%i, %dd] : !tile.tile<32x128xf32, fragment>
        %a = tile.load %alpha[%i] : !tile.tile<32xf32, fragment>
        %xs = arith.mulf %x, %a : f32
        tile.store %xs, %acc[%i, %dd] : !tile.tile<32x128xf32, fragment>
      }
      tile.copy %Sf, %Pf : !tile.tile<32x32xf32, fragment>, !tile.tile<32x32xf32, shared>
      tile.gemm %Pf, %Vs, %acc : !tile.tile<32x32xf32, shared>, !tile.tile<32x128xf32, shared>, !tile.tile<32x128xf32, fragment>
    }
    tile.parallel (%i, %dd) in [32, 128] {
      %x = tile.load %acc[%i, %dd] : !tile.tile<32x128xf32, fragment>
      %li = tile.load %l[%i] : !tile.tile<32xf32, fragment>
      %xn = arith.divf %x, %li : f32
      tile.store %xn, %acc[%i, %dd] : !tile.tile<32x128xf32, fragment>
    }
    tile.copy %acc, %O[%bh, %q0, %c0] : !tile.tile<32x128xf32, fragment>, !tile.tensor<[H, Lq, 128], f32>
  }
  tile.return
}
// --shape Lq=17,Lk=17,H=3
// --shape Lq=31,Lk=2,H=3
