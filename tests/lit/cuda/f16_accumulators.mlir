// A GEMM whose accumulator tile is f16 gets tensor cores on sm_90a: the
// target lists mma.sync m16n8k16 with f16 accumulators (wgmma's are f32 in
// this backend), so layout inference no longer falls back to vector FMA
// (before: 2048 fma.rn.f32 and no MMA in the PTX). Its copies still go by
// TMA on stage barriers; the operands are read with ldmatrix.
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %tessera_src/bench/gpu/unseen/gemm_f16acc_residual.mlir --no-cache --target nvptx64-nvidia-cuda:sm_90a --dump-dir %t -o %t/g.tsb
// RUN: FileCheck %s --input-file %t/kernel.sm_90a.ptx
// RUN: %tessera-opt --tessera-infer-layouts=target=sm_90a %tessera_src/bench/gpu/unseen/gemm_f16acc_residual.mlir | FileCheck %s --check-prefix=ATOM
// CHECK: cp.async.bulk.tensor
// CHECK: ldmatrix.sync.aligned
// CHECK: mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16
// CHECK-NOT: fma.rn.f32
// ATOM: tile.gemm {{.*}}atom = "mma_m16n8k16_f16_f16"
