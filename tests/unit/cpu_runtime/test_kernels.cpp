//===- test_kernels.cpp - hand-written cpu kernels for the runtime tests --===//
//
// What the cpu compiler plugin emits, written by hand: one function per
// kernel, called once per block, reading its arguments from 8-byte slots
// (a tensor is a pointer then its dims; a scalar sits in the low bytes).
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ctime>

#define KERNEL extern "C" __attribute__((visibility("default"))) void

namespace {
constexpr int64_t kAddBlock = 256;
constexpr int64_t kGemmTile = 8;

template <typename T> T *ptr(const uint64_t *slots, int i) {
  return reinterpret_cast<T *>(uintptr_t(slots[i]));
}
float f32(uint64_t slot) {
  float value;
  uint32_t low = uint32_t(slot);
  std::memcpy(&value, &low, sizeof(value));
  return value;
}
} // namespace

// c[i] = a[i] + b[i]; slots: a(ptr, n) b(ptr, n) c(ptr, n); kAddBlock
// elements per block.
KERNEL tessera_kernel_add(const uint64_t *slots, int64_t bx, int64_t, int64_t) {
  const float *a = ptr<const float>(slots, 0);
  const float *b = ptr<const float>(slots, 2);
  float *c = ptr<float>(slots, 4);
  int64_t n = int64_t(slots[5]);
  int64_t end = std::min(n, (bx + 1) * kAddBlock);
  for (int64_t i = bx * kAddBlock; i < end; ++i)
    c[i] = a[i] + b[i];
}

// C = alpha * A * B, row-major; slots: A(ptr, M, K) B(ptr, K, N)
// C(ptr, M, N) alpha(f32). Block (bx, by) computes the 8x8 tile of C at
// row by*8, column bx*8.
KERNEL tessera_kernel_gemm(const uint64_t *slots, int64_t bx, int64_t by,
                           int64_t) {
  const float *A = ptr<const float>(slots, 0);
  int64_t M = int64_t(slots[1]), K = int64_t(slots[2]);
  const float *B = ptr<const float>(slots, 3);
  int64_t N = int64_t(slots[5]);
  float *C = ptr<float>(slots, 6);
  float alpha = f32(slots[9]);
  for (int64_t i = by * kGemmTile; i < std::min(M, (by + 1) * kGemmTile); ++i)
    for (int64_t j = bx * kGemmTile; j < std::min(N, (bx + 1) * kGemmTile);
         ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < K; ++k)
        acc += A[i * K + k] * B[k * N + j];
      C[i * N + j] = alpha * acc;
    }
}

// counts[bx + gx * (by + gy * bz)] += 1; slots: counts(ptr, n) gx(i32)
// gy(i32). Checks that every block runs exactly once.
KERNEL tessera_kernel_count_blocks(const uint64_t *slots, int64_t bx,
                                   int64_t by, int64_t bz) {
  uint32_t *counts = ptr<uint32_t>(slots, 0);
  int64_t gx = int32_t(slots[2]), gy = int32_t(slots[3]);
  __atomic_fetch_add(&counts[bx + gx * (by + gy * bz)], 1u, __ATOMIC_RELAXED);
}

// Sleeps for `ms` milliseconds (slot 0, i32): gives events something to time.
KERNEL tessera_kernel_sleep(const uint64_t *slots, int64_t, int64_t, int64_t) {
  int32_t ms = int32_t(slots[0]);
  timespec ts{ms / 1000, long(ms % 1000) * 1000000L};
  nanosleep(&ts, nullptr);
}
