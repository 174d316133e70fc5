// Turns of two consumer warpgroups (a ping-pong, TESSERA_PINGPONG=1): in a
// warp-specialized loop whose wgmma results are read in the same iteration,
// each group waits for its turn (bar.sync 2 / 3) before issuing a gemm and
// passes the turn (bar.arrive on the other group's barrier) after the
// commit, before waiting for its atoms; group 1 passes once before the
// loop and group 0 takes that pass after it. Off by default; never on a
// loop whose gemms only accumulate (gemm.mlir).
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TESSERA_PINGPONG=1 %tessera compile %examples/flash_attention_fwd_q128.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/on.tsb --dump-dir %t/on
// RUN: FileCheck %s --check-prefix=ON --input-file %t/on/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=BARRIERS --input-file %t/on/ptxas.sm_90a.txt
// RUN: %tessera compile %examples/flash_attention_fwd_q128.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/off.tsb --dump-dir %t/off
// RUN: FileCheck %s --check-prefix=OFF --input-file %t/off/kernel.sm_90a.ptx
// RUN: env TESSERA_PINGPONG=1 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/gemm.tsb --dump-dir %t/gemm
// RUN: FileCheck %s --check-prefix=OFF --input-file %t/gemm/kernel.sm_90a.ptx
// RUN: env TESSERA_PINGPONG=1 %tessera compile %examples/zoo/gemm_fp8_blockscale.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/bs.tsb --dump-dir %t/bs
// RUN: FileCheck %s --check-prefix=BS --input-file %t/bs/kernel.sm_90a.ptx

// Group 1's pass before the loop, then per gemm: wait, issue, commit, pass,
// wait for the atoms.
// ON: setmaxnreg.inc
// ON: bar.arrive 2, 256;
// ON: bar.sync {{[23]}}, 256;
// ON: wgmma.mma_async
// ON: wgmma.commit_group.sync.aligned;
// ON-NEXT: // end inline asm
// ON: bar.arrive {{[23]}}, 256;
// ON: wgmma.wait_group.sync.aligned 0;
// The barriers are named by constants: ptxas counts four, not all 16.
// BARRIERS: used 4 barriers
// OFF-NOT: bar.arrive
// BS: bar.sync {{[23]}}, 256;
// BS: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// BS: bar.arrive {{[23]}}, 256;
