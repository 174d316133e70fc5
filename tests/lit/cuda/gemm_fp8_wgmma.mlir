// fp8 GEMM on sm_90a through distribution: both operands K-major (B stored
// N x K, read with transpose_b), wgmma m64n128k32 e4m3 (and e5m2) from
// 128-byte swizzled descriptors, no transpose immediates, TMA boxes of
// 128 x 128 bytes per stage (tensor maps of UINT8: descriptor words slot,
// rank 2, dtype 0, 1 byte, swizzle 3, box 128 x 128), f16 epilogue; the twin
// without TMA (its own PTX, the on-demand image) copies with cp.async. On sm_80 (no fp8 MMA) the gemm runs on
// FMAs, decoding fp8 with integer ops.
// (Epilogues by thread stores, TESSERA_TMA_STORE=0: the TMA-store epilogue
// and its descriptor entry are checked in tma_store.mlir.)
// REQUIRES: tessera, plugin-cuda
// (TESSERA_WIDEN=0: the blocks as the program wrote them; merged blocks are
// tested in passes/widen_blocks.mlir and cuda/widen_blocks.mlir.
// TESSERA_CUDA_WARP_SPECIALIZATION=0: the block's own threads issue the
// copies; the copy warp is tested in cuda/tma_pipeline.mlir.)
// RUN: rm -rf %t && mkdir -p %t/g %t/a
// RUN: env TESSERA_TMA_STORE=0 TESSERA_WIDEN=0 TESSERA_CUDA_WARP_SPECIALIZATION=0 %tessera compile %examples/gemm_fp8.mlir --target nvptx64-nvidia-cuda:sm_90a -o %t/g.tsb --dump-dir %t/g
// RUN: FileCheck %s --input-file %t/g/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=E5M2 --input-file %t/g/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=TWIN --input-file %t/g/kernel.sm_90a.fallback.ptx
// RUN: %tessera info %t/g.tsb | FileCheck %s --check-prefix=INFO
// RUN: %tessera compile %examples/gemm_fp8.mlir --target nvptx64-nvidia-cuda:sm_80 -o %t/a.tsb --dump-dir %t/a
// RUN: FileCheck %s --check-prefix=SM80 --input-file %t/a/kernel.sm_80.ptx

// CHECK: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// CHECK: .visible .global .align 4 .b8 tessera_tma_tessera_kernel_gemm_fp8[112] = {84, 77, 65, 50, 2, 0, 0, 0, 128, 0, 0, 0, {{[0-9]+, [0-9]+, [0-9]+, [0-9]+}}, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 128, 0, 0, 0, 128, 0, 0, 0
// CHECK-NOT: __fallback
// CHECK: .visible .entry tessera_kernel_gemm_fp8(
// CHECK: .param .align 64 .b8 tessera_kernel_gemm_fp8_param_9[128],
// CHECK-NEXT: .param .align 64 .b8 tessera_kernel_gemm_fp8_param_10[128]
// CHECK: .maxntid 128, 1, 1
// CHECK-DAG: mbarrier.arrive.expect_tx.shared::cta.b64 _, [{{%r[0-9]+}}], {{%r[0-9]+}};
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
// CHECK-DAG: wgmma.commit_group.sync.aligned;
// CHECK-DAG: wgmma.wait_group.sync.aligned 1;
// CHECK-DAG: cvt.rn.f16.f32

// TWIN: .visible .entry tessera_kernel_gemm_fp8__fallback(
// TWIN-NOT: mma.sync
// TWIN: cp.async.cg.shared.global

// E5M2: .visible .entry tessera_kernel_gemm_fp8_e5m2(
// E5M2: wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e5m2 {{.*}}, p, 1, 1;

// INFO: kernel gemm_fp8 {{.*}}: 128 threads, {{[0-9]+}} shared bytes

// SM80-NOT: wgmma
// SM80: .visible .entry tessera_kernel_gemm_fp8(
// SM80-NOT: mma.sync
// SM80: ld.shared{{(.v[24])?}}.b{{8|32}}
