// TESSERA_MMA_OVERLAP=explain: the default rule (a loop's last gemm beside
// the next iteration's work where the block is alone on its SM), with a
// remark at each loop of two or more gemms saying what was decided and why
// (docs/passes.md). GEMM loops (one gemm) get none.
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TESSERA_MMA_OVERLAP=explain TESSERA_PERSISTENT=0 %tessera compile %examples/flash_attention_fwd_q128.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/q128.tsb 2>&1 | FileCheck %s --check-prefix=Q128
// RUN: env TESSERA_MMA_OVERLAP=explain %tessera compile %examples/flash_attention_fwd.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/q64.tsb 2>&1 | FileCheck %s --check-prefix=Q64
// RUN: env TESSERA_MMA_OVERLAP=explain %tessera compile %examples/zoo/attn_fwd_d256_q128_f16.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/d256.tsb 2>&1 | FileCheck %s --check-prefix=D256
// RUN: env TESSERA_MMA_OVERLAP=explain %tessera compile %examples/flash_attention_fwd_q128.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/p.tsb 2>&1 | FileCheck %s --check-prefix=PERSIST
// RUN: env TESSERA_MMA_OVERLAP=explain %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/gemm.tsb 2>&1 | FileCheck %s --check-prefix=GEMM --allow-empty
// RUN: env TESSERA_MMA_OVERLAP=explain %tessera compile %examples/flash_attention_fwd_q128.mlir --target nvptx64-nvidia-cuda:sm_80 --no-cache -o %t/sm80.tsb 2>&1 | FileCheck %s --check-prefix=SM80

// Q128: flash_attention_fwd_q128.mlir:56:5: remark: the last gemm runs beside the next iteration's work (three stages)
// Q64: flash_attention_fwd.mlir:60:5: remark: the last gemm stays in its iteration: more than one block fits per multiprocessor
// D256: attn_fwd_d256_q128_f16.mlir:51:5: remark: the last gemm stays in its iteration: three stages do not fit
// PERSIST: remark: the last gemm stays in its iteration: the kernel walks its tiles on persistent blocks (tile.persistent), which renumber its stages
// GEMM-NOT: remark
// SM80: remark: the last gemm stays in its iteration: its first or last gemm is not on an asynchronous matrix atom
