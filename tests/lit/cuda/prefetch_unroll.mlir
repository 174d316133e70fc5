// The fragment prefetch (TESSERA_PREFETCH_FRAGMENTS=1, opt-in,
// core/passes/lib/Pipeline.cpp) marks its loop tile.unroll = 2: with two
// copies of the body each loads the next step's scales into the register
// the other reads, where one body would move the loaded value into the
// loop-carried register and wait for the load there. The cuda backend
// (NvptxCodegen.cpp, lowerToNVVM) turns the mark into LLVM loop metadata,
// #llvm.loop_unroll<count = 2>, which convert-scf-to-cf moves to the loop's
// latch branch; kernel.sm_90a.ll is after LLVM's optimizations, where the
// loop is already unrolled (a remainder: .epil.preheader, .unr-lcssa), so
// the metadata is checked in the --print-ir-after-all dumps and the unroll
// in the PTX: the block-scaled fp8 GEMM's K step is four wgmma, 12 sites
// unrolled twice (two bodies and the remainder's), 4 in one body. (The
// scales' copies stay in the loop with TESSERA_STAGE_FRAGMENTS=0; by
// default they go through the pipeline's stages instead.)
// TESSERA_PREFETCH_UNROLL=1 keeps one body (the prefetch stays), and
// without the prefetch nothing is marked.
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t/on %t/one
// RUN: env TESSERA_PREFETCH_FRAGMENTS=1 TESSERA_STAGE_FRAGMENTS=0 %tessera compile %examples/zoo/gemm_fp8_blockscale.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/on.tsb --dump-dir %t/on --print-ir-after-all 2> %t/on.txt
// RUN: FileCheck %s --input-file %t/on.txt
// RUN: grep -c 'wgmma.mma_async' %t/on/kernel.sm_90a.ptx | FileCheck %s --check-prefix=TWELVE
// RUN: FileCheck %s --check-prefix=LL --input-file %t/on/kernel.sm_90a.ll
// RUN: env TESSERA_PREFETCH_FRAGMENTS=1 TESSERA_STAGE_FRAGMENTS=0 TESSERA_PREFETCH_UNROLL=1 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/gemm_fp8_blockscale.mlir | FileCheck %s --check-prefix=ONE
// RUN: env TESSERA_PREFETCH_FRAGMENTS=1 TESSERA_STAGE_FRAGMENTS=0 TESSERA_PREFETCH_UNROLL=1 %tessera compile %examples/zoo/gemm_fp8_blockscale.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/one.tsb --dump-dir %t/one
// RUN: grep -c 'wgmma.mma_async' %t/one/kernel.sm_90a.ptx | FileCheck %s --check-prefix=FOUR
// RUN: FileCheck %s --check-prefix=LLONE --input-file %t/one/kernel.sm_90a.ll
// RUN: env TESSERA_STAGE_FRAGMENTS=0 %tessera-opt --tessera-pipeline=sm_90a %examples/zoo/gemm_fp8_blockscale.mlir | FileCheck %s --check-prefix=NONE

// CHECK-LABEL: IR Dump After TesseraPipelineLoops
// CHECK: tile.copy {{.*}} {tile.prefetch
// CHECK: scf.for
// CHECK: tile.copy {{.*}} {tile.prefetch
// CHECK: } {tile.num_stages = 4 : i64, tile.unroll = 2 : i64}
// CHECK-LABEL: IR Dump After SCFToControlFlowPass (convert-scf-to-cf) ('gpu.module' operation: @tessera_kernels)
// CHECK: #[[UNROLL:loop_unroll[0-9]*]] = #llvm.loop_unroll<count = 2 : i32>
// CHECK: #[[ANN:loop_annotation[0-9]*]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
// CHECK: gpu.func @tessera_kernel_gemm_fp8_blockscale(
// CHECK: cf.br ^bb{{[0-9]+}}({{.*}}) {llvm.loop_annotation = #[[ANN]]}
// CHECK-LABEL: IR Dump After

// TWELVE: {{^}}12{{$}}
// FOUR: {{^}}4{{$}}

// LL: define {{.*}} @tessera_kernel_gemm_fp8_blockscale(
// LL: .unr-lcssa:
// LL: .epil.preheader:
// LLONE: define {{.*}} @tessera_kernel_gemm_fp8_blockscale(
// LLONE-NOT: .unr-lcssa
// LLONE-NOT: .epil.preheader

// ONE-NOT: tile.unroll
// ONE: tile.prefetch
// ONE-NOT: tile.unroll
// NONE-NOT: tile.prefetch
// NONE-NOT: tile.unroll
