// Variants of the examples that no whole-kernel fast path matches reach the
// tensor cores through distribution and the cuda TargetHooks, on sm_80 and
// sm_90a: a linear layer (B stored N x K, ldmatrix without .trans), 128x256
// tiles with 256 threads, attention with head dim 64 on 2 warps. Fragments
// never spill to local memory.
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t/linear_nt.sm_80 %t/linear_nt.sm_90a %t/gemm_128x256.sm_80 %t/gemm_128x256.sm_90a %t/attn_d64.sm_80 %t/attn_d64.sm_90a
// RUN: %tessera compile %S/Inputs/linear_nt.mlir --target nvptx64-nvidia-cuda:sm_80 --no-cache -o %t/linear_nt.sm_80.tsb --dump-dir %t/linear_nt.sm_80
// RUN: %tessera compile %S/Inputs/linear_nt.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/linear_nt.sm_90a.tsb --dump-dir %t/linear_nt.sm_90a
// RUN: %tessera compile %S/Inputs/gemm_128x256.mlir --target nvptx64-nvidia-cuda:sm_80 --no-cache -o %t/gemm_128x256.sm_80.tsb --dump-dir %t/gemm_128x256.sm_80
// RUN: %tessera compile %S/Inputs/gemm_128x256.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/gemm_128x256.sm_90a.tsb --dump-dir %t/gemm_128x256.sm_90a
// RUN: %tessera compile %S/Inputs/attn_d64.mlir --target nvptx64-nvidia-cuda:sm_80 --no-cache -o %t/attn_d64.sm_80.tsb --dump-dir %t/attn_d64.sm_80
// RUN: %tessera compile %S/Inputs/attn_d64.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/attn_d64.sm_90a.tsb --dump-dir %t/attn_d64.sm_90a
// RUN: FileCheck %s --check-prefixes=CHECK,NT --input-file %t/linear_nt.sm_80/kernel.sm_80.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,NT --input-file %t/linear_nt.sm_90a/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,NN --input-file %t/gemm_128x256.sm_80/kernel.sm_80.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,NN --input-file %t/gemm_128x256.sm_90a/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,NN --input-file %t/attn_d64.sm_80/kernel.sm_80.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,NN --input-file %t/attn_d64.sm_90a/kernel.sm_90a.ptx

// CHECK: .visible .entry tessera_kernel_
// CHECK-NOT: .local
// CHECK-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// CHECK-DAG: cp.async.wait_group
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// NT-DAG: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// NN-DAG: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
