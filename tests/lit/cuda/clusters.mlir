// Paired blocks on sm_90a (tests/lit/passes/clusters.mlir): gemm.mlir's
// blocks launch in clusters of two along y (.reqnctapercluster 1, 2, 1);
// the B tile both blocks of a pair read (offsets follow x alone) is copied
// half by each block with .multicast::cluster (mask 3) through a map whose
// box is half the rows (16 of 32), the A tile by each block alone. A refill
// first arrives on the partner's release barrier (mapa + remote arrive) for
// the stage read an iteration before, then waits on its own for the stage
// it overwrites. Cluster barriers follow the barriers' initialization and
// end the kernel. The metadata's grid rounds y up to whole pairs; the twin
// without TMA (__fallback, in the on-demand PTX image) launches on the same
// grid without clusters.
// (Epilogues by thread stores, TESSERA_TMA_STORE=0: the TMA-store epilogue
// and its descriptor entry are checked in tma_store.mlir.)
// REQUIRES: tessera, plugin-cuda
// (TESSERA_WIDEN=0: the blocks as the program wrote them; merged blocks are
// tested in passes/widen_blocks.mlir and cuda/widen_blocks.mlir.)
// RUN: rm -rf %t && mkdir -p %t/g %t/n %t/w
// With a copy warp (gemm.mlir's merged 128x256 blocks, one per SM, asked to
// pair with tile.cluster = 2 in 6 stages): the copy warp multicasts B's
// halves and, before refilling a stage, waits for its own consumers'
// release (the empty barrier), tells the partner's copy warp (remote
// arrive on its peer barrier) and waits for the partner's word on its own.
// RUN: sed -e 's/threads = 128 {/threads = 128 attributes {tile.cluster = 2} {/' -e 's/stages = 3/stages = 6/' %examples/gemm.mlir > %t/w/gemm.mlir
// RUN: %tessera compile %t/w/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/w.tsb --dump-dir %t/w
// RUN: FileCheck %s --check-prefix=WARP --input-file %t/w/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=NOSPILL --input-file %t/w/ptxas.sm_90a.txt
// RUN: env TESSERA_TMA_STORE=0 TESSERA_WIDEN=0 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/g.tsb --dump-dir %t/g
// RUN: FileCheck %s --input-file %t/g/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=TWIN --input-file %t/g/kernel.sm_90a.fallback.ptx
// RUN: %tessera info %t/g.tsb | FileCheck %s --check-prefix=INFO
// RUN: env TESSERA_TMA_STORE=0 TESSERA_WIDEN=0 %tessera compile %examples/zoo/gemm_bf16_128x128_colbias_gelu.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/n.tsb --dump-dir %t/n
// RUN: FileCheck %s --check-prefix=NONE --input-file %t/n/kernel.sm_90a.ptx
// RUN: %tessera info %t/n.tsb | FileCheck %s --check-prefix=NONEINFO

// "TMA2", 2 maps; A: box {32, 128}; B: box {64, 16} (half of 32 rows).
// CHECK: tessera_tma_tessera_kernel_gemm[112] = {84, 77, 65, 50, 2, 0, 0, 0, {{([0-9]+, )+}}32, 0, 0, 0, 128, 0, 0, 0, {{([0-9]+, )+}}64, 0, 0, 0, 16, 0, 0, 0,
// CHECK-NOT: __fallback
// CHECK: .visible .entry tessera_kernel_gemm(
// CHECK: .reqnctapercluster 1, 2, 1
// CHECK: mbarrier.init.shared::cta.b64
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: bar.sync 0;
// CHECK: barrier.cluster.arrive.release.aligned;
// CHECK-NEXT: barrier.cluster.wait.acquire.aligned;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%r[0-9]+}}];
// CHECK: mov.b16 [[MASK:%rs[0-9]+]], 3;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%r[0-9]+}}], [[MASK]];
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: mapa.shared::cluster.u32 remote,
// CHECK-NEXT: mbarrier.arrive.shared::cluster.b64 _, [remote];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: multicast::cluster
// CHECK: barrier.cluster.arrive.release.aligned;
// CHECK-NEXT: barrier.cluster.wait.acquire.aligned;
// CHECK: ret;

// TWIN: .visible .entry tessera_kernel_gemm__fallback(
// TWIN-NOT: reqnctapercluster
// TWIN-NOT: multicast
// TWIN-NOT: .entry

// INFO: kernel gemm (symbol tessera_kernel_gemm): 128 threads, {{[0-9]+}} shared bytes, grid [ceildiv(N, 128), (ceildiv(ceildiv(M, 128), 2) * 2), 1]

// NONE-NOT: reqnctapercluster
// NONE-NOT: multicast
// NONE-NOT: mapa
// NONEINFO: grid [ceildiv(N, 128), ceildiv(M, 128), 1]

// WARP: .visible .entry tessera_kernel_gemm(
// WARP: .reqnctapercluster 1, 2, 1
// WARP: setmaxnreg.dec.sync.aligned.u32
// WARP: mbarrier.try_wait.parity.shared::cta.b64
// WARP: mapa.shared::cluster.u32 remote
// WARP-NEXT: mbarrier.arrive.shared::cluster.b64 _, [remote];
// WARP: mbarrier.try_wait.parity.shared::cta.b64
// WARP: mbarrier.arrive.expect_tx.shared::cta.b64
// WARP: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [
// WARP: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// WARP: setmaxnreg.inc.sync.aligned.u32
// WARP: wgmma.mma_async
// WARP: barrier.cluster.arrive.release.aligned;

// NOSPILL: 0 bytes spill stores, 0 bytes spill loads
