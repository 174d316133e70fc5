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
// A back-to-back MLP (a random program, tests/fuzz/gen_tile_programs.py b2b
// seed 16): its second gemm accumulates across the loop (its wait deferred
// to the next iteration, wait_group 1), and the turn is passed right after
// that commit, inside the loop, not after the loop's drain.
// RUN: env TESSERA_PINGPONG=1 TESSERA_MMA_OVERLAP=0 %tessera compile %S/Inputs/b2b_turns.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/b2b.tsb --dump-dir %t/b2b
// RUN: FileCheck %s --check-prefix=B2B --input-file %t/b2b/kernel.sm_90a.ptx
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
// B2B: wgmma.wait_group.sync.aligned 1;
// B2B-NOT: wgmma.wait_group
// B2B: bar.arrive {{[23]}}, 256;
// B2B: wgmma.wait_group.sync.aligned 0;
