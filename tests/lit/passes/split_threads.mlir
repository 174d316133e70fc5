// tessera-split-threads (SplitThreads.cpp): on nvidia-vk with
// max_fragment_words_per_thread = 64 (set here in a copy of the plugin
// folder; the shipped file sets 128, docs/backends/spirv.md) a kernel whose largest fragment takes
// more than 64 words per thread with the layouts inference gives it gets
// twice the threads for the same tile, while that helps, up to 256: the
// grid, tiles and ops stay as written, the kernel records the threads the
// program wrote (tile.threads_from). Kernels whose fragments fit, that are
// at 256 threads, whose shared tiles and scratch would pass the block's
// shared memory, that could tell the thread count (a local tile, a layout
// written by the program, an op the passes do not interpret) or that say
// tile.split_threads = 1 keep their threads; targets without the key (the
// host) never split. The shipped GPU targets (sm_90a, sm_80, nvidia-vk,
// amd-vk, lavapipe) set 128: none of this file's kernels passes it, but a
// 128x256 f32 accumulator over 128 threads (256 words, more than the 255
// registers: an error before) gets 256 threads.
// RUN: rm -rf %t && mkdir -p %t && sed -e 's/128x128xf32/128x256xf32/g; s/32x128xf16/32x256xf16/g' %examples/gemm.mlir > %t/wide.mlir
// RUN: %tessera-opt --tessera-split-threads=target=sm_90a %t/wide.mlir | FileCheck %s --check-prefix=WIDE
// RUN: %tessera-opt --tessera-split-threads=target=sm_80 %t/wide.mlir | FileCheck %s --check-prefix=WIDE
// RUN: %tessera-opt --tessera-split-threads=target=lavapipe %t/wide.mlir | FileCheck %s --check-prefix=WIDE
// RUN: %tessera-opt --tessera-split-threads=target=host %t/wide.mlir | FileCheck %s --check-prefix=NONE
// RUN: %tessera-opt --tessera-split-threads=target=sm_90a %examples/gemm.mlir | FileCheck %s --check-prefix=NONE
// WIDE: threads = 256 attributes {tile.threads_from = 128 : i64}
// WIDE: tile.alloc : <128x256xf32, fragment>
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../spirv/Inputs/split_threads_plugins.py %t/plugins nvidia-vk.toml
// RUN: env TESSERA_PLUGIN_PATH=%t/plugins %tessera-opt --allow-unregistered-dialect --tessera-split-threads=target=nvidia-vk %s --split-input-file | FileCheck %s
// RUN: %tessera-opt --allow-unregistered-dialect --tessera-split-threads=target=sm_90a %s --split-input-file | FileCheck %s --check-prefix=NONE
// RUN: %tessera-opt --allow-unregistered-dialect --tessera-split-threads=target=lavapipe %s --split-input-file | FileCheck %s --check-prefix=NONE
// RUN: env TESSERA_PLUGIN_PATH=%t/plugins TESSERA_SPLIT_THREADS=0 %tessera-opt --allow-unregistered-dialect --tessera-split-threads=target=nvidia-vk %s --split-input-file | FileCheck %s --check-prefix=NONE
// RUN: env TESSERA_PLUGIN_PATH=%t/plugins TESSERA_SPLIT_THREADS=explain %tessera-opt --allow-unregistered-dialect --tessera-split-threads=target=nvidia-vk %s --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=WHY
// RUN: not env TESSERA_PLUGIN_PATH=%t/plugins %tessera-opt --tessera-split-threads=target=nvidia-vk %S/Inputs/split_bad_request.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// In the pipeline: right after tessera-widen-blocks; layout inference then
// spreads gemm.mlir's accumulator over 4 x 2 subgroups.
// RUN: env TESSERA_PLUGIN_PATH=%t/plugins %tessera-opt --tessera-pipeline=nvidia-vk --mlir-print-ir-after-all %examples/gemm.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE
// TESSERA_SPLIT_THREADS=<W> applies the rule on a target without the key.
// RUN: env TESSERA_SPLIT_THREADS=64 %tessera-opt --tessera-split-threads=target=nvidia-vk %examples/gemm.mlir | FileCheck %s --check-prefix=ENVW
// RUN: %tessera-opt --tessera-split-threads=target=nvidia-vk %examples/gemm.mlir | FileCheck %s --check-prefix=NONE
// ENVW: threads = 256 attributes {tile.threads_from = 128 : i64}
// NONE-NOT: tile.threads_from
// WHY: remark: threads 128 -> 256: the largest fragment (128x128xf32 fragment) takes 64 words per thread instead of 128
// WHY: remark: threads 128 -> 256: the largest fragment (128x128xf32 fragment) takes 64 words per thread instead of 128
// WHY: remark: threads kept: the largest fragment (64x64xf32 fragment) takes 32 words per thread, at most the 64 of target 'nvidia-vk'
// WHY: remark: threads kept: the largest fragment (128x256xf32 fragment) takes 128 words per thread, more than the 64 of target 'nvidia-vk', but more than 256 threads
// WHY: remark: threads kept: tile.split_threads = 1
// WHY: remark: threads kept: the program could tell how many run it (a local tile (private to each thread))
// WHY: remark: threads kept: the program could tell how many run it (a fragment with a layout written by the program)
// WHY: remark: threads kept: the program could tell how many run it (an op the passes do not interpret (gpu.thread_id))
// WHY: remark: threads kept: the largest fragment (128x128xf32 fragment) takes 128 words per thread, more than the 64 of target 'nvidia-vk', but with 256 threads the shared tiles and scratch would take 57344 bytes, more than the 49152 of a block
// BAD: error: 'tile.kernel' op tile.split_threads must be at least 1, got 0
// PIPE: IR Dump After TesseraWidenBlocks (tessera-widen-blocks)
// PIPE: threads = 128
// PIPE: IR Dump After TesseraSplitThreads (tessera-split-threads)
// PIPE: threads = 256 attributes {tile.threads_from = 128 : i64}
// PIPE: IR Dump After TesseraInferLayouts (tessera-infer-layouts)
// PIPE: atom = "coopmat_16x16x16_f16_f32", warps = array<i64: 4, 2>

// gemm.mlir's block: a 128x128 f32 accumulator, 128 words per thread over
// 128 threads (4 subgroups of 64x64), 64 over 256 (8 of 32x64).
// CHECK-LABEL: tile.func @gemm
// CHECK: tile.kernel blocks(%{{.*}}, %{{.*}}) in (%c4, %c4) threads = 256 attributes {tile.threads_from = 128 : i64}
// CHECK: tile.alloc : <128x32xf16, shared>
// CHECK: tile.alloc : <32x128xf16, shared>
// CHECK: tile.alloc : <128x128xf32, fragment>
tile.func @gemm(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
               %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 128 {
    %As = tile.alloc : !tile.tile<128x32xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x128xf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.copy %A[%row, %c0], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x32xf16, shared>
    tile.copy %B[%c0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<32x128xf16, shared>
    tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xf16, shared>, !tile.tile<32x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// -----

// Any gemm, not only cooperative matrices: bf16 takes vector FMA on
// nvidia-vk, whose layout spreads over the new threads as well.
// CHECK-LABEL: tile.func @fma
// CHECK: threads = 256 attributes {tile.threads_from = 128 : i64}
tile.func @fma(%A: !tile.tensor<[M, K], bf16>, %B: !tile.tensor<[K, N], bf16>,
              %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 128 {
    %As = tile.alloc : !tile.tile<128x32xbf16, shared>
    %Bs = tile.alloc : !tile.tile<32x128xbf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.copy %A[%row, %c0], %As : !tile.tensor<[M, K], bf16>, !tile.tile<128x32xbf16, shared>
    tile.copy %B[%c0, %col], %Bs : !tile.tensor<[K, N], bf16>, !tile.tile<32x128xbf16, shared>
    tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xbf16, shared>, !tile.tile<32x128xbf16, shared>, !tile.tile<128x128xf32, fragment>
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// -----

// 32 words per thread: kept.
// CHECK-LABEL: tile.func @small
// CHECK: threads = 128 {
tile.func @small(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
                %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 128 {
    %As = tile.alloc : !tile.tile<64x32xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x64xf16, shared>
    %Cf = tile.alloc : !tile.tile<64x64xf32, fragment>
    tile.clear %Cf : !tile.tile<64x64xf32, fragment>
    %row = arith.muli %by, %c64 : index
    %col = arith.muli %bx, %c64 : index
    tile.copy %A[%row, %c0], %As : !tile.tensor<[M, K], f16>, !tile.tile<64x32xf16, shared>
    tile.copy %B[%c0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<32x64xf16, shared>
    tile.gemm %As, %Bs, %Cf : !tile.tile<64x32xf16, shared>, !tile.tile<32x64xf16, shared>, !tile.tile<64x64xf32, fragment>
    tile.copy %Cf, %C[%row, %col] : !tile.tile<64x64xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// -----

// 128 words over 256 threads: no more than 256.
// CHECK-LABEL: tile.func @wide
// CHECK: threads = 256 attributes {tile.threads_kept = "threads kept: {{.*}} but more than 256 threads"} {
tile.func @wide(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
               %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 256 {
    %As = tile.alloc : !tile.tile<128x32xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x256xf16, shared>
    %Cf = tile.alloc : !tile.tile<128x256xf32, fragment>
    tile.clear %Cf : !tile.tile<128x256xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c256 : index
    tile.copy %A[%row, %c0], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x32xf16, shared>
    tile.copy %B[%c0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<32x256xf16, shared>
    tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xf16, shared>, !tile.tile<32x256xf16, shared>, !tile.tile<128x256xf32, fragment>
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x256xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// -----

// The program keeps its threads.
// CHECK-LABEL: tile.func @own
// CHECK: threads = 128 attributes {tile.split_threads = 1 : i64}
tile.func @own(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
              %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 128 attributes {tile.split_threads = 1} {
    %As = tile.alloc : !tile.tile<128x32xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x128xf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.copy %A[%row, %c0], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x32xf16, shared>
    tile.copy %B[%c0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<32x128xf16, shared>
    tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xf16, shared>, !tile.tile<32x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// -----

// A local tile is private to each thread: kept.
// CHECK-LABEL: tile.func @local
// CHECK: threads = 128 {
tile.func @local(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
                %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 128 {
    %As = tile.alloc : !tile.tile<128x32xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x128xf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    %L = tile.alloc : !tile.tile<4xf32, local>
    tile.clear %L : !tile.tile<4xf32, local>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.copy %A[%row, %c0], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x32xf16, shared>
    tile.copy %B[%c0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<32x128xf16, shared>
    tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xf16, shared>, !tile.tile<32x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// -----

// A fragment whose layout the program wrote names lanes and warps: kept.
// CHECK-LABEL: tile.func @forced
// CHECK: threads = 128 {
tile.func @forced(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
                 %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 128 {
    %As = tile.alloc : !tile.tile<128x32xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x128xf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    %F = tile.alloc : !tile.tile<16x32xf32, fragment, #tile.layout<reg = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0]], warp = [], block = []>>
    tile.clear %F : !tile.tile<16x32xf32, fragment, #tile.layout<reg = [[0, 1]], lane = [[0, 2], [0, 4], [1, 0]], warp = [], block = []>>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.copy %A[%row, %c0], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x32xf16, shared>
    tile.copy %B[%c0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<32x128xf16, shared>
    tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xf16, shared>, !tile.tile<32x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// -----

// An op the passes do not interpret (the parser knows tile, arith, math and
// scf only; IR built in C++ may hold others): kept.
// CHECK-LABEL: tile.func @foreign
// CHECK: threads = 128 {
tile.func @foreign(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
                  %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 128 {
    %As = tile.alloc : !tile.tile<128x32xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x128xf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    %t = "gpu.thread_id"() : () -> index
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.copy %A[%row, %c0], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x32xf16, shared>
    tile.copy %B[%c0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<32x128xf16, shared>
    tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xf16, shared>, !tile.tile<32x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// -----

// Three accumulators of one product each move through a reorder region of
// their own (1 KiB per subgroup: cooperative matrices keep their registers
// in the driver's order): 128x64 and 64x128 f16 tiles (32 KiB) and 12 KiB of
// regions over 4 subgroups fit nvidia-vk's 48 KiB of workgroup memory, 24
// KiB over 8 would not: kept.
// CHECK-LABEL: tile.func @shared
// CHECK: threads = 128 attributes {tile.threads_kept = "threads kept: {{.*}}more than the 49152 of a block"} {
tile.func @shared(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
                  %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 128 {
    %As = tile.alloc : !tile.tile<128x64xf16, shared>
    %Bs = tile.alloc : !tile.tile<64x128xf16, shared>
    %C1 = tile.alloc : !tile.tile<128x128xf32, fragment>
    %C2 = tile.alloc : !tile.tile<128x128xf32, fragment>
    %C3 = tile.alloc : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.copy %A[%row, %c0], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x64xf16, shared>
    tile.copy %B[%c0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<64x128xf16, shared>
    tile.gemm %As, %Bs, %C1 clear : !tile.tile<128x64xf16, shared>, !tile.tile<64x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    tile.gemm %As, %Bs, %C2 clear : !tile.tile<128x64xf16, shared>, !tile.tile<64x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    tile.gemm %As, %Bs, %C3 clear : !tile.tile<128x64xf16, shared>, !tile.tile<64x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    tile.copy %C1, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
    tile.copy %C2, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
    tile.copy %C3, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}
