// Grouped block order lowered by distribution: the gemm's block indices are
// remapped from the linear index (groups of 4 block rows, the last group
// with the rows left: a min against 4) before any tile offset uses them.
// Where blocks are paired into clusters (clusters.mlir) the pairs are the
// unit of the order: groups of 2 pair rows (a min against 2), the rank in
// the pair (ctaid.y % 2) added back.
// REQUIRES: tessera, plugin-cuda
// (TESSERA_WIDEN=0: the blocks as the program wrote them; merged blocks are
// tested in passes/widen_blocks.mlir and cuda/widen_blocks.mlir.)
// RUN: rm -rf %t && env TESSERA_WIDEN=0 TESSERA_CLUSTERS=0 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/g.tsb --dump-dir %t/g
// RUN: FileCheck %s < %t/g/kernel.sm_90a.ptx
// RUN: env TESSERA_WIDEN=0 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/p.tsb --dump-dir %t/p
// RUN: FileCheck %s --check-prefix=PAIRS < %t/p/kernel.sm_90a.ptx
// CHECK-LABEL: .entry tessera_kernel_gemm
// CHECK: mov.u32 {{.*}}%ctaid.x
// CHECK: mov.u32 {{.*}}%ctaid.y
// CHECK: min.u64 {{.*}}, 4;
// CHECK: cp.async.bulk.tensor
// PAIRS-LABEL: .entry tessera_kernel_gemm(
// PAIRS: mov.u32 {{.*}}%ctaid.x
// PAIRS: mov.u32 {{.*}}%ctaid.y
// PAIRS: min.u64 {{.*}}, 2;
// PAIRS: cp.async.bulk.tensor
