// Early bulk copies: a copy of a global tensor into a whole shared tile
// before a warp-specialized loop, which only the loop (and later ops) read
// (attention's Q block), is issued by the copy warp as a TMA copy before
// its first stage, completing on a barrier of its own; the consumers wait
// on that barrier where the copy was, instead of loading the tile with
// their own loads between two block barriers. The kernel then carries a
// fourth tensor map (Q: slot 0, box 64 x 128 in two 64-column blocks).
// The drain after the loop adds no barrier of its own. TESSERA_EARLY_BULK=0
// keeps the threads' copy (and the drain's barrier). Persistent blocks
// (this program's default since 2026-11-28, tessera-pipeline-loops'
// tile.persistent; the runs above set TESSERA_PERSISTENT=0) copy Q again for each tile they walk, into one of
// two copies of the tile (tile k reads copy k % 2; the second copy lies
// 66560 bytes on, after the epilogue's staging: 230400 bytes in all), once
// every consumer warp has released the copy's last use, two tiles back, on
// a barrier of its own (eight barriers: 2 stages, 2 releases, and per copy
// of Q its arrival and release), after the tile's first K/V stage (in the
// copy loop's first iteration, or after a loop with none): 8 TMA loads in
// the PTX, K's and V's two boxes each in the loop, Q's two boxes in both
// places. TESSERA_EARLY_COPIES=1 keeps one copy of Q (six barriers,
// 197632 bytes), which the copy warp refills after the consumers' loop.
// The normalization O = acc / l is written with fastmath<arcp>: one
// reciprocal per row and a multiply per element, no div.rn.f32.
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t/on %t/off %t/p %t/gqa
// RUN: env TESSERA_PERSISTENT=0 %tessera compile %examples/flash_attention_fwd_q128.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/on.tsb --dump-dir %t/on
// RUN: FileCheck %s --input-file %t/on/kernel.sm_90a.ptx
// RUN: env TESSERA_EARLY_BULK=0 TESSERA_PERSISTENT=0 %tessera compile %examples/flash_attention_fwd_q128.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/off.tsb --dump-dir %t/off
// RUN: FileCheck %s --check-prefix=OFF --input-file %t/off/kernel.sm_90a.ptx
// RUN: %tessera compile %examples/flash_attention_fwd_q128.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/p.tsb --dump-dir %t/p
// RUN: FileCheck %s --check-prefix=PERSIST --input-file %t/p/kernel.sm_90a.ptx
// RUN: grep -c 'cp.async.bulk.tensor.4d.shared::cluster.global' %t/p/kernel.sm_90a.ptx | FileCheck %s --check-prefix=PLOADS
// RUN: %tessera info %t/p.tsb | FileCheck %s --check-prefix=PINFO
// Causal tiles are dealt zigzag: each tile walk (copy warp, consumers) takes
// one more min (the last round's size) than round-robin does.
// RUN: grep -c -E 'min\.(u|s)64' %t/p/kernel.sm_90a.ptx | FileCheck %s --check-prefix=ZIGZAG
// RUN: env TESSERA_ZIGZAG=0 %tessera compile %examples/flash_attention_fwd_q128.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/rr.tsb --dump-dir %t/rr
// RUN: grep -c -E 'min\.(u|s)64' %t/rr/kernel.sm_90a.ptx | FileCheck %s --check-prefix=ROUNDROBIN
// RUN: env TESSERA_PERSISTENT=1 TESSERA_EARLY_COPIES=1 %tessera compile %examples/flash_attention_fwd_q128.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/p1.tsb --dump-dir %t/p1
// RUN: FileCheck %s --check-prefix=PONE --input-file %t/p1/kernel.sm_90a.ptx
// RUN: %tessera info %t/p1.tsb | FileCheck %s --check-prefix=PONEINFO
// RUN: env TESSERA_PERSISTENT=0 %tessera compile %examples/zoo/attn_gqa_d128_causal.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/gqa.tsb --dump-dir %t/gqa
// RUN: FileCheck %s --check-prefix=GQA --input-file %t/gqa/kernel.sm_90a.ptx

// CHECK: tessera_tma_tessera_kernel_flash_attention_fwd_q128[208] = {84, 77, 65, 50, 4, 0, 0, 0,
// CHECK: .visible .entry tessera_kernel_flash_attention_fwd_q128(
// CHECK: .param .align 64 .b8 tessera_kernel_flash_attention_fwd_q128_param_25[128]
// CHECK: .maxntid 384, 1, 1
// CHECK-COUNT-5: mbarrier.init.shared::cta.b64
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: mov.b64 [[QMAP:%rd[0-9]+]], tessera_kernel_flash_attention_fwd_q128_param_22;
// CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[QBAR:%r[0-9]+]]], {{%r[0-9]+}};
// CHECK: cvta.param.u64 [[QDESC:%rd[0-9]+]], [[QMAP]];
// CHECK: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [[[QDESC]], {{.*}}], [[[QBAR]]];
// CHECK: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [[[QDESC]], {{.*}}], [[[QBAR]]];
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK-NOT: ld.global
// CHECK-NOT: bar.sync
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK-NOT: ld.global
// CHECK-NOT: bar.sync
// CHECK: wgmma.mma_async
// CHECK-NOT: div.rn.f32
// CHECK: rcp.rn.f32
// CHECK-NOT: div.rn.f32
// CHECK: stmatrix.sync.aligned

// OFF: tessera_tma_tessera_kernel_flash_attention_fwd_q128[160] = {84, 77, 65, 50, 3, 0, 0, 0,
// OFF: setmaxnreg.inc.sync.aligned.u32 232;
// OFF: bar.sync 1,
// OFF: ld.global.v4.b32
// OFF: st.shared.v4.b32
// OFF: bar.sync 1,
// OFF: wgmma.mma_async

// PERSIST: tessera_tma_tessera_kernel_flash_attention_fwd_q128[208] = {84, 77, 65, 50, 4, 0, 0, 0,
// PERSIST-COUNT-8: mbarrier.init.shared::cta.b64
// PERSIST-NOT: mbarrier.init
// PERSIST: setmaxnreg.dec.sync.aligned.u32 40;
// PERSIST: mov.u32 {{%r[0-9]+}}, %nctaid.x;
// PERSIST: mad.lo.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 66560,
// PERSIST: setmaxnreg.inc.sync.aligned.u32 232;
// PERSIST-NOT: ld.global.v4
// PERSIST: mbarrier.arrive.shared::cta.b64
// PERSIST-NOT: ld.global.v4
// PERSIST: ret;
// PLOADS: {{^}}8{{$}}
// PINFO: 384 threads, 230400 shared bytes
// ZIGZAG: {{^}}4{{$}}
// ROUNDROBIN: {{^}}2{{$}}
// PONE-COUNT-6: mbarrier.init.shared::cta.b64
// PONE-NOT: mbarrier.init
// PONE-NOT: {{mad.lo.s32 .*, 66560,}}
// PONEINFO: 384 threads, 197632 shared bytes

// GQA: {84, 77, 65, 50, 4, 0, 0, 0,
// GQA: setmaxnreg.dec.sync.aligned.u32 40;
// GQA: mbarrier.arrive.expect_tx.shared::cta.b64
// GQA: setmaxnreg.inc.sync.aligned.u32 232;
// GQA-NOT: ld.global
// GQA: mbarrier.try_wait.parity.shared::cta.b64
// GQA-NOT: ld.global
// GQA: wgmma.mma_async
