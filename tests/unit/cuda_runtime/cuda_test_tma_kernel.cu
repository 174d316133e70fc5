// A kernel in the shape of the cuda compiler plugin's TMA kernels, for the
// on-demand image tests: its slots (a tensor p[rows, cols] of f32), then one
// 128-byte tensor-map parameter, and the "TMA2" descriptor the plugin reads
// at kernel_get. It writes 1.0 over the tensor; its twin without TMA
// (cuda_test_tma_twin.cu, shipped as PTX in the module's on-demand image)
// writes 2.0, so a test sees which of the two a launch ran.
#include <cstdint>

struct alignas(64) TensorMapParam {
  unsigned char bytes[128];
};

extern "C" __global__ void
tessera_kernel_fill_tma(float *p, int64_t rows, int64_t cols,
                        const __grid_constant__ TensorMapParam map) {
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < rows * cols)
    p[i] = 1.0f;
}

// {"TMA2", 1 map, twin threads 128, twin shared bytes 0}, then the map:
// slot 0, rank 2, CU_TENSOR_MAP_DATA_TYPE_FLOAT32 (7), 4-byte elements, no
// swizzle, no L2 promotion, box 32 x 8 (innermost first), 0.
extern "C" __device__ const unsigned tessera_tma_tessera_kernel_fill_tma[16] = {
    0x32414D54u, 1, 128, 0, 0, 2, 7, 4, 0, 0, 32, 8, 1, 1, 1, 0};
