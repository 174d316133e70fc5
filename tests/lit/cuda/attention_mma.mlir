// The canonical flash-attention forward kernel takes the tensor-core path
// (AttentionFastPath.cpp): cp.async double buffering of K/V, ldmatrix (V with
// .trans), mma.sync m16n8k16 for Q K^T and P V, the online softmax on the
// accumulator registers (quad shuffles, ex2), P packed to f16x2 in
// registers, f16x2 stores of O. A kernel that differs from the canonical
// shape (here: a different causal mask, a different thread count), and the
// canonical one with the fast path turned off, is distributed op by op and
// reaches the tensor cores all the same: cp.async, ldmatrix, mma.sync.
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t/a80 %t/a90 %t/mask %t/thr %t/off
// RUN: %tessera compile %examples/flash_attention_fwd.mlir --target nvptx64-nvidia-cuda:sm_80 -o %t/a80.tsb --dump-dir %t/a80
// RUN: FileCheck %s --input-file %t/a80/kernel.sm_80.ptx
// RUN: %tessera compile %examples/flash_attention_fwd.mlir --target nvptx64-nvidia-cuda:sm_90a -o %t/a90.tsb --dump-dir %t/a90
// RUN: FileCheck %s --input-file %t/a90/kernel.sm_90a.ptx
// RUN: sed 's/arith.cmpi ugt, %%kpos, %%qpos/arith.cmpi uge, %%kpos, %%qpos/' %examples/flash_attention_fwd.mlir > %t/mask.mlir
// RUN: %tessera compile %t/mask.mlir --target nvptx64-nvidia-cuda:sm_80 -o %t/mask.tsb --dump-dir %t/mask
// RUN: FileCheck %s --check-prefix=DIST --input-file %t/mask/kernel.sm_80.ptx
// RUN: sed 's/threads = 128/threads = 256/' %examples/flash_attention_fwd.mlir > %t/thr.mlir
// RUN: %tessera compile %t/thr.mlir --target nvptx64-nvidia-cuda:sm_80 -o %t/thr.tsb --dump-dir %t/thr
// RUN: FileCheck %s --check-prefix=DIST --input-file %t/thr/kernel.sm_80.ptx
// RUN: env TESSERA_CUDA_NO_ATTENTION_FAST_PATH=1 %tessera compile %examples/flash_attention_fwd.mlir --target nvptx64-nvidia-cuda:sm_80 -o %t/off.tsb --dump-dir %t/off
// RUN: FileCheck %s --check-prefix=DIST --input-file %t/off/kernel.sm_80.ptx

// CHECK: .visible .entry tessera_kernel_flash_attention_fwd(
// CHECK: .param .u32 {{.*}}_param_20,
// CHECK-NEXT: .param .f32 {{.*}}_param_21
// CHECK-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// CHECK-DAG: cp.async.wait_group 1;
// CHECK-DAG: cp.async.wait_group 0;
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: ex2.approx.ftz.f32
// CHECK-DAG: cvt.rn.f16x2.f32
// CHECK-DAG: st.global.b32

// DIST: .visible .entry tessera_kernel_flash_attention_fwd(
// DIST-NOT: .local
// DIST-DAG: cp.async.cg.shared.global
// DIST-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// DIST-DAG: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// DIST-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// DIST-DAG: shfl.sync.bfly.b32
// DIST-DAG: ex2.approx
