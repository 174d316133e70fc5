// A kernel that cannot launch on the chip is a compile error naming the
// tiles that need the space: registers (distribution counts each fragment's
// registers per thread against the target's per-thread limit) and shared
// memory (tessera-plan-shared, tests/lit/passes/errors_shared.mlir). The
// 256x256 f32 accumulator over 128 threads (512 words) gets 256 threads
// first (tessera-split-threads: max_fragment_words_per_thread = 128), which
// still leaves 256 words per thread.
// REQUIRES: tessera, plugin-cuda
// RUN: not %tessera compile %S/Inputs/too_many_registers.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t.tsb 2>&1 | FileCheck %s
// RUN: not %tessera compile %S/Inputs/too_many_registers.mlir --target nvptx64-nvidia-cuda:sm_80 --no-cache -o %t.tsb 2>&1 | FileCheck %s

// CHECK: too_many_registers.mlir:14:3: error: the kernel's fragments need 256 registers per thread, more than the 255 of target 'sm_{{80|90a}}'
// CHECK-NEXT: too_many_registers.mlir:17:11: note: 256x256xf32 fragment: 256 registers
// CHECK: too_many_registers.mlir:14:3: note: tessera-split-threads: threads 128 -> 256: the largest fragment (256x256xf32 fragment) takes 256 words per thread instead of 512 (more than the 128 of target 'sm_{{80|90a}}': more than 256 threads)
