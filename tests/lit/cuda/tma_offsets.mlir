// A box of a TMA copy starts on a 16-byte boundary of the tensor's rows:
// the copy engine faults ("illegal instruction") on a box whose innermost
// coordinate is not one (measured on the H200: an f32 box at column 1).
// Distribution copies by TMA only where the program's arithmetic shows the
// copy's innermost offset to be a multiple of 16 bytes (PassCommon's
// provablyMultipleOf): the GEMM whose A tile starts 8 f16 columns past each
// K step (16 bytes) keeps its tensor maps; 4 columns past (8 bytes), its
// pipeline copies with cp.async instead, and the kernel has no maps. The
// same holds for the epilogue's TMA stores: a C tile stored 4 columns right
// of its block's keeps the threads' own stores (two maps, A's and B's).
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t/s8 %t/s4
// RUN: env TESSERA_TMA_STORE=0 TESSERA_WIDEN=0 %tessera compile %S/Inputs/gemm_shift8.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/s8.tsb --dump-dir %t/s8
// RUN: FileCheck %s --check-prefix=ALIGNED --input-file %t/s8/kernel.sm_90a.ptx
// RUN: env TESSERA_TMA_STORE=0 TESSERA_WIDEN=0 %tessera compile %S/Inputs/gemm_shift4.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/s4.tsb --dump-dir %t/s4
// RUN: FileCheck %s --check-prefix=UNALIGNED --input-file %t/s4/kernel.sm_90a.ptx
// RUN: mkdir -p %t/c4 && env TESSERA_WIDEN=0 %tessera compile %S/Inputs/gemm_cshift4.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/c4.tsb --dump-dir %t/c4
// RUN: FileCheck %s --check-prefix=STORE --input-file %t/c4/kernel.sm_90a.ptx
// RUN: mkdir -p %t/c0 && env TESSERA_WIDEN=0 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/c0.tsb --dump-dir %t/c0
// RUN: FileCheck %s --check-prefix=STORED --input-file %t/c0/kernel.sm_90a.ptx

// ALIGNED: tessera_tma_tessera_kernel_gemm_shift8[112] = {84, 77, 65, 50, 2,
// ALIGNED: cp.async.bulk.tensor.2d.shared::cluster.global.tile

// UNALIGNED-NOT: tessera_tma_
// UNALIGNED-NOT: cp.async.bulk.tensor
// UNALIGNED: cp.async.cg.shared.global
// UNALIGNED-NOT: cp.async.bulk.tensor

// STORE: tessera_tma_tessera_kernel_gemm_cshift4[112] = {84, 77, 65, 50, 2,
// STORE-NOT: cp.async.bulk.tensor.2d.global.shared
// STORED: tessera_tma_tessera_kernel_gemm[160] = {84, 77, 65, 50, 3,
// STORED: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
