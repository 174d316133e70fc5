// TESSERA_WAIT_FENCE=1 (opt-in): the waits distribution places late for
// asynchronous gemms (the loop overlap: wait_group 1 before the softmax
// reads S, wait_group 0 before O is rescaled, after the softmax's
// exponentials) get a CTA-scope fence just before them, which ptxas does
// not move the wait across; without it ptxas issues the wait for P V
// before the exponentials (docs/backends/cuda.md, "What ptxas makes of
// it"). The GEMM's in-loop wait (commit; wait_group 1) is not one of them.
// By default no fence.
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TESSERA_WAIT_FENCE=1 TESSERA_PERSISTENT=0 %tessera compile %examples/flash_attention_fwd_q128.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/q.tsb --dump-dir %t/q
// RUN: FileCheck %s --check-prefix=Q128 --input-file %t/q/kernel.sm_90a.ptx
// RUN: env TESSERA_PERSISTENT=0 %tessera compile %examples/flash_attention_fwd_q128.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/off.tsb --dump-dir %t/off
// RUN: FileCheck %s --check-prefix=OFF --input-file %t/off/kernel.sm_90a.ptx
// RUN: env TESSERA_WAIT_FENCE=1 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/g.tsb --dump-dir %t/g
// RUN: FileCheck %s --check-prefix=GEMM --input-file %t/g/kernel.sm_90a.ptx

// Q128: wgmma.commit_group.sync.aligned;
// Q128: fence.acq_rel.cta;
// Q128-NEXT: // end inline asm
// Q128-NEXT: // begin inline asm
// Q128-NEXT: wgmma.wait_group.sync.aligned 1;
// Q128: ex2.approx.ftz.f32
// Q128: fence.acq_rel.cta;
// Q128-NEXT: // end inline asm
// Q128-NEXT: // begin inline asm
// Q128-NEXT: wgmma.wait_group.sync.aligned 0;
// OFF-NOT: fence.acq_rel.cta
// GEMM-NOT: fence.acq_rel.cta
