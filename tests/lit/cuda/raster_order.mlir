// Grouped block order lowered by distribution: the gemm's block indices are
// remapped from the linear index (groups of 4 block rows, the last group
// with the rows left: a min against 4) before any tile offset uses them.
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/g.tsb --dump-dir %t/g
// RUN: FileCheck %s < %t/g/kernel.sm_90a.ptx
// CHECK-LABEL: .entry tessera_kernel_gemm
// CHECK: mov.u32 {{.*}}%ctaid.x
// CHECK: mov.u32 {{.*}}%ctaid.y
// CHECK: min.u64 {{.*}}, 4;
// CHECK: cp.async.bulk.tensor
