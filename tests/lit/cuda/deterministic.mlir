// A compile gives the same bundle every time: gemm_fp8.mlir holds two TMA
// kernels, whose tensor-map parameters are appended in the module's order
// (not in the order of their addresses), so the PTX lists them the same way
// in every process. Eight compiles, each byte-compared with the first (the
// kernel order used to differ in about a third of them).
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %examples/gemm_fp8.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/0.tsb
// RUN: %tessera compile %examples/gemm_fp8.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/1.tsb && cmp %t/0.tsb %t/1.tsb
// RUN: %tessera compile %examples/gemm_fp8.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/2.tsb && cmp %t/0.tsb %t/2.tsb
// RUN: %tessera compile %examples/gemm_fp8.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/3.tsb && cmp %t/0.tsb %t/3.tsb
// RUN: %tessera compile %examples/gemm_fp8.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/4.tsb && cmp %t/0.tsb %t/4.tsb
// RUN: %tessera compile %examples/gemm_fp8.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/5.tsb && cmp %t/0.tsb %t/5.tsb
// RUN: %tessera compile %examples/gemm_fp8.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/6.tsb && cmp %t/0.tsb %t/6.tsb
// RUN: %tessera compile %examples/gemm_fp8.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/7.tsb && cmp %t/0.tsb %t/7.tsb
// RUN: %tessera info %t/0.tsb | FileCheck %s
// CHECK: kernel gemm_fp8 (symbol tessera_kernel_gemm_fp8)
// CHECK: kernel gemm_fp8_e5m2 (symbol tessera_kernel_gemm_fp8_e5m2)
