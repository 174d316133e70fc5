// Persistent blocks keep the early tile (attention's Q, copied before the
// loop) in two copies the tiles take turns in, the second placed after
// everything else in shared memory (Distribute.cpp, planEarlyCopies); where
// that copy does not fit, the kernel keeps one copy, which the copy warp
// refills after the consumers' loop, exactly as TESSERA_EARLY_COPIES=1
// forces (early_bulk.mlir). This program is the q128 attention (no causal
// mask) storing O in f32: the epilogue's staging tile is 64 KiB instead of
// 32, so with one copy of Q the kernel already takes 230400 bytes and a
// second 32 KiB copy (263168) would pass sm_90a's 232448. tessera-pipeline-
// loops (persistentPays) counts that copy and leaves the kernel one block a
// tile; TESSERA_PERSISTENT=1 forces persistent blocks, and the kernel then
// has one copy: six mbarriers (2 stages, 2 releases, Q's arrival and
// release), 230400 bytes, the same PTX as with TESSERA_EARLY_COPIES=1. The
// same program storing f16 (sed below) fits both copies and is persistent
// by default: eight mbarriers (Q's arrival and release per copy), 230400
// bytes, a PTX other than its one-copy build's (197632 bytes).
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t/d %t/p %t/one %t/fit %t/fitone
// RUN: %tessera compile %s --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/d.tsb --dump-dir %t/d
// RUN: %tessera info %t/d.tsb | FileCheck %s --check-prefix=DEFAULT
// RUN: env TESSERA_PERSISTENT=1 %tessera compile %s --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/p.tsb --dump-dir %t/p
// RUN: %tessera info %t/p.tsb | FileCheck %s --check-prefix=INFO
// RUN: FileCheck %s --input-file %t/p/kernel.sm_90a.ptx
// RUN: env TESSERA_PERSISTENT=1 TESSERA_EARLY_COPIES=1 %tessera compile %s --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/one.tsb --dump-dir %t/one
// RUN: diff %t/p/kernel.sm_90a.ptx %t/one/kernel.sm_90a.ptx
// RUN: sed -e 's/128\], f32>/128], f16>/g' %s > %t/fit.mlir
// RUN: %tessera compile %t/fit.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/fit.tsb --dump-dir %t/fit
// RUN: %tessera info %t/fit.tsb | FileCheck %s --check-prefix=INFO
// RUN: FileCheck %s --check-prefix=FIT --input-file %t/fit/kernel.sm_90a.ptx
// RUN: env TESSERA_EARLY_COPIES=1 %tessera compile %t/fit.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/fitone.tsb --dump-dir %t/fitone
// RUN: %tessera info %t/fitone.tsb | FileCheck %s --check-prefix=FITONE
// RUN: not diff -q %t/fit/kernel.sm_90a.ptx %t/fitone/kernel.sm_90a.ptx

// DEFAULT: kernel attn_q128_o {{.*}}: 384 threads, {{[0-9]+}} shared bytes, grid [ceildiv(S, 128), H, B]
// INFO: kernel attn_q128_o {{.*}}: 384 threads, 230400 shared bytes, grid [min((ceildiv(S, 128)) * (H) * (B), __compute_units), 1, 1]
// CHECK: .visible .entry tessera_kernel_attn_q128_o(
// CHECK-COUNT-6: mbarrier.init.shared::cta.b64
// CHECK-NOT: mbarrier.init
// CHECK: ret;
// FIT: .visible .entry tessera_kernel_attn_q128_o(
// FIT-COUNT-8: mbarrier.init.shared::cta.b64
// FIT-NOT: mbarrier.init
// FIT: ret;
// FITONE: kernel attn_q128_o {{.*}}: 384 threads, 197632 shared bytes, grid [min(

tile.func @attn_q128_o(%Q: !tile.tensor<[B, H, S, 128], f16>,
    %K: !tile.tensor<[B, H, S, 128], f16>, %V: !tile.tensor<[B, H, S, 128], f16>,
    %O: !tile.tensor<[B, H, S, 128], f32>, %sm_scale: f32) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c1 = arith.constant 1 : index
  %neg_inf = arith.constant 0xFF800000 : f32
  %batch = tile.dim %Q, 0 : !tile.tensor<[B, H, S, 128], f16>
  %heads = tile.dim %Q, 1 : !tile.tensor<[B, H, S, 128], f16>
  %seq = tile.dim %Q, 2 : !tile.tensor<[B, H, S, 128], f16>
  %blocks = arith.ceildivui %seq, %c128 : index
  tile.kernel blocks(%bq, %bh, %bb) in (%blocks, %heads, %batch) threads = 256 {
    %q0 = arith.muli %bq, %c128 : index
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
    tile.copy %Q[%bb, %bh, %q0, %c0], %Qs : !tile.tensor<[B, H, S, 128], f16>, !tile.tile<128x128xf16, shared>
    tile.pipelined %j = %c0 to %blocks step %c1 stages = 2 {
      %k0 = arith.muli %j, %c128 : index
      tile.copy %K[%bb, %bh, %k0, %c0], %Ks : !tile.tensor<[B, H, S, 128], f16>, !tile.tile<128x128xf16, shared>
      tile.copy %V[%bb, %bh, %k0, %c0], %Vs : !tile.tensor<[B, H, S, 128], f16>, !tile.tile<128x128xf16, shared>
      tile.gemm %Qs, %Ks, %Sf transpose_b clear : !tile.tile<128x128xf16, shared>, !tile.tile<128x128xf16, shared>, !tile.tile<128x128xf32, fragment>
      tile.parallel (%i, %jj) in [128, 128] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x128xf32, fragment>
        %scaled = arith.mulf %s, %sm_scale : f32
        %kpos = arith.addi %k0, %jj : index
        %in_seq = arith.cmpi ult, %kpos, %seq : index
        %v = arith.select %in_seq, %scaled, %neg_inf : f32
        tile.store %v, %Sf[%i, %jj] : !tile.tile<128x128xf32, fragment>
      }
      tile.copy %m, %m_prev : !tile.tile<128xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.reduce max %Sf, %m dim = 1 accumulate : !tile.tile<128x128xf32, fragment>, !tile.tile<128xf32, fragment>
      tile.parallel (%i, %jj) in [128, 128] {
        %s = tile.load %Sf[%i, %jj] : !tile.tile<128x128xf32, fragment>
        %mi = tile.load %m[%i] : !tile.tile<128xf32, fragment>
        %d = arith.subf %s, %mi : f32
        %p = math.exp %d fastmath<afn> : f32
        tile.store %p, %Sf[%i, %jj] : !tile.tile<128x128xf32, fragment>
      }
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
      tile.parallel (%i, %d) in [128, 128] {
        %o = tile.load %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
        %a = tile.load %alpha[%i] : !tile.tile<128xf32, fragment>
        %os = arith.mulf %o, %a : f32
        tile.store %os, %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
      }
      tile.copy %Sf, %Pf : !tile.tile<128x128xf32, fragment>, !tile.tile<128x128xf16, fragment>
      tile.gemm %Pf, %Vs, %acc : !tile.tile<128x128xf16, fragment>, !tile.tile<128x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    tile.parallel (%i, %d) in [128, 128] {
      %o = tile.load %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
      %li = tile.load %l[%i] : !tile.tile<128xf32, fragment>
      %on = arith.divf %o, %li fastmath<arcp> : f32
      tile.store %on, %acc[%i, %d] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %acc, %O[%bb, %bh, %q0, %c0] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[B, H, S, 128], f32>
  }
  tile.return
}
