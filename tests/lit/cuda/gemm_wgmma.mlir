// On sm_90a the example GEMM (128x128 tiles, K steps of 32, 128 threads)
// goes through distribution like every kernel: TMA copies of the pipelined
// loop's stages on mbarriers (A 64-byte swizzled, B in two 128-byte swizzled
// column blocks), wgmma m64n128k16 from shared-memory descriptors (B
// N-major: imm-trans-b 1) kept in flight one iteration (wait_group 1), two
// tensor maps as 128-byte parameters after the slots; plus the descriptor
// global the runtime reads and the twin without TMA, compiled to PTX of its
// own (the bundle's on-demand image). The ReLU epilogue is
// applied per accumulator register.
// (Epilogues by thread stores, TESSERA_TMA_STORE=0: the TMA-store epilogue
// and its descriptor entry are checked in tma_store.mlir.)
// REQUIRES: tessera, plugin-cuda
// (TESSERA_WIDEN=0: the blocks as the program wrote them; merged blocks are
// tested in passes/widen_blocks.mlir and cuda/widen_blocks.mlir.)
// RUN: rm -rf %t && mkdir -p %t/g %t/r %t/b
// RUN: env TESSERA_TMA_STORE=0 TESSERA_WIDEN=0 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a -o %t/g.tsb --dump-dir %t/g
// RUN: FileCheck %s --input-file %t/g/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=TWIN --input-file %t/g/kernel.sm_90a.fallback.ptx
// RUN: env TESSERA_TMA_STORE=0 TESSERA_WIDEN=0 %tessera compile %examples/gemm_relu.mlir --target nvptx64-nvidia-cuda:sm_90a -o %t/r.tsb --dump-dir %t/r
// RUN: FileCheck %s --check-prefix=RELU --input-file %t/r/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=RELUTWIN --input-file %t/r/kernel.sm_90a.fallback.ptx
// RUN: %tessera info %t/g.tsb | FileCheck %s --check-prefix=INFO

// CHECK: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// CHECK: .visible .global .align 4 .b8 tessera_tma_tessera_kernel_gemm[112]
// CHECK-NOT: __fallback
// CHECK: .visible .entry tessera_kernel_gemm(
// CHECK: .param .align 64 .b8 tessera_kernel_gemm_param_9[128],
// CHECK-NEXT: .param .align 64 .b8 tessera_kernel_gemm_param_10[128]
// CHECK: .maxntid 128, 1, 1
// CHECK: .minnctapersm 1
// CHECK-DAG: mbarrier.init.shared::cta.b64
// CHECK-DAG: fence.mbarrier_init.release.cluster;
// CHECK-DAG: mbarrier.arrive.expect_tx.shared::cta.b64 _, [{{%r[0-9]+}}], {{%r[0-9]+}};
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: mbarrier.try_wait.parity.shared::cta.b64
// CHECK-DAG: wgmma.fence.sync.aligned;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 1;
// CHECK-DAG: wgmma.commit_group.sync.aligned;
// CHECK-DAG: wgmma.wait_group.sync.aligned 1;
// CHECK-DAG: wgmma.wait_group.sync.aligned 0;
// CHECK-DAG: cvt.rn.f16.f32

// TWIN: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// TWIN-NOT: tessera_tma_
// TWIN: .visible .entry tessera_kernel_gemm__fallback(
// TWIN: cp.async.cg.shared.global
// TWIN: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16

// RELUTWIN: .visible .entry tessera_kernel_gemm_relu__fallback(
// RELUTWIN: max.NaN.f32 {{.*}}, 0f00000000;
// RELU: .visible .entry tessera_kernel_gemm_relu(
// RELU: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// RELU: max.NaN.f32 {{.*}}, 0f00000000;

// INFO: kernel gemm {{.*}}: 128 threads, {{[0-9]+}} shared bytes
