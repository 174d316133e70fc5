// The twin without TMA of tessera_kernel_fill_tma (cuda_test_tma_kernel.cu):
// the slots only; writes 2.0 over the tensor. Built to PTX, the form in
// which the cuda compiler plugin ships twins (the bundle's on-demand image).
#include <cstdint>

extern "C" __global__ void
tessera_kernel_fill_tma__fallback(float *p, int64_t rows, int64_t cols) {
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < rows * cols)
    p[i] = 2.0f;
}
