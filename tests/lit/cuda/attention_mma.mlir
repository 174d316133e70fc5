// The flash-attention forward example and variants of it (a different
// causal mask, a different thread count) are distributed op by op and reach
// the tensor cores: on sm_80 cp.async double buffering of K/V with the next
// block's copies issued before the current block's compute, ldmatrix (V
// with .trans), mma.sync m16n8k16 for Q K^T and P V, the online softmax on
// the accumulator registers (quad shuffles, ex2 for the fastmath exps); on
// sm_90a TMA stages and wgmma (P V with P from registers).
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t/a80 %t/a90 %t/mask %t/thr
// RUN: %tessera compile %examples/flash_attention_fwd.mlir --target nvptx64-nvidia-cuda:sm_80 -o %t/a80.tsb --dump-dir %t/a80
// RUN: FileCheck %s --input-file %t/a80/kernel.sm_80.ptx
// RUN: %tessera compile %examples/flash_attention_fwd.mlir --target nvptx64-nvidia-cuda:sm_90a -o %t/a90.tsb --dump-dir %t/a90
// RUN: FileCheck %s --check-prefix=SM90 --input-file %t/a90/kernel.sm_90a.ptx
// RUN: sed 's/arith.cmpi ugt, %%kpos, %%qpos/arith.cmpi uge, %%kpos, %%qpos/' %examples/flash_attention_fwd.mlir > %t/mask.mlir
// RUN: %tessera compile %t/mask.mlir --target nvptx64-nvidia-cuda:sm_80 -o %t/mask.tsb --dump-dir %t/mask
// RUN: FileCheck %s --input-file %t/mask/kernel.sm_80.ptx
// RUN: sed 's/threads = 128/threads = 256/' %examples/flash_attention_fwd.mlir > %t/thr.mlir
// RUN: %tessera compile %t/thr.mlir --target nvptx64-nvidia-cuda:sm_80 -o %t/thr.tsb --dump-dir %t/thr
// RUN: FileCheck %s --input-file %t/thr/kernel.sm_80.ptx

// CHECK: .visible .entry tessera_kernel_flash_attention_fwd(
// CHECK-NOT: .local
// CHECK-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// CHECK-DAG: cp.async.wait_group 0;
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: ex2.approx.ftz.f32

// SM90: .visible .entry tessera_kernel_flash_attention_fwd(
// SM90-NOT: .local
// SM90-DAG: mbarrier.try_wait.parity.shared::cta.b64
// SM90-DAG: cp.async.bulk.tensor.4d
// SM90-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// SM90-DAG: ex2.approx.ftz.f32
// SM90-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, {{{%r[0-9]+,%r[0-9]+,%r[0-9]+,%r[0-9]+}}}, {{%rd[0-9]+}}, p, 1, 1, 1;
