// The copy warp's loop (distribution marks it tile.no_unroll) reaches LLVM
// with unroll.disable: LLVM -O3 used to copy it six times in gemm.mlir (35
// TMA loads in the PTX instead of 5, 40% more SASS for ptxas, no gain: each
// iteration waits for a stage the consumers release). Its one body issues
// A's tile and B's four 64-column boxes (a 256-column block after
// tessera-widen-blocks).
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/g.tsb --dump-dir %t/g
// RUN: FileCheck %s --check-prefix=LL < %t/g/kernel.sm_90a.ll
// RUN: FileCheck %s --check-prefix=PTX < %t/g/kernel.sm_90a.ptx
// LL: br {{.*}}, !llvm.loop ![[LOOP:[0-9]+]]
// LL: ![[LOOP]] = distinct !{![[LOOP]], ![[NOUNROLL:[0-9]+]]}
// LL: ![[NOUNROLL]] = !{!"llvm.loop.unroll.disable"}
// PTX-COUNT-5: cp.async.bulk.tensor.2d.shared::cluster.global
// PTX-NOT: cp.async.bulk.tensor.2d.shared::cluster.global
