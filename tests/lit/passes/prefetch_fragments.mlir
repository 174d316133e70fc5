// TESSERA_PREFETCH_FRAGMENTS=1 (opt-in, core/passes/lib/Pipeline.cpp): a
// small copy of a global tensor into a fragment in a pipelined loop (the
// block-scaled fp8 GEMM's scales) loads one iteration ahead into a second
// fragment: one copy before the loop, and in the loop a register copy from
// it followed by the load of iteration iv + step. Off by default: the
// pipelined loop keeps the copy where the program wrote it. The Vulkan
// build runs on lavapipe against the host image on two odd shapes. A
// tensor the loop also writes is not read early (the prefix WRITES checks a
// program that writes its row scales back in the loop: only the column
// scale is prefetched). On sm_90a the row scales' copy is by default staged
// through the pipeline's stages instead (passes/pipeline.mlir,
// SM90-BLOCKSCALE-STAGED): these runs set TESSERA_STAGE_FRAGMENTS=0 to see
// the prefetch alone.
// REQUIRES: tessera, plugin-cuda, plugin-spirv
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TESSERA_PREFETCH_FRAGMENTS=1 TESSERA_STAGE_FRAGMENTS=0 %tessera compile %examples/zoo/gemm_fp8_blockscale.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/on.tsb --print-ir-after-all 2> %t/on.txt
// RUN: FileCheck %s --input-file %t/on.txt
// RUN: env TESSERA_STAGE_FRAGMENTS=0 %tessera compile %examples/zoo/gemm_fp8_blockscale.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/off.tsb --print-ir-after-all 2> %t/off.txt
// RUN: FileCheck %s --check-prefix=OFF --input-file %t/off.txt
// RUN: sed '/tile.copy %%b_scale\[%%bx, %%kt\], %%sb/a\      tile.copy %%sa, %%a_scale[%%row, %%kt] : !tile.tile<128x1xf32, fragment>, !tile.tensor<[M, KB], f32>' %examples/zoo/gemm_fp8_blockscale.mlir > %t/writes.mlir
// RUN: env TESSERA_PREFETCH_FRAGMENTS=1 TESSERA_STAGE_FRAGMENTS=0 %tessera compile %t/writes.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/w.tsb --print-ir-after-all 2> %t/w.txt
// RUN: FileCheck %s --check-prefix=WRITES --input-file %t/w.txt
// RUN: env TESSERA_PREFETCH_FRAGMENTS=1 %tessera compile %examples/zoo/gemm_fp8_blockscale.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe --target x86_64-unknown-linux-gnu -o %t/vk.tsb
// RUN: %if vulkan-device %{ %tessera run %t/vk.tsb --device spirv --shape M=129,N=257,K=300,KB=3,NB=3 --iters 1 --warmup 0 | FileCheck %s --check-prefix=LAVA %}
// RUN: %if vulkan-device %{ %tessera run %t/vk.tsb --device spirv --shape M=300,N=260,K=1000,KB=8,NB=3 --iters 1 --warmup 0 | FileCheck %s --check-prefix=LAVA %}

// CHECK-LABEL: IR Dump After TesseraPipelineLoops
// CHECK: tile.copy %arg2[%{{.*}}, %c0], %[[NA:[0-9]+]] {tile.prefetch
// CHECK: tile.copy %arg3[%{{.*}}, %c0], %[[NB:[0-9]+]] {tile.prefetch
// CHECK: scf.for %[[IV:arg[0-9]+]] =
// CHECK: tile.wait_group
// CHECK: tile.copy %[[NA]], %{{[0-9]+}} :
// CHECK-NEXT: %[[A1:[0-9]+]] = arith.addi %[[IV]], %c1 : index
// CHECK-NEXT: tile.copy %arg2[%{{.*}}, %[[A1]]], %[[NA]] {tile.prefetch
// CHECK-NEXT: tile.copy %[[NB]], %{{[0-9]+}} :
// CHECK-NEXT: %[[B1:[0-9]+]] = arith.addi %[[IV]], %c1 : index
// CHECK-NEXT: tile.copy %arg3[%{{.*}}, %[[B1]]], %[[NB]] {tile.prefetch
// CHECK-NEXT: tile.gemm

// OFF-LABEL: IR Dump After TesseraPipelineLoops
// OFF-NOT: tile.prefetch
// OFF: scf.for
// OFF: tile.copy %arg2[%{{.*}}, %arg{{[0-9]+}}]
// OFF-LABEL: IR Dump After

// WRITES-LABEL: IR Dump After TesseraPipelineLoops
// WRITES-NOT: tile.copy %arg2[{{.*}}tile.prefetch
// WRITES: tile.copy %arg3[%{{.*}}, %c0], %{{[0-9]+}} {tile.prefetch
// WRITES-NOT: tile.copy %arg2[{{.*}}tile.prefetch
// WRITES: tile.copy %arg3[%{{.*}}, %{{[0-9]+}}], %{{[0-9]+}} {tile.prefetch
// WRITES-LABEL: IR Dump After

// LAVA: check: passed
