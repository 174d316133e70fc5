/*===- test_kernels.c - CPU-convention kernels for runtime tests -----------===//
 *
 * Each kernel is called once per block with the packed 8-byte slots. Also
 * serves as a library WITHOUT the plugin entry point.
 *===----------------------------------------------------------------------===*/

#include <stdint.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* C = A + alpha * B over [N] f32, 128 elements per block.
 * Slots: A, N, B, N, C, N, alpha. */
EXPORT void tessera_kernel_axpy(const uint64_t *slots, int64_t bx, int64_t by,
                                int64_t bz) {
  (void)by, (void)bz;
  const float *a = (const float *)(uintptr_t)slots[0];
  int64_t n = (int64_t)slots[1];
  const float *b = (const float *)(uintptr_t)slots[2];
  float *c = (float *)(uintptr_t)slots[4];
  uint32_t bits = (uint32_t)slots[6];
  float alpha;
  memcpy(&alpha, &bits, sizeof alpha);
  int64_t end = (bx + 1) * 128 < n ? (bx + 1) * 128 : n;
  for (int64_t i = bx * 128; i < end; ++i)
    c[i] = a[i] + alpha * b[i];
}

/* Counts blocks: out[0] += 1 per block. Slots: out, 1. */
EXPORT void tessera_kernel_count(const uint64_t *slots, int64_t bx, int64_t by,
                                 int64_t bz) {
  (void)bx, (void)by, (void)bz;
  int64_t *out = (int64_t *)(uintptr_t)slots[0];
  out[0] += 1;
}
