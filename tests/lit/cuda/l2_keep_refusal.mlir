// A kept load (Distribute's planKeptLoads) that the backend refuses:
// TargetHooks::loadGlobalKept returns nothing for a piece the cuda backend
// has no cache-hinted load for (other than 4, 8 or 16 bytes), and
// distribution then loads it the ordinary way. Two passes over each row's
// f16 chunks, the first pass's copy repeated by the second: with 64
// columns on 32 threads the first pass loads 4-byte pieces with the L2
// evict_last policy (the plan marks such copies); with 32 columns a
// thread's piece is one 2-byte element, refused: plain ld.global.b16, and
// the PTX is byte-identical to TESSERA_L2_KEEP=0's.
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %S/Inputs/two_pass_f16_4byte.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/k4.tsb --dump-dir %t/k4
// RUN: FileCheck %s --check-prefix=KEPT --input-file %t/k4/kernel.sm_90a.ptx
// RUN: %tessera compile %S/Inputs/two_pass_f16_2byte.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/k2.tsb --dump-dir %t/k2
// RUN: FileCheck %s --check-prefix=REFUSED --input-file %t/k2/kernel.sm_90a.ptx
// RUN: env TESSERA_L2_KEEP=0 %tessera compile %S/Inputs/two_pass_f16_2byte.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/n2.tsb --dump-dir %t/n2
// RUN: cmp %t/k2/kernel.sm_90a.ptx %t/n2/kernel.sm_90a.ptx

// KEPT: createpolicy.fractional.L2::evict_last.b64
// KEPT: ld.global.L2::cache_hint.b32

// REFUSED-NOT: cache_hint
// REFUSED-NOT: createpolicy
// REFUSED: ld.global.b16
// REFUSED-NOT: cache_hint
// REFUSED: ret;
