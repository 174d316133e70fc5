// tessera-deepen-keys (DeepenKeys.cpp) refuses an online-softmax loop it
// cannot prove composes, or whose deeper blocks do not fit, and leaves it as
// written: its key tiles keep 64 keys, the loop its bounds and no
// tile.keys_from. deepen_keys.mlir covers the caps (rows, head dimension,
// the target's block, shared memory) and recurrences that do not compose;
// this file covers the refusals it does not: the loop's step is not 1 (a
// loop over key positions), the induction variable multiplied by a value
// known only at run time (dilated attention), the induction variable used
// other than as iv * KB (a shift), no tile.parallel that writes the scores
// before their max (the scale folded into the exponentials, nothing to
// mask the added keys in), and fragments that would take more than 224
// 32-bit words per thread (128 threads). The first program is the one the
// others are edited from and is deepened 64 -> 128, so each refusal comes
// from its edit. TESSERA_DEEPEN_KEYS=128 (forced: rows and head dimension
// regardless) refuses the same loops; =explain says why.
// RUN: %tessera-opt --split-input-file --tessera-deepen-keys=target=sm_90a %s | FileCheck %s
// RUN: env TESSERA_DEEPEN_KEYS=128 %tessera-opt --split-input-file --tessera-deepen-keys=target=sm_90a %s | FileCheck %s
// RUN: env TESSERA_DEEPEN_KEYS=explain %tessera-opt --split-input-file --tessera-deepen-keys=target=sm_90a %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=WHY

// WHY: remark: key blocks 64 -> 128
// WHY: remark: key blocks kept: the loop's step is not 1
// WHY: remark: key blocks kept: the induction variable is not multiplied by a constant
// WHY: remark: key blocks kept: the induction variable is used other than once, as iv * KB
// WHY: remark: key blocks kept: no tile.parallel writes the scores before their max
// WHY: remark: key blocks of 64 kept: 128 keys need 324 fragment words per thread (largest 128), more than 224 (128)

// The unedited program: 64 -> 128 keys.
// CHECK-LABEL: tile.func @deepened
// CHECK: tile.pipelined {{.*}} step %c1 stages = 2 attributes {tile.keys_from = 64 : i64} {
// CHECK: tile.gemm {{.*}} transpose_b clear : <128x128xf16, shared>, <128x128xf16, shared>, <128x128xf32, fragment>
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in [128, 128]
// CHECK: tile.gemm {{.*}} : <128x128xf16, fragment>, <128x128xf16, shared>, <128x128xf32, fragment>

tile.func @deepened(%Q: !tile.tensor<[B, S, 128], f16>, %K: !tile.tensor<[B, S, 128], f16>,
    %V: !tile.tensor<[B, S, 128], f16>, %O: !tile.tensor<[B, S, 128], f16>, %sm_scale: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %neg_inf = arith.constant 0xFF800000 : f32
  %batch = tile.dim %Q, 0 : !tile.tensor<[B, S, 128], f16>
  %seq = tile.dim %Q, 1 : !tile.tensor<[B, S, 128], f16>
  %q_blocks = arith.ceildivui %seq, %c128 : index
  %kv_blocks = arith.ceildivui %seq, %c64 : index
  tile.kernel blocks(%bq, %bb) in (%q_blocks, %batch) threads = 256 {
    %q0 = arith.muli %bq, %c128 : index
    %Qs = tile.alloc : !tile.tile<128x128xf16, shared>
    %Ks = tile.alloc : !tile.tile<64x128xf16, shared>
    %Vs = tile.alloc : !tile.tile<64x128xf16, shared>
    %Sf = tile.alloc : !tile.tile<128x64xf32, fragment>
    %Pf = tile.alloc : !tile.tile<128x64xf16, fragment>
    %acc = tile.alloc : !tile.tile<128x128xf32, fragment>
    %m = tile.alloc : !tile.tile<128xf32, fragment>
    %m_prev = tile.alloc : !tile.tile<128xf32, fragment>
    %l = tile.alloc : !tile.tile<128xf32, fragment>
    %alpha = tile.alloc : !tile.tile<128xf32, fragment>
    tile.fill %m, %neg_inf : !tile.tile<128xf32, fragment>, f32
    tile.clear %l : !tile.tile<128xf32, fragment>
    tile.clear %acc : !tile.tile<128x128xf32, fragment>
    tile.copy %Q[%bb, %q0, %c0], %Qs : !tile.tensor<[B, S, 128], f16>, !tile.tile<128x128xf16, shared>
    tile.pipelined %j = %c0 to %kv_blocks step %c1 stages = 2 {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%bb, %k0, %c0], %Ks : !tile.tensor<[B, S, 128], f16>, !tile.tile<64x128xf16, shared>
      tile.copy %V[%bb, %k0, %c0], %Vs : !tile.tensor<[B, S, 128], f16>, !tile.tile<64x128xf16, shared>
      tile.gemm %Qs, %Ks, %Sf transpose_b clear : !tile.tile<128x128xf16, shared>, !tile.tile<64x128xf16, shared>, !tile.tile<128x64xf32, fragment>
      tile.parallel (%i, %jj) in [128, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
        %scaled = arith.mulf %s, %sm_scale : f32
        %kpos = arith.addi %k0, %jj : index
        %in_seq = arith.cmpi ult, %kpos, %seq : index
        %v = arith.select %in_seq, %scaled, %neg_inf : f32
        tile.store %v, %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
      }
      tile.copy %m, %m_prev : !tile.tile<128xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.reduce max %Sf, %m dim = 1 accumulate : !tile.tile<128x64xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.parallel (%i) in [128] {
        %old = tile.load %m_prev[%i] : !tile.tile<128xf32, fragment>
        %new = tile.load %m[%i] : !tile.tile<128xf32, fragment>
        %d = arith.subf %old, %new : f32
        %a = math.exp %d : f32
        tile.store %a, %alpha[%i] : !tile.tile<128xf32, fragment>
        %li = tile.load %l[%i] : !tile.tile<128xf32, fragment>
        %ls = arith.mulf %li, %a : f32
        tile.store %ls, %l[%i] : !tile.tile<128xf32, fragment>
      }
      tile.parallel (%i, %jj) in [128, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
        %mi = tile.load %m[%i] : !tile.tile<128xf32, fragment>
        %d = arith.subf %s, %mi : f32
        %p = math.exp %d : f32
        tile.store %p, %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
      }
      tile.reduce sum %Sf, %l dim = 1 accumulate : !tile.tile<128x64xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.parallel (%i, %d) in [128, 128] {
        %o = tile.load %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
        %a = tile.load %alpha[%i] : !tile.tile<128xf32, fragment>
        %os = arith.mulf %o, %a : f32
        tile.store %os, %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
      }
      tile.copy %Sf, %Pf : !tile.tile<128x64xf32, fragment>, !tile.tile<128x64xf16, fragment>
      tile.gemm %Pf, %Vs, %acc : !tile.tile<128x64xf16, fragment>, !tile.tile<64x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    tile.parallel (%i, %d) in [128, 128] {
      %o = tile.load %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
      %li = tile.load %l[%i] : !tile.tile<128xf32, fragment>
      %on = arith.divf %o, %li : f32
      tile.store %on, %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %acc, %O[%bb, %q0, %c0] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[B, S, 128], f16>
  }
  tile.return
}

// -----

// The loop walks key positions, step 64: its step is not 1.
// CHECK-LABEL: tile.func @key_positions
// CHECK: tile.pipelined %{{.*}} = %c0 to %{{.*}} step %c64 stages = 2 {
// CHECK: tile.gemm {{.*}} transpose_b clear : <128x128xf16, shared>, <64x128xf16, shared>, <128x64xf32, fragment>
// CHECK: tile.reduce max {{.*}} : <128x64xf32, fragment>, <128xf32, fragment>
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in [128, 64]
// CHECK: tile.gemm {{.*}} : <128x64xf16, fragment>, <64x128xf16, shared>, <128x128xf32, fragment>

tile.func @key_positions(%Q: !tile.tensor<[B, S, 128], f16>, %K: !tile.tensor<[B, S, 128], f16>,
    %V: !tile.tensor<[B, S, 128], f16>, %O: !tile.tensor<[B, S, 128], f16>, %sm_scale: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %neg_inf = arith.constant 0xFF800000 : f32
  %batch = tile.dim %Q, 0 : !tile.tensor<[B, S, 128], f16>
  %seq = tile.dim %Q, 1 : !tile.tensor<[B, S, 128], f16>
  %q_blocks = arith.ceildivui %seq, %c128 : index
  tile.kernel blocks(%bq, %bb) in (%q_blocks, %batch) threads = 256 {
    %q0 = arith.muli %bq, %c128 : index
    %Qs = tile.alloc : !tile.tile<128x128xf16, shared>
    %Ks = tile.alloc : !tile.tile<64x128xf16, shared>
    %Vs = tile.alloc : !tile.tile<64x128xf16, shared>
    %Sf = tile.alloc : !tile.tile<128x64xf32, fragment>
    %Pf = tile.alloc : !tile.tile<128x64xf16, fragment>
    %acc = tile.alloc : !tile.tile<128x128xf32, fragment>
    %m = tile.alloc : !tile.tile<128xf32, fragment>
    %m_prev = tile.alloc : !tile.tile<128xf32, fragment>
    %l = tile.alloc : !tile.tile<128xf32, fragment>
    %alpha = tile.alloc : !tile.tile<128xf32, fragment>
    tile.fill %m, %neg_inf : !tile.tile<128xf32, fragment>, f32
    tile.clear %l : !tile.tile<128xf32, fragment>
    tile.clear %acc : !tile.tile<128x128xf32, fragment>
    tile.copy %Q[%bb, %q0, %c0], %Qs : !tile.tensor<[B, S, 128], f16>, !tile.tile<128x128xf16, shared>
    tile.pipelined %k0 = %c0 to %seq step %c64 stages = 2 {
      tile.copy %K[%bb, %k0, %c0], %Ks : !tile.tensor<[B, S, 128], f16>, !tile.tile<64x128xf16, shared>
      tile.copy %V[%bb, %k0, %c0], %Vs : !tile.tensor<[B, S, 128], f16>, !tile.tile<64x128xf16, shared>
      tile.gemm %Qs, %Ks, %Sf transpose_b clear : !tile.tile<128x128xf16, shared>, !tile.tile<64x128xf16, shared>, !tile.tile<128x64xf32, fragment>
      tile.parallel (%i, %jj) in [128, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
        %scaled = arith.mulf %s, %sm_scale : f32
        %kpos = arith.addi %k0, %jj : index
        %in_seq = arith.cmpi ult, %kpos, %seq : index
        %v = arith.select %in_seq, %scaled, %neg_inf : f32
        tile.store %v, %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
      }
      tile.copy %m, %m_prev : !tile.tile<128xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.reduce max %Sf, %m dim = 1 accumulate : !tile.tile<128x64xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.parallel (%i) in [128] {
        %old = tile.load %m_prev[%i] : !tile.tile<128xf32, fragment>
        %new = tile.load %m[%i] : !tile.tile<128xf32, fragment>
        %d = arith.subf %old, %new : f32
        %a = math.exp %d : f32
        tile.store %a, %alpha[%i] : !tile.tile<128xf32, fragment>
        %li = tile.load %l[%i] : !tile.tile<128xf32, fragment>
        %ls = arith.mulf %li, %a : f32
        tile.store %ls, %l[%i] : !tile.tile<128xf32, fragment>
      }
      tile.parallel (%i, %jj) in [128, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
        %mi = tile.load %m[%i] : !tile.tile<128xf32, fragment>
        %d = arith.subf %s, %mi : f32
        %p = math.exp %d : f32
        tile.store %p, %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
      }
      tile.reduce sum %Sf, %l dim = 1 accumulate : !tile.tile<128x64xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.parallel (%i, %d) in [128, 128] {
        %o = tile.load %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
        %a = tile.load %alpha[%i] : !tile.tile<128xf32, fragment>
        %os = arith.mulf %o, %a : f32
        tile.store %os, %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
      }
      tile.copy %Sf, %Pf : !tile.tile<128x64xf32, fragment>, !tile.tile<128x64xf16, fragment>
      tile.gemm %Pf, %Vs, %acc : !tile.tile<128x64xf16, fragment>, !tile.tile<64x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    tile.parallel (%i, %d) in [128, 128] {
      %o = tile.load %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
      %li = tile.load %l[%i] : !tile.tile<128xf32, fragment>
      %on = arith.divf %o, %li : f32
      tile.store %on, %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %acc, %O[%bb, %q0, %c0] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[B, S, 128], f16>
  }
  tile.return
}

// -----

// k0 = j * stride, the stride an argument: no constant KB.
// CHECK-LABEL: tile.func @dilated
// CHECK: tile.pipelined %[[J:.*]] = %c0 to %{{.*}} step %c1 stages = 2 {
// CHECK-NEXT: arith.muli %[[J]], %{{[0-9]+}} : index
// CHECK: tile.gemm {{.*}} transpose_b clear : <128x128xf16, shared>, <64x128xf16, shared>, <128x64xf32, fragment>
// CHECK: tile.reduce max {{.*}} : <128x64xf32, fragment>, <128xf32, fragment>
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in [128, 64]
// CHECK: tile.gemm {{.*}} : <128x64xf16, fragment>, <64x128xf16, shared>, <128x128xf32, fragment>

tile.func @dilated(%Q: !tile.tensor<[B, S, 128], f16>, %K: !tile.tensor<[B, S, 128], f16>,
    %V: !tile.tensor<[B, S, 128], f16>, %O: !tile.tensor<[B, S, 128], f16>, %sm_scale: f32, %key_stride: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %neg_inf = arith.constant 0xFF800000 : f32
  %batch = tile.dim %Q, 0 : !tile.tensor<[B, S, 128], f16>
  %seq = tile.dim %Q, 1 : !tile.tensor<[B, S, 128], f16>
  %q_blocks = arith.ceildivui %seq, %c128 : index
  %stride = arith.index_cast %key_stride : i32 to index
  %kv_blocks = arith.ceildivui %seq, %stride : index
  tile.kernel blocks(%bq, %bb) in (%q_blocks, %batch) threads = 256 {
    %q0 = arith.muli %bq, %c128 : index
    %Qs = tile.alloc : !tile.tile<128x128xf16, shared>
    %Ks = tile.alloc : !tile.tile<64x128xf16, shared>
    %Vs = tile.alloc : !tile.tile<64x128xf16, shared>
    %Sf = tile.alloc : !tile.tile<128x64xf32, fragment>
    %Pf = tile.alloc : !tile.tile<128x64xf16, fragment>
    %acc = tile.alloc : !tile.tile<128x128xf32, fragment>
    %m = tile.alloc : !tile.tile<128xf32, fragment>
    %m_prev = tile.alloc : !tile.tile<128xf32, fragment>
    %l = tile.alloc : !tile.tile<128xf32, fragment>
    %alpha = tile.alloc : !tile.tile<128xf32, fragment>
    tile.fill %m, %neg_inf : !tile.tile<128xf32, fragment>, f32
    tile.clear %l : !tile.tile<128xf32, fragment>
    tile.clear %acc : !tile.tile<128x128xf32, fragment>
    tile.copy %Q[%bb, %q0, %c0], %Qs : !tile.tensor<[B, S, 128], f16>, !tile.tile<128x128xf16, shared>
    tile.pipelined %j = %c0 to %kv_blocks step %c1 stages = 2 {
      %k0 = arith.muli %j, %stride : index
      tile.copy %K[%bb, %k0, %c0], %Ks : !tile.tensor<[B, S, 128], f16>, !tile.tile<64x128xf16, shared>
      tile.copy %V[%bb, %k0, %c0], %Vs : !tile.tensor<[B, S, 128], f16>, !tile.tile<64x128xf16, shared>
      tile.gemm %Qs, %Ks, %Sf transpose_b clear : !tile.tile<128x128xf16, shared>, !tile.tile<64x128xf16, shared>, !tile.tile<128x64xf32, fragment>
      tile.parallel (%i, %jj) in [128, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
        %scaled = arith.mulf %s, %sm_scale : f32
        %kpos = arith.addi %k0, %jj : index
        %in_seq = arith.cmpi ult, %kpos, %seq : index
        %v = arith.select %in_seq, %scaled, %neg_inf : f32
        tile.store %v, %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
      }
      tile.copy %m, %m_prev : !tile.tile<128xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.reduce max %Sf, %m dim = 1 accumulate : !tile.tile<128x64xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.parallel (%i) in [128] {
        %old = tile.load %m_prev[%i] : !tile.tile<128xf32, fragment>
        %new = tile.load %m[%i] : !tile.tile<128xf32, fragment>
        %d = arith.subf %old, %new : f32
        %a = math.exp %d : f32
        tile.store %a, %alpha[%i] : !tile.tile<128xf32, fragment>
        %li = tile.load %l[%i] : !tile.tile<128xf32, fragment>
        %ls = arith.mulf %li, %a : f32
        tile.store %ls, %l[%i] : !tile.tile<128xf32, fragment>
      }
      tile.parallel (%i, %jj) in [128, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
        %mi = tile.load %m[%i] : !tile.tile<128xf32, fragment>
        %d = arith.subf %s, %mi : f32
        %p = math.exp %d : f32
        tile.store %p, %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
      }
      tile.reduce sum %Sf, %l dim = 1 accumulate : !tile.tile<128x64xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.parallel (%i, %d) in [128, 128] {
        %o = tile.load %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
        %a = tile.load %alpha[%i] : !tile.tile<128xf32, fragment>
        %os = arith.mulf %o, %a : f32
        tile.store %os, %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
      }
      tile.copy %Sf, %Pf : !tile.tile<128x64xf32, fragment>, !tile.tile<128x64xf16, fragment>
      tile.gemm %Pf, %Vs, %acc : !tile.tile<128x64xf16, fragment>, !tile.tile<64x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    tile.parallel (%i, %d) in [128, 128] {
      %o = tile.load %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
      %li = tile.load %l[%i] : !tile.tile<128xf32, fragment>
      %on = arith.divf %o, %li : f32
      tile.store %on, %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %acc, %O[%bb, %q0, %c0] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[B, S, 128], f16>
  }
  tile.return
}

// -----

// k0 = j << 6: the induction variable's use is not iv * KB.
// CHECK-LABEL: tile.func @shifted
// CHECK: tile.pipelined %[[J:.*]] = %c0 to %{{.*}} step %c1 stages = 2 {
// CHECK-NEXT: arith.shli %[[J]], %c6 : index
// CHECK: tile.gemm {{.*}} transpose_b clear : <128x128xf16, shared>, <64x128xf16, shared>, <128x64xf32, fragment>
// CHECK: tile.reduce max {{.*}} : <128x64xf32, fragment>, <128xf32, fragment>
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in [128, 64]
// CHECK: tile.gemm {{.*}} : <128x64xf16, fragment>, <64x128xf16, shared>, <128x128xf32, fragment>

tile.func @shifted(%Q: !tile.tensor<[B, S, 128], f16>, %K: !tile.tensor<[B, S, 128], f16>,
    %V: !tile.tensor<[B, S, 128], f16>, %O: !tile.tensor<[B, S, 128], f16>, %sm_scale: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c6 = arith.constant 6 : index
  %c128 = arith.constant 128 : index
  %neg_inf = arith.constant 0xFF800000 : f32
  %batch = tile.dim %Q, 0 : !tile.tensor<[B, S, 128], f16>
  %seq = tile.dim %Q, 1 : !tile.tensor<[B, S, 128], f16>
  %q_blocks = arith.ceildivui %seq, %c128 : index
  %kv_blocks = arith.ceildivui %seq, %c64 : index
  tile.kernel blocks(%bq, %bb) in (%q_blocks, %batch) threads = 256 {
    %q0 = arith.muli %bq, %c128 : index
    %Qs = tile.alloc : !tile.tile<128x128xf16, shared>
    %Ks = tile.alloc : !tile.tile<64x128xf16, shared>
    %Vs = tile.alloc : !tile.tile<64x128xf16, shared>
    %Sf = tile.alloc : !tile.tile<128x64xf32, fragment>
    %Pf = tile.alloc : !tile.tile<128x64xf16, fragment>
    %acc = tile.alloc : !tile.tile<128x128xf32, fragment>
    %m = tile.alloc : !tile.tile<128xf32, fragment>
    %m_prev = tile.alloc : !tile.tile<128xf32, fragment>
    %l = tile.alloc : !tile.tile<128xf32, fragment>
    %alpha = tile.alloc : !tile.tile<128xf32, fragment>
    tile.fill %m, %neg_inf : !tile.tile<128xf32, fragment>, f32
    tile.clear %l : !tile.tile<128xf32, fragment>
    tile.clear %acc : !tile.tile<128x128xf32, fragment>
    tile.copy %Q[%bb, %q0, %c0], %Qs : !tile.tensor<[B, S, 128], f16>, !tile.tile<128x128xf16, shared>
    tile.pipelined %j = %c0 to %kv_blocks step %c1 stages = 2 {
      %k0 = arith.shli %j, %c6 : index
      tile.copy %K[%bb, %k0, %c0], %Ks : !tile.tensor<[B, S, 128], f16>, !tile.tile<64x128xf16, shared>
      tile.copy %V[%bb, %k0, %c0], %Vs : !tile.tensor<[B, S, 128], f16>, !tile.tile<64x128xf16, shared>
      tile.gemm %Qs, %Ks, %Sf transpose_b clear : !tile.tile<128x128xf16, shared>, !tile.tile<64x128xf16, shared>, !tile.tile<128x64xf32, fragment>
      tile.parallel (%i, %jj) in [128, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
        %scaled = arith.mulf %s, %sm_scale : f32
        %kpos = arith.addi %k0, %jj : index
        %in_seq = arith.cmpi ult, %kpos, %seq : index
        %v = arith.select %in_seq, %scaled, %neg_inf : f32
        tile.store %v, %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
      }
      tile.copy %m, %m_prev : !tile.tile<128xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.reduce max %Sf, %m dim = 1 accumulate : !tile.tile<128x64xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.parallel (%i) in [128] {
        %old = tile.load %m_prev[%i] : !tile.tile<128xf32, fragment>
        %new = tile.load %m[%i] : !tile.tile<128xf32, fragment>
        %d = arith.subf %old, %new : f32
        %a = math.exp %d : f32
        tile.store %a, %alpha[%i] : !tile.tile<128xf32, fragment>
        %li = tile.load %l[%i] : !tile.tile<128xf32, fragment>
        %ls = arith.mulf %li, %a : f32
        tile.store %ls, %l[%i] : !tile.tile<128xf32, fragment>
      }
      tile.parallel (%i, %jj) in [128, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
        %mi = tile.load %m[%i] : !tile.tile<128xf32, fragment>
        %d = arith.subf %s, %mi : f32
        %p = math.exp %d : f32
        tile.store %p, %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
      }
      tile.reduce sum %Sf, %l dim = 1 accumulate : !tile.tile<128x64xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.parallel (%i, %d) in [128, 128] {
        %o = tile.load %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
        %a = tile.load %alpha[%i] : !tile.tile<128xf32, fragment>
        %os = arith.mulf %o, %a : f32
        tile.store %os, %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
      }
      tile.copy %Sf, %Pf : !tile.tile<128x64xf32, fragment>, !tile.tile<128x64xf16, fragment>
      tile.gemm %Pf, %Vs, %acc : !tile.tile<128x64xf16, fragment>, !tile.tile<64x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    tile.parallel (%i, %d) in [128, 128] {
      %o = tile.load %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
      %li = tile.load %l[%i] : !tile.tile<128xf32, fragment>
      %on = arith.divf %o, %li : f32
      tile.store %on, %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %acc, %O[%bb, %q0, %c0] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[B, S, 128], f16>
  }
  tile.return
}

// -----

// No mask and the scale inside exp((S - m) c): no tile.parallel writes S
// before its max, where the pass would mask the keys it adds.
// CHECK-LABEL: tile.func @scale_in_exp
// CHECK: tile.pipelined %{{.*}} = %c0 to %{{.*}} step %c1 stages = 2 {
// CHECK: tile.gemm {{.*}} transpose_b clear : <128x128xf16, shared>, <64x128xf16, shared>, <128x64xf32, fragment>
// CHECK: tile.reduce max {{.*}} : <128x64xf32, fragment>, <128xf32, fragment>
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in [128, 64]
// CHECK: tile.gemm {{.*}} : <128x64xf16, fragment>, <64x128xf16, shared>, <128x128xf32, fragment>

tile.func @scale_in_exp(%Q: !tile.tensor<[B, S, 128], f16>, %K: !tile.tensor<[B, S, 128], f16>,
    %V: !tile.tensor<[B, S, 128], f16>, %O: !tile.tensor<[B, S, 128], f16>, %sm_scale: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %neg_inf = arith.constant 0xFF800000 : f32
  %batch = tile.dim %Q, 0 : !tile.tensor<[B, S, 128], f16>
  %seq = tile.dim %Q, 1 : !tile.tensor<[B, S, 128], f16>
  %q_blocks = arith.ceildivui %seq, %c128 : index
  %kv_blocks = arith.ceildivui %seq, %c64 : index
  tile.kernel blocks(%bq, %bb) in (%q_blocks, %batch) threads = 256 {
    %q0 = arith.muli %bq, %c128 : index
    %Qs = tile.alloc : !tile.tile<128x128xf16, shared>
    %Ks = tile.alloc : !tile.tile<64x128xf16, shared>
    %Vs = tile.alloc : !tile.tile<64x128xf16, shared>
    %Sf = tile.alloc : !tile.tile<128x64xf32, fragment>
    %Pf = tile.alloc : !tile.tile<128x64xf16, fragment>
    %acc = tile.alloc : !tile.tile<128x128xf32, fragment>
    %m = tile.alloc : !tile.tile<128xf32, fragment>
    %m_prev = tile.alloc : !tile.tile<128xf32, fragment>
    %l = tile.alloc : !tile.tile<128xf32, fragment>
    %alpha = tile.alloc : !tile.tile<128xf32, fragment>
    tile.fill %m, %neg_inf : !tile.tile<128xf32, fragment>, f32
    tile.clear %l : !tile.tile<128xf32, fragment>
    tile.clear %acc : !tile.tile<128x128xf32, fragment>
    tile.copy %Q[%bb, %q0, %c0], %Qs : !tile.tensor<[B, S, 128], f16>, !tile.tile<128x128xf16, shared>
    tile.pipelined %j = %c0 to %kv_blocks step %c1 stages = 2 {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%bb, %k0, %c0], %Ks : !tile.tensor<[B, S, 128], f16>, !tile.tile<64x128xf16, shared>
      tile.copy %V[%bb, %k0, %c0], %Vs : !tile.tensor<[B, S, 128], f16>, !tile.tile<64x128xf16, shared>
      tile.gemm %Qs, %Ks, %Sf transpose_b clear : !tile.tile<128x128xf16, shared>, !tile.tile<64x128xf16, shared>, !tile.tile<128x64xf32, fragment>
      tile.copy %m, %m_prev : !tile.tile<128xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.reduce max %Sf, %m dim = 1 accumulate : !tile.tile<128x64xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.parallel (%i) in [128] {
        %old = tile.load %m_prev[%i] : !tile.tile<128xf32, fragment>
        %new = tile.load %m[%i] : !tile.tile<128xf32, fragment>
        %d = arith.subf %old, %new : f32
        %ds = arith.mulf %d, %sm_scale : f32
        %a = math.exp %ds : f32
        tile.store %a, %alpha[%i] : !tile.tile<128xf32, fragment>
        %li = tile.load %l[%i] : !tile.tile<128xf32, fragment>
        %ls = arith.mulf %li, %a : f32
        tile.store %ls, %l[%i] : !tile.tile<128xf32, fragment>
      }
      tile.parallel (%i, %jj) in [128, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
        %mi = tile.load %m[%i] : !tile.tile<128xf32, fragment>
        %d = arith.subf %s, %mi : f32
        %ds = arith.mulf %d, %sm_scale : f32
        %p = math.exp %ds : f32
        tile.store %p, %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
      }
      tile.reduce sum %Sf, %l dim = 1 accumulate : !tile.tile<128x64xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.parallel (%i, %d) in [128, 128] {
        %o = tile.load %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
        %a = tile.load %alpha[%i] : !tile.tile<128xf32, fragment>
        %os = arith.mulf %o, %a : f32
        tile.store %os, %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
      }
      tile.copy %Sf, %Pf : !tile.tile<128x64xf32, fragment>, !tile.tile<128x64xf16, fragment>
      tile.gemm %Pf, %Vs, %acc : !tile.tile<128x64xf16, fragment>, !tile.tile<64x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    tile.parallel (%i, %d) in [128, 128] {
      %o = tile.load %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
      %li = tile.load %l[%i] : !tile.tile<128xf32, fragment>
      %on = arith.divf %o, %li : f32
      tile.store %on, %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %acc, %O[%bb, %q0, %c0] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[B, S, 128], f16>
  }
  tile.return
}

// -----

// 128 threads: the fragments take 228 words per thread as written, 324
// with 128-key blocks (the score tile alone 128), more than 224.
// CHECK-LABEL: tile.func @threads128
// CHECK: tile.pipelined %{{.*}} = %c0 to %{{.*}} step %c1 stages = 2 {
// CHECK: tile.gemm {{.*}} transpose_b clear : <128x128xf16, shared>, <64x128xf16, shared>, <128x64xf32, fragment>
// CHECK: tile.reduce max {{.*}} : <128x64xf32, fragment>, <128xf32, fragment>
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in [128, 64]
// CHECK: tile.gemm {{.*}} : <128x64xf16, fragment>, <64x128xf16, shared>, <128x128xf32, fragment>

tile.func @threads128(%Q: !tile.tensor<[B, S, 128], f16>, %K: !tile.tensor<[B, S, 128], f16>,
    %V: !tile.tensor<[B, S, 128], f16>, %O: !tile.tensor<[B, S, 128], f16>, %sm_scale: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %neg_inf = arith.constant 0xFF800000 : f32
  %batch = tile.dim %Q, 0 : !tile.tensor<[B, S, 128], f16>
  %seq = tile.dim %Q, 1 : !tile.tensor<[B, S, 128], f16>
  %q_blocks = arith.ceildivui %seq, %c128 : index
  %kv_blocks = arith.ceildivui %seq, %c64 : index
  tile.kernel blocks(%bq, %bb) in (%q_blocks, %batch) threads = 128 {
    %q0 = arith.muli %bq, %c128 : index
    %Qs = tile.alloc : !tile.tile<128x128xf16, shared>
    %Ks = tile.alloc : !tile.tile<64x128xf16, shared>
    %Vs = tile.alloc : !tile.tile<64x128xf16, shared>
    %Sf = tile.alloc : !tile.tile<128x64xf32, fragment>
    %Pf = tile.alloc : !tile.tile<128x64xf16, fragment>
    %acc = tile.alloc : !tile.tile<128x128xf32, fragment>
    %m = tile.alloc : !tile.tile<128xf32, fragment>
    %m_prev = tile.alloc : !tile.tile<128xf32, fragment>
    %l = tile.alloc : !tile.tile<128xf32, fragment>
    %alpha = tile.alloc : !tile.tile<128xf32, fragment>
    tile.fill %m, %neg_inf : !tile.tile<128xf32, fragment>, f32
    tile.clear %l : !tile.tile<128xf32, fragment>
    tile.clear %acc : !tile.tile<128x128xf32, fragment>
    tile.copy %Q[%bb, %q0, %c0], %Qs : !tile.tensor<[B, S, 128], f16>, !tile.tile<128x128xf16, shared>
    tile.pipelined %j = %c0 to %kv_blocks step %c1 stages = 2 {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %K[%bb, %k0, %c0], %Ks : !tile.tensor<[B, S, 128], f16>, !tile.tile<64x128xf16, shared>
      tile.copy %V[%bb, %k0, %c0], %Vs : !tile.tensor<[B, S, 128], f16>, !tile.tile<64x128xf16, shared>
      tile.gemm %Qs, %Ks, %Sf transpose_b clear : !tile.tile<128x128xf16, shared>, !tile.tile<64x128xf16, shared>, !tile.tile<128x64xf32, fragment>
      tile.parallel (%i, %jj) in [128, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
        %scaled = arith.mulf %s, %sm_scale : f32
        %kpos = arith.addi %k0, %jj : index
        %in_seq = arith.cmpi ult, %kpos, %seq : index
        %v = arith.select %in_seq, %scaled, %neg_inf : f32
        tile.store %v, %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
      }
      tile.copy %m, %m_prev : !tile.tile<128xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.reduce max %Sf, %m dim = 1 accumulate : !tile.tile<128x64xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.parallel (%i) in [128] {
        %old = tile.load %m_prev[%i] : !tile.tile<128xf32, fragment>
        %new = tile.load %m[%i] : !tile.tile<128xf32, fragment>
        %d = arith.subf %old, %new : f32
        %a = math.exp %d : f32
        tile.store %a, %alpha[%i] : !tile.tile<128xf32, fragment>
        %li = tile.load %l[%i] : !tile.tile<128xf32, fragment>
        %ls = arith.mulf %li, %a : f32
        tile.store %ls, %l[%i] : !tile.tile<128xf32, fragment>
      }
      tile.parallel (%i, %jj) in [128, 64] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
        %mi = tile.load %m[%i] : !tile.tile<128xf32, fragment>
        %d = arith.subf %s, %mi : f32
        %p = math.exp %d : f32
        tile.store %p, %Sf[%i, %jj] : !tile.tile<128x64xf32, fragment>
      }
      tile.reduce sum %Sf, %l dim = 1 accumulate : !tile.tile<128x64xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.parallel (%i, %d) in [128, 128] {
        %o = tile.load %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
        %a = tile.load %alpha[%i] : !tile.tile<128xf32, fragment>
        %os = arith.mulf %o, %a : f32
        tile.store %os, %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
      }
      tile.copy %Sf, %Pf : !tile.tile<128x64xf32, fragment>, !tile.tile<128x64xf16, fragment>
      tile.gemm %Pf, %Vs, %acc : !tile.tile<128x64xf16, fragment>, !tile.tile<64x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    tile.parallel (%i, %d) in [128, 128] {
      %o = tile.load %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
      %li = tile.load %l[%i] : !tile.tile<128xf32, fragment>
      %on = arith.divf %o, %li : f32
      tile.store %on, %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %acc, %O[%bb, %q0, %c0] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[B, S, 128], f16>
  }
  tile.return
}
