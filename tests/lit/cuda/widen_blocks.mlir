// Merged blocks on the H100 (tessera-widen-blocks, sm_90a widen_tile_n =
// 256): gemm.mlir's 128x128 blocks of one warpgroup become 128x256 blocks of
// two, each warpgroup issuing m64n256k16 wgmma (B read from shared memory
// once per K step instead of twice); one block fits per SM, so the blocks are
// not paired into clusters, and a copy warpgroup issues the TMA copies
// (warp specialization). The bundle records the launch: 384 threads and half
// the grid's x size. With TESSERA_WIDEN=0 the program's blocks stay (two fit
// per SM: no copy warp).
// RUN: rm -rf %t && mkdir -p %t/w %t/n
// RUN: %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/w.tsb --dump-dir %t/w
// RUN: FileCheck %s --input-file %t/w/kernel.sm_90a.ptx
// RUN: %tessera info %t/w.tsb | FileCheck %s --check-prefix=INFO
// RUN: env TESSERA_WIDEN=0 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/n.tsb --dump-dir %t/n
// RUN: FileCheck %s --check-prefix=NARROW --input-file %t/n/kernel.sm_90a.ptx
// RUN: %tessera info %t/n.tsb | FileCheck %s --check-prefix=NARROWINFO

// CHECK-NOT: reqnctapercluster
// CHECK: .entry tessera_kernel_gemm(
// CHECK: .maxntid 384, 1, 1
// CHECK-NOT: .reqnctapercluster
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// INFO: kernel gemm (symbol tessera_kernel_gemm): 384 threads, {{[0-9]+}} shared bytes, grid [ceildiv(ceildiv(N, 128), 2), ceildiv(M, 128), 1]
// NARROW: .entry tessera_kernel_gemm(
// NARROW: .maxntid 128, 1, 1
// NARROW: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// NARROWINFO: kernel gemm (symbol tessera_kernel_gemm): 128 threads, {{[0-9]+}} shared bytes, grid [ceildiv(N, 128), (ceildiv(ceildiv(M, 128), 2) * 2), 1]
