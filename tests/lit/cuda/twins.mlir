// Twins copy from global to shared memory in the checked form alone, without
// the version for tiles wholly inside the tensor: the twins' lowering was
// the longer half of a compile (TargetHooks::compactCopies;
// TESSERA_COMPACT_TWINS=0 keeps both). gemm.mlir's twin copies A and B for
// three prologue stages and in the loop: 8 cp.async sites, 16 with both.
// The epilogue's accumulator goes through the staging tile a TMA store
// would read (stmatrix, 16 sites), and the block's threads store that tile
// in a rolled loop (tile.no_unroll) of checked 8-byte pieces (one
// st.global.v2.b32 site, four st.global.b16 for pieces at the edges)
// instead of a checked store per register pair (64 st.global.b32 sites,
// 128 st.global.b16): the twin's PTX is half as long as before.
// The twins without TMA of sm_90a kernels (`<kernel>__fallback`) are the
// bundle's second image for the chip, marked tessera.on_demand: PTX by
// default (the driver JIT-compiles it only for a launch that needs a twin),
// a cubin with TESSERA_CUDA_TWINS=cubin (ptxas on the twins' thread), PTX
// beside a PTX image without ptxas. With --print-ir-after-all the context
// is single-threaded and the twins compile after the kernels.
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t/c
// RUN: env TESSERA_CUDA_TWINS=cubin %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/c.tsb --dump-dir %t/c
// RUN: %tessera info %t/c.tsb | FileCheck %s --check-prefix=CUBIN
// RUN: FileCheck %s --check-prefix=TWINPTX --input-file %t/c/kernel.sm_90a.fallback.ptx
// RUN: FileCheck %s --check-prefix=REPORT --input-file %t/c/ptxas.sm_90a.fallback.txt
// RUN: env TESSERA_PTXAS=none %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/p.tsb
// RUN: %tessera info %t/p.tsb | FileCheck %s --check-prefix=PTX
// RUN: %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache --print-ir-after-all -o %t/i.tsb 2> %t/i.txt
// RUN: %tessera info %t/i.tsb | FileCheck %s --check-prefix=SERIAL
// RUN: FileCheck %s --check-prefix=IR --input-file %t/i.txt
// RUN: FileCheck %s --check-prefix=COMPACT --input-file %t/i.txt
// RUN: env TESSERA_COMPACT_TWINS=0 %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache --print-ir-after-all -o %t/f.tsb 2> %t/f.txt
// RUN: FileCheck %s --check-prefix=FULL --input-file %t/f.txt

// CUBIN: 2 images
// CUBIN: image 0: nvptx64-nvidia-cuda:sm_90a, cubin image
// CUBIN: kernel gemm (symbol tessera_kernel_gemm)
// CUBIN: image 1: nvptx64-nvidia-cuda:sm_90a, cubin image
// CUBIN: tessera.on_demand = fallback kernels
// REPORT: Compiling entry function 'tessera_kernel_gemm__fallback' for 'sm_90a'
// REPORT-NOT: Compiling entry function
// REPORT: 0 bytes spill stores, 0 bytes spill loads

// TWINPTX: .entry tessera_kernel_gemm__fallback(
// TWINPTX-COUNT-16: stmatrix.sync.aligned.m8n8.x4.shared.b16
// TWINPTX-NOT: stmatrix
// TWINPTX: bar.sync 0;
// TWINPTX-NOT: st.global.b32
// TWINPTX-DAG: ld.shared.v2.b32
// TWINPTX-DAG: st.global.v2.b32
// TWINPTX-COUNT-4: st.global.b16
// TWINPTX-NOT: st.global
// TWINPTX: bar.sync 0;
// TWINPTX: ret;

// PTX: image 0: nvptx64-nvidia-cuda:sm_90a, ptx image
// PTX: image 1: nvptx64-nvidia-cuda:sm_90a, ptx image
// PTX: tessera.on_demand = fallback kernels

// SERIAL: image 0: nvptx64-nvidia-cuda:sm_90a, cubin image
// SERIAL: image 1: nvptx64-nvidia-cuda:sm_90a, ptx image
// IR: IR Dump After ConvertGpuOpsToNVVMOps (convert-gpu-to-nvvm) ('gpu.module' operation: @tessera_kernels)
// IR: IR Dump After ConvertGpuOpsToNVVMOps (convert-gpu-to-nvvm) ('gpu.module' operation: @tessera_kernels__fallback)

// COMPACT-LABEL: IR Dump After TesseraDistribute (tessera_kernel_gemm__fallback)
// COMPACT-COUNT-8: cp.async.cg.shared.global
// COMPACT-NOT: cp.async.cg.shared.global
// COMPACT: } {tile.no_unroll}
// COMPACT-LABEL: IR Dump After Canonicalizer (canonicalize) ('gpu.module'
// FULL-LABEL: IR Dump After TesseraDistribute (tessera_kernel_gemm__fallback)
// FULL-COUNT-16: cp.async.cg.shared.global
// FULL-NOT: cp.async.cg.shared.global
// FULL-NOT: tile.no_unroll
// FULL-LABEL: IR Dump After Canonicalizer (canonicalize) ('gpu.module'
