// Variants of the examples reach the
// tensor cores through distribution and the cuda TargetHooks: on sm_80
// mma.sync with ldmatrix (a linear layer with B stored N x K reads B without
// .trans); on sm_90a wgmma from shared-memory descriptors (K-major for the
// linear layer's B, MN-major for the 128x256 gemm's B), fenced per gemm, and
// proxy fences before the barriers that publish shared memory to it (these
// sm_90a kernels copy by TMA; their twins without TMA, in the
// .fallback.ptx files, copy with cp.async and are what is checked).
// Attention with head dim 64 on 2 warps has no warpgroup: mma.sync there.
// Fragments never spill to local memory.
// REQUIRES: tessera, plugin-cuda
// (TESSERA_WIDEN=0: the blocks as the program wrote them; merged blocks are
// tested in passes/widen_blocks.mlir and cuda/widen_blocks.mlir.)
// RUN: rm -rf %t && mkdir -p %t/linear_nt.sm_80 %t/linear_nt.sm_90a %t/gemm_128x256.sm_80 %t/gemm_128x256.sm_90a %t/attn_d64.sm_80 %t/attn_d64.sm_90a
// RUN: %tessera compile %S/Inputs/linear_nt.mlir --target nvptx64-nvidia-cuda:sm_80 --no-cache -o %t/linear_nt.sm_80.tsb --dump-dir %t/linear_nt.sm_80
// RUN: env TESSERA_WIDEN=0 %tessera compile %S/Inputs/linear_nt.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/linear_nt.sm_90a.tsb --dump-dir %t/linear_nt.sm_90a
// RUN: %tessera compile %S/Inputs/gemm_128x256.mlir --target nvptx64-nvidia-cuda:sm_80 --no-cache -o %t/gemm_128x256.sm_80.tsb --dump-dir %t/gemm_128x256.sm_80
// RUN: env TESSERA_WIDEN=0 %tessera compile %S/Inputs/gemm_128x256.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/gemm_128x256.sm_90a.tsb --dump-dir %t/gemm_128x256.sm_90a
// RUN: %tessera compile %S/Inputs/attn_d64.mlir --target nvptx64-nvidia-cuda:sm_80 --no-cache -o %t/attn_d64.sm_80.tsb --dump-dir %t/attn_d64.sm_80
// RUN: env TESSERA_WIDEN=0 %tessera compile %S/Inputs/attn_d64.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/attn_d64.sm_90a.tsb --dump-dir %t/attn_d64.sm_90a
// RUN: FileCheck %s --check-prefixes=CHECK,MMA,NT --input-file %t/linear_nt.sm_80/kernel.sm_80.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,WG,WGNT --input-file %t/linear_nt.sm_90a/kernel.sm_90a.fallback.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,MMA,NN --input-file %t/gemm_128x256.sm_80/kernel.sm_80.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,WG,WGNN --input-file %t/gemm_128x256.sm_90a/kernel.sm_90a.fallback.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,MMA,NN --input-file %t/attn_d64.sm_80/kernel.sm_80.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,MMA,NN --input-file %t/attn_d64.sm_90a/kernel.sm_90a.fallback.ptx

// CHECK: .visible .entry tessera_kernel_
// CHECK-NOT: .local
// CHECK-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// CHECK-DAG: cp.async.wait_group
// MMA-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// NT-DAG: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// NN-DAG: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// MMA-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// WG-NOT: mma.sync
// WG-DAG: fence.proxy.async.shared::cta;
// WG-DAG: wgmma.fence.sync.aligned;
// WGNT-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 0;
// WGNN-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 1;
// WG-DAG: wgmma.commit_group.sync.aligned;
// WG-DAG: wgmma.wait_group.sync.aligned 0;
