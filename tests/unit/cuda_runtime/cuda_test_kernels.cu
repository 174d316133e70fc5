// Kernels for the cuda runtime plugin tests, written by hand in the shape the
// cuda compiler plugin emits: parameters follow the slot convention (a tensor
// is a pointer then int64 dims; a scalar is one 4- or 8-byte parameter).
#include <cstdint>

// c = a + alpha * b over n elements.
extern "C" __global__ void tessera_kernel_vadd(const float *a, int64_t an,
                                               const float *b, int64_t bn,
                                               float *c, int64_t n,
                                               float alpha) {
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + alpha * b[i];
}

// Block i reverses chunk i (`chunk` floats, zero past n) of `in` into `out`
// through dynamic shared memory of chunk * 4 bytes: above 48 KiB it needs the
// opt-in the plugin performs.
extern "C" __global__ void tessera_kernel_reverse_chunks(const float *in,
                                                         int64_t n, float *out,
                                                         int64_t on,
                                                         int32_t chunk) {
  extern __shared__ float tile[];
  int64_t base = int64_t(blockIdx.x) * chunk;
  for (int i = threadIdx.x; i < chunk; i += blockDim.x)
    tile[i] = base + i < n ? in[base + i] : 0.0f;
  __syncthreads();
  for (int i = threadIdx.x; i < chunk; i += blockDim.x)
    if (base + i < n)
      out[base + i] = tile[chunk - 1 - i];
}

// A global named like a tensor-map descriptor, of no kernel: the cubin's
// symbol table must list it (cubin_elf_test), and kernel_get of the kernels
// above must not take it for theirs.
extern "C" __device__ const unsigned tessera_tma_no_such_kernel[4] = {0, 0, 0,
                                                                      0};
