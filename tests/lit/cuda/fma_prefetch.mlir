// The vector-FMA GEMM reads a K group's operands during the group before
// (Distribute's lowerGemm): each shared read of the next group is placed
// right after the multiply-add where the value it replaces dies, and the
// groups of a stage are unrolled. The zoo's f32 colscale GEMM (A [256, 32]
// K-inner, B [32, 128] N-inner; 128 accumulators a thread, 4-deep groups):
// the first group's 24 vector reads (8 rows of A, 4 K steps x 4 columns
// vectors of B) come before any multiply-add; then, within each group, the
// next group's B vectors follow their K step's last multiply-adds and its A
// rows follow each row's last step, so the stage is 4096 multiply-adds and
// 192 vector reads in one block, and nothing waits for a read at a group's
// top. TESSERA_FMA_PREFETCH=0: the rolled loop of 512 multiply-adds that
// reads its group first. linear_f32_nt (both operands K-inner, every value
// alive to the group's end) keeps the rolled loop. H200 (docs/benchmarks.md):
// colscale 4096 3.157 -> 2.906 ms.
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %examples/zoo/gemm_f32_256x128_colscale.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/p.tsb --dump-dir %t/p
// RUN: FileCheck %s --check-prefix=PRE --input-file %t/p/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=NOSPILL --input-file %t/p/ptxas.sm_90a.txt
// RUN: env TESSERA_FMA_PREFETCH=0 %tessera compile %examples/zoo/gemm_f32_256x128_colscale.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/o.tsb --dump-dir %t/o
// RUN: FileCheck %s --check-prefix=OFF --input-file %t/o/kernel.sm_90a.ptx
// RUN: %tessera compile %examples/zoo/linear_f32_nt.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/l.tsb --dump-dir %t/l
// RUN: FileCheck %s --check-prefix=OFF --input-file %t/l/kernel.sm_90a.ptx

// PRE-COUNT-24: ld.shared.v4.b32
// PRE-NOT: fma.rn.f32
// PRE: fma.rn.f32
// PRE-COUNT-115: fma.rn.f32
// PRE-NOT: fma.rn.f32
// PRE: ld.shared.v4.b32
// PRE-COUNT-4: fma.rn.f32
// PRE-NEXT: ld.shared.v4.b32
// PRE-COUNT-3976: fma.rn.f32
// PRE-NOT: fma.rn.f32
// PRE: ret;

// NOSPILL: 0 bytes spill stores, 0 bytes spill loads

// OFF-COUNT-512: fma.rn.f32
// OFF-NOT: fma.rn.f32
// OFF: ret;
