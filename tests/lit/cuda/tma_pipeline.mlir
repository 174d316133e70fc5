// Pipelined loops on sm_90a copy by TMA through distribution: one thread
// issues cp.async.bulk.tensor per tile (per 64-column block of a 128-byte
// swizzled tile) completing on the stage's mbarrier, which every thread
// waits on with the phase parity tessera-pipeline recorded. The module
// carries the "TMA2" descriptor of the tensor maps (A: box 32 x 128, 64-byte
// swizzle; B: box 64 x 32, 128-byte swizzle, in two column blocks) and the
// twin without TMA that the runtime launches where a map cannot describe a
// tensor, compiled beside it to PTX of its own: the bundle's second image
// for sm_90a, marked tessera.on_demand, which the runtime loads (and the
// driver JIT-compiles) only for a launch that needs the twin (here with
// TESSERA_CUDA_WARP_SPECIALIZATION=0: the block's threads issue the copies).
// By default a kernel alone on its SM whose loop feeds wgmma gets a copy
// warpgroup (the merged 128x256 gemm: 256 + 128 threads, setmaxnreg 40 /
// 232), waiting on release barriers the consumer warps arrive on; the
// consumers' barriers are a named barrier of 256 threads. The 128x128
// blocks (two per SM) get none. With TESSERA_PERSISTENT=1 the specialized
// kernel launches min(tiles, __compute_units) blocks that walk the tiles
// (ctaid.x, step nctaid.x) and so does its twin.
// (Blocks unpaired, TESSERA_CLUSTERS=0: clusters.mlir checks paired ones.)
// (Epilogues by thread stores, TESSERA_TMA_STORE=0: the TMA-store epilogue
// and its descriptor entry are checked in tma_store.mlir.)
// REQUIRES: tessera, plugin-cuda
// (TESSERA_WIDEN=0: the blocks as the program wrote them; merged blocks are
// tested in passes/widen_blocks.mlir and cuda/widen_blocks.mlir.)
// RUN: rm -rf %t && mkdir -p %t/plain %t/ws %t/sm80
// RUN: env TESSERA_TMA_STORE=0 TESSERA_WIDEN=0 TESSERA_CLUSTERS=0 TESSERA_CUDA_WARP_SPECIALIZATION=0 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/plain.tsb --dump-dir %t/plain
// RUN: FileCheck %s --input-file %t/plain/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=TWIN --input-file %t/plain/kernel.sm_90a.fallback.ptx
// RUN: %tessera info %t/plain.tsb | FileCheck %s --check-prefix=INFO
// RUN: env TESSERA_TMA_STORE=0 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/ws.tsb --dump-dir %t/ws
// RUN: FileCheck %s --check-prefix=WS --input-file %t/ws/kernel.sm_90a.ptx
// RUN: %tessera info %t/ws.tsb | FileCheck %s --check-prefix=WSINFO
// RUN: mkdir -p %t/narrow && env TESSERA_WIDEN=0 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/narrow.tsb
// RUN: %tessera info %t/narrow.tsb | FileCheck %s --check-prefix=NARROWINFO
// RUN: mkdir -p %t/p && env TESSERA_PERSISTENT=1 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/p.tsb --dump-dir %t/p
// RUN: FileCheck %s --check-prefix=PERSIST --input-file %t/p/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=PERSISTTWIN --input-file %t/p/kernel.sm_90a.fallback.ptx
// RUN: %tessera info %t/p.tsb | FileCheck %s --check-prefix=PERSISTINFO
// RUN: mkdir -p %t/i8 && env TESSERA_WIDEN=0 %tessera compile %examples/zoo/gemm_i8_i32.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/i8.tsb --dump-dir %t/i8
// RUN: FileCheck %s --check-prefix=I8 --input-file %t/i8/kernel.sm_90a.ptx
// RUN: mkdir -p %t/nine && env TESSERA_WIDEN=0 %tessera compile %S/Inputs/nine_tensors.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/nine.tsb --dump-dir %t/nine
// RUN: FileCheck %s --check-prefix=NINE --input-file %t/nine/kernel.sm_90a.ptx
// RUN: not test -e %t/nine/kernel.sm_90a.fallback.ptx
// A twin that becomes the kernel (more tensors than a launch passes maps)
// keeps both copy forms: the same PTX with TESSERA_COMPACT_TWINS=0.
// RUN: mkdir -p %t/nine0 && env TESSERA_WIDEN=0 TESSERA_COMPACT_TWINS=0 %tessera compile %S/Inputs/nine_tensors.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/nine0.tsb --dump-dir %t/nine0
// RUN: cmp %t/nine/kernel.sm_90a.ptx %t/nine0/kernel.sm_90a.ptx
// RUN: %tessera compile %S/Inputs/linear_nt.mlir --target nvptx64-nvidia-cuda:sm_80 --no-cache -o %t/sm80.tsb --dump-dir %t/sm80
// RUN: FileCheck %s --check-prefix=SM80 --input-file %t/sm80/kernel.sm_80.ptx

// "TMA2", 2 maps, twin of 128 threads; A: slot 0, rank 2, u16, 2 bytes,
// 64-byte swizzle, L2 128B, box {32, 128}; B: slot 3, box {64, 32}, 128 B.
// CHECK: tessera_tma_tessera_kernel_gemm[112] = {84, 77, 65, 50, 2, 0, 0, 0, 128, 0, 0, 0, {{[0-9]+, [0-9]+, [0-9]+, [0-9]+}}, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 32, 0, 0, 0, 128, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 64, 0, 0, 0, 32, 0, 0, 0,
// CHECK-NOT: __fallback
// CHECK: .visible .entry tessera_kernel_gemm(
// CHECK: .param .align 64 .b8 tessera_kernel_gemm_param_9[128],
// CHECK: .param .align 64 .b8 tessera_kernel_gemm_param_10[128]
// CHECK: .maxntid 128, 1, 1
// CHECK-NOT: cp.async.cg
// CHECK: mbarrier.init.shared::cta.b64
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[BAR:%r[0-9]+]]], {{%r[0-9]+}};
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], [[[BAR]]];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 P1,
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: cp.async.bulk.tensor.2d
// CHECK-NOT: cp.async.cg

// TWIN: .visible .entry tessera_kernel_gemm__fallback(
// TWIN-NOT: cp.async.bulk
// TWIN: cp.async.cg.shared.global
// TWIN-NOT: .entry

// INFO: bundle {{.*}}: 2 images
// INFO: image 0: nvptx64-nvidia-cuda:sm_90a, cubin image (cuda)
// INFO: kernel gemm (symbol tessera_kernel_gemm): 128 threads
// INFO: image 1: nvptx64-nvidia-cuda:sm_90a, ptx image (cuda)
// INFO: tessera.on_demand = fallback kernels
// INFO-NOT: kernel

// WS: .visible .entry tessera_kernel_gemm(
// WS: .maxntid 384, 1, 1
// WS: bar.sync 0;
// WS: setmaxnreg.dec.sync.aligned.u32 40;
// WS: cp.async.bulk.tensor.2d
// WS: setmaxnreg.inc.sync.aligned.u32 232;
// WS: mbarrier.try_wait.parity.shared::cta.b64
// WS: wgmma.wait_group.sync.aligned 1;
// WS: mbarrier.arrive.shared::cta.b64 _,
// (The drain after the loop waits for nothing: the copy warp copied only
// stages the consumers waited for; the threads store without a barrier.)
// WS: wgmma.wait_group.sync.aligned 0;
// WS-NOT: bar.sync
// WS: st.global
// WSINFO: kernel gemm (symbol tessera_kernel_gemm): 384 threads
// NARROWINFO: kernel gemm (symbol tessera_kernel_gemm): 128 threads

// PERSIST: .visible .entry tessera_kernel_gemm(
// PERSIST: .maxntid 384, 1, 1
// PERSIST: setmaxnreg.dec.sync.aligned.u32 40;
// PERSIST: mov.u32 {{%r[0-9]+}}, %ctaid.x;
// PERSIST: mov.u32 {{%r[0-9]+}}, %nctaid.x;
// The copy warp waits only for a stage's release before its copies: a
// program without early (prologue) copies gets no wait for their release,
// on which nothing would ever arrive (it hung with several tiles a block).
// PERSIST: mbarrier.try_wait
// PERSIST-NOT: mbarrier.try_wait
// PERSIST: cp.async.bulk.tensor.2d
// PERSIST: setmaxnreg.inc.sync.aligned.u32 232;
// PERSIST: mov.u32 {{%r[0-9]+}}, %ctaid.x;
// PERSIST: mbarrier.try_wait.parity.shared::cta.b64
// PERSIST: wgmma.wait_group.sync.aligned 0;
// PERSIST: mbarrier.arrive.shared::cta.b64 _,
// PERSISTTWIN: .visible .entry tessera_kernel_gemm__fallback(
// PERSISTTWIN: %nctaid.x
// PERSISTINFO: kernel gemm (symbol tessera_kernel_gemm): 384 threads, {{[0-9]+}} shared bytes, grid [min((ceildiv(ceildiv(N, 128), 2)) * (ceildiv(M, 128)), __compute_units), 1, 1]

// sm_80 has no TMA: cp.async, no descriptor.
// SM80-NOT: tessera_tma_
// SM80-NOT: cp.async.bulk
// SM80: cp.async.cg.shared.global

// A kernel of 256 threads whose fragments fit in half the registers and
// whose shared memory leaves room for two blocks asks ptxas for two.
// I8: .visible .entry tessera_kernel_gemm_i8_i32(
// I8: .maxntid 256, 1, 1
// I8-NEXT: .minnctapersm 2

// More tensors than tensor maps: the kernel copies with cp.async, one
// entry, no descriptor.
// NINE-NOT: tessera_tma_
// NINE: .visible .entry tessera_kernel_nine_maps(
// NINE-NOT: cp.async.bulk
// NINE: cp.async.ca.shared.global
// NINE-NOT: .entry
