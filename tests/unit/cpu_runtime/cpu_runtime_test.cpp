//===- cpu_runtime_test.cpp - the cpu runtime plugin through its C ABI ---===//

#include "tessera/plugin/runtime_abi.h"

#include <gtest/gtest.h>

#include "PluginUnderTest.h"
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <dlfcn.h>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using tessera::test::exeDir;
using tessera::test::readFile;

const tessera_runtime_plugin *loadPlugin() {
  static const tessera_runtime_plugin *plugin =
      tessera::test::pluginTable(tessera::test::openTestPlugin(
          TESSERA_TEST_PLUGIN_DIR, "libtessera_cpu_runtime.so"));
  return plugin;
}

uint64_t f32Slot(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

class CpuRuntime : public ::testing::Test {
protected:
  void SetUp() override {
    P = loadPlugin();
    ASSERT_NE(P, nullptr);
    ASSERT_EQ(P->initialize(err, sizeof(err)), TESSERA_PLUGIN_OK) << err;
    ASSERT_EQ(P->device_open(0, &dev, err, sizeof(err)), TESSERA_PLUGIN_OK)
        << err;
    image = readFile(exeDir() + "/" TESSERA_TEST_KERNELS);
    ASSERT_GT(image.size(), 64u) << "test kernels not found";
  }
  void TearDown() override {
    if (P && dev)
      P->device_close(dev);
  }

  tessera_device_ptr alloc(uint64_t bytes) {
    tessera_device_ptr p = 0;
    EXPECT_EQ(P->mem_alloc(dev, bytes, &p, err, sizeof(err)), TESSERA_PLUGIN_OK)
        << err;
    return p;
  }
  tessera_plugin_module load() {
    tessera_plugin_module m = nullptr;
    EXPECT_EQ(
        P->module_load(dev, image.data(), image.size(), &m, err, sizeof(err)),
        TESSERA_PLUGIN_OK)
        << err;
    return m;
  }
  tessera_plugin_kernel kernel(tessera_plugin_module m, const char *name) {
    tessera_plugin_kernel k = nullptr;
    EXPECT_EQ(P->kernel_get(m, name, &k, err, sizeof(err)), TESSERA_PLUGIN_OK)
        << err;
    return k;
  }
  int launch(tessera_plugin_kernel k, tessera_plugin_stream s,
             std::vector<uint64_t> slots, uint32_t gx, uint32_t gy = 1,
             uint32_t gz = 1) {
    tessera_plugin_launch l{};
    l.grid[0] = gx;
    l.grid[1] = gy;
    l.grid[2] = gz;
    l.block[0] = l.block[1] = l.block[2] = 1;
    l.num_slots = uint32_t(slots.size());
    l.slots = slots.data();
    return P->launch(k, s, &l, err, sizeof(err));
  }

  // c = a + b over n elements through the plugin (NULL stream).
  std::vector<float> runAdd(const std::vector<float> &a,
                            const std::vector<float> &b) {
    uint64_t n = a.size(), bytes = n * sizeof(float);
    tessera_device_ptr da = alloc(bytes), db = alloc(bytes), dc = alloc(bytes);
    EXPECT_EQ(da % 64, 0u);
    P->copy_to_device(dev, nullptr, da, a.data(), bytes, err, sizeof(err));
    P->copy_to_device(dev, nullptr, db, b.data(), bytes, err, sizeof(err));
    tessera_plugin_module m = load();
    EXPECT_EQ(launch(kernel(m, "tessera_kernel_add"), nullptr,
                     {da, n, db, n, dc, n}, uint32_t((n + 255) / 256)),
              TESSERA_PLUGIN_OK)
        << err;
    std::vector<float> c(n);
    P->copy_to_host(dev, nullptr, c.data(), dc, bytes, err, sizeof(err));
    P->module_unload(m);
    for (tessera_device_ptr p : {da, db, dc})
      P->mem_free(dev, p);
    return c;
  }

  // C = alpha * A * B through the plugin, 8x8 tiles.
  std::vector<float> runGemm(const std::vector<float> &A,
                             const std::vector<float> &B, uint64_t M,
                             uint64_t N, uint64_t K, float alpha) {
    tessera_device_ptr dA = alloc(M * K * 4), dB = alloc(K * N * 4),
                       dC = alloc(M * N * 4);
    P->copy_to_device(dev, nullptr, dA, A.data(), M * K * 4, err, sizeof(err));
    P->copy_to_device(dev, nullptr, dB, B.data(), K * N * 4, err, sizeof(err));
    tessera_plugin_module m = load();
    EXPECT_EQ(launch(kernel(m, "tessera_kernel_gemm"), nullptr,
                     {dA, M, K, dB, K, N, dC, M, N, f32Slot(alpha)},
                     uint32_t((N + 7) / 8), uint32_t((M + 7) / 8)),
              TESSERA_PLUGIN_OK)
        << err;
    std::vector<float> C(M * N);
    P->copy_to_host(dev, nullptr, C.data(), dC, M * N * 4, err, sizeof(err));
    P->module_unload(m);
    for (tessera_device_ptr p : {dA, dB, dC})
      P->mem_free(dev, p);
    return C;
  }

  const tessera_runtime_plugin *P = nullptr;
  tessera_plugin_device dev = nullptr;
  std::vector<char> image;
  char err[512] = {};
};

std::vector<float> randomVector(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

std::vector<float> referenceGemm(const std::vector<float> &A,
                                 const std::vector<float> &B, uint64_t M,
                                 uint64_t N, uint64_t K, float alpha) {
  std::vector<float> C(M * N);
  for (uint64_t i = 0; i < M; ++i)
    for (uint64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (uint64_t k = 0; k < K; ++k)
        acc += double(A[i * K + k]) * B[k * N + j];
      C[i * N + j] = float(alpha * acc);
    }
  return C;
}

TEST_F(CpuRuntime, PluginTable) {
  EXPECT_EQ(P->abi_major, uint32_t(TESSERA_RUNTIME_ABI_MAJOR));
  EXPECT_EQ(P->struct_size, sizeof(tessera_runtime_plugin));
  EXPECT_STREQ(P->name, "cpu");
  // initialize may be called again and reports the first result.
  EXPECT_EQ(P->initialize(err, sizeof(err)), TESSERA_PLUGIN_OK);
}

TEST_F(CpuRuntime, OneHostDevice) {
  uint32_t count = 0;
  ASSERT_EQ(P->device_count(&count, err, sizeof(err)), TESSERA_PLUGIN_OK);
  EXPECT_EQ(count, 1u);
  tessera_plugin_device_info info;
  ASSERT_EQ(P->device_info(dev, &info, err, sizeof(err)), TESSERA_PLUGIN_OK);
  EXPECT_STREQ(info.chip, "host");
#if defined(__x86_64__) && defined(__linux__)
  EXPECT_STREQ(info.triple, "x86_64-unknown-linux-gnu");
#elif defined(__aarch64__) && defined(__linux__)
  EXPECT_STREQ(info.triple, "aarch64-unknown-linux-gnu");
#endif
  EXPECT_GE(info.compute_units, 1u);
  EXPECT_GT(info.total_memory, 0u);
  tessera_plugin_device other;
  EXPECT_EQ(P->device_open(1, &other, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
}

TEST_F(CpuRuntime, AddWithOddGrid) {
  const size_t n = 100003; // 391 blocks, the last one partial
  std::vector<float> a = randomVector(n, 1), b = randomVector(n, 2);
  std::vector<float> c = runAdd(a, b);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(c[i], a[i] + b[i]) << "at " << i;
}

TEST_F(CpuRuntime, GemmWithOddGrid) {
  const uint64_t M = 37, N = 53, K = 29; // a 7x5 grid of partial tiles
  std::vector<float> A = randomVector(M * K, 3), B = randomVector(K * N, 4);
  std::vector<float> C = runGemm(A, B, M, N, K, 1.5f);
  std::vector<float> ref = referenceGemm(A, B, M, N, K, 1.5f);
  for (uint64_t i = 0; i < M * N; ++i)
    ASSERT_NEAR(C[i], ref[i], 1e-4f * (1 + std::fabs(ref[i]))) << "at " << i;
}

TEST_F(CpuRuntime, EveryBlockRunsOnce) {
  tessera_plugin_module m = load();
  tessera_plugin_kernel k = kernel(m, "tessera_kernel_count_blocks");
  const uint32_t grids[][3] = {
      {1, 1, 1}, {7, 5, 3}, {1001, 1, 1}, {1, 13, 11}, {3, 1, 97}};
  for (const auto &g : grids) {
    uint64_t n = uint64_t(g[0]) * g[1] * g[2];
    tessera_device_ptr counts = alloc(n * 4);
    ASSERT_EQ(P->mem_set(dev, nullptr, counts, 0, n * 4, err, sizeof(err)),
              TESSERA_PLUGIN_OK);
    ASSERT_EQ(launch(k, nullptr, {counts, n, g[0], g[1]}, g[0], g[1], g[2]),
              TESSERA_PLUGIN_OK)
        << err;
    std::vector<uint32_t> host(n);
    P->copy_to_host(dev, nullptr, host.data(), counts, n * 4, err, sizeof(err));
    for (uint64_t i = 0; i < n; ++i)
      ASSERT_EQ(host[i], 1u)
          << "block " << i << " of " << g[0] << "x" << g[1] << "x" << g[2];
    P->mem_free(dev, counts);
  }
  P->module_unload(m);
}

TEST_F(CpuRuntime, StreamsOrderWorkAndEventsTimeIt) {
  tessera_plugin_module m = load();
  tessera_plugin_kernel add = kernel(m, "tessera_kernel_add");
  tessera_plugin_kernel sleep = kernel(m, "tessera_kernel_sleep");
  tessera_plugin_stream s = nullptr;
  ASSERT_EQ(P->stream_create(dev, &s, err, sizeof(err)), TESSERA_PLUGIN_OK);
  tessera_plugin_event e0, e1;
  ASSERT_EQ(P->event_create(dev, &e0, err, sizeof(err)), TESSERA_PLUGIN_OK);
  ASSERT_EQ(P->event_create(dev, &e1, err, sizeof(err)), TESSERA_PLUGIN_OK);

  const uint64_t n = 5000, bytes = n * 4;
  std::vector<float> a = randomVector(n, 5), out(n, -1.0f);
  tessera_device_ptr da = alloc(bytes), dz = alloc(bytes), dc = alloc(bytes),
                     dd = alloc(bytes);
  ASSERT_EQ(P->event_record(e0, s, err, sizeof(err)), TESSERA_PLUGIN_OK);
  ASSERT_EQ(launch(sleep, s, {20}, 1), TESSERA_PLUGIN_OK) << err;
  ASSERT_EQ(P->copy_to_device(dev, s, da, a.data(), bytes, err, sizeof(err)),
            TESSERA_PLUGIN_OK);
  ASSERT_EQ(P->mem_set(dev, s, dz, 0, bytes, err, sizeof(err)),
            TESSERA_PLUGIN_OK);
  {
    // The launch copies its slots: this vector dies before the stream runs.
    ASSERT_EQ(launch(add, s, {da, n, dz, n, dc, n}, uint32_t((n + 255) / 256)),
              TESSERA_PLUGIN_OK);
  }
  ASSERT_EQ(P->copy_device(dev, s, dd, dc, bytes, err, sizeof(err)),
            TESSERA_PLUGIN_OK);
  ASSERT_EQ(P->copy_to_host(dev, s, out.data(), dd, bytes, err, sizeof(err)),
            TESSERA_PLUGIN_OK);
  ASSERT_EQ(P->event_record(e1, s, err, sizeof(err)), TESSERA_PLUGIN_OK);
  ASSERT_EQ(P->event_synchronize(e1, err, sizeof(err)), TESSERA_PLUGIN_OK);
  ASSERT_EQ(P->stream_synchronize(s, err, sizeof(err)), TESSERA_PLUGIN_OK);
  EXPECT_EQ(out, a); // a + 0
  float ms = -1;
  ASSERT_EQ(P->event_elapsed_ms(e0, e1, &ms, err, sizeof(err)),
            TESSERA_PLUGIN_OK)
      << err;
  EXPECT_GE(ms, 19.0f);
  EXPECT_LT(ms, 5000.0f);

  tessera_plugin_event never;
  ASSERT_EQ(P->event_create(dev, &never, err, sizeof(err)), TESSERA_PLUGIN_OK);
  EXPECT_EQ(P->event_elapsed_ms(e0, never, &ms, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_NE(std::string(err).find("never recorded"), std::string::npos) << err;

  for (tessera_plugin_event e : {e0, e1, never})
    P->event_destroy(e);
  P->stream_destroy(s);
  for (tessera_device_ptr p : {da, dz, dc, dd})
    P->mem_free(dev, p);
  P->module_unload(m);
}

TEST_F(CpuRuntime, TwoStreamsLaunchAtOnce) {
  const uint64_t M = 64, N = 96, K = 48;
  std::vector<float> A = randomVector(M * K, 6), B = randomVector(K * N, 7);
  std::vector<float> ref = referenceGemm(A, B, M, N, K, 2.0f);
  tessera_plugin_module m = load();
  tessera_plugin_kernel gemm = kernel(m, "tessera_kernel_gemm");
  tessera_device_ptr dA = alloc(M * K * 4), dB = alloc(K * N * 4);
  P->copy_to_device(dev, nullptr, dA, A.data(), M * K * 4, err, sizeof(err));
  P->copy_to_device(dev, nullptr, dB, B.data(), K * N * 4, err, sizeof(err));
  tessera_plugin_stream s[2];
  tessera_device_ptr dC[2];
  std::vector<float> C[2];
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(P->stream_create(dev, &s[i], err, sizeof(err)),
              TESSERA_PLUGIN_OK);
    dC[i] = alloc(M * N * 4);
    C[i].resize(M * N);
  }
  for (int rep = 0; rep < 20; ++rep)
    for (int i = 0; i < 2; ++i) {
      ASSERT_EQ(launch(gemm, s[i],
                       {dA, M, K, dB, K, N, dC[i], M, N, f32Slot(2.0f)},
                       uint32_t(N / 8), uint32_t(M / 8)),
                TESSERA_PLUGIN_OK);
      P->copy_to_host(dev, s[i], C[i].data(), dC[i], M * N * 4, err,
                      sizeof(err));
    }
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(P->stream_synchronize(s[i], err, sizeof(err)), TESSERA_PLUGIN_OK);
    for (uint64_t j = 0; j < M * N; ++j)
      ASSERT_NEAR(C[i][j], ref[j], 1e-4f * (1 + std::fabs(ref[j])));
    P->stream_destroy(s[i]);
    P->mem_free(dev, dC[i]);
  }
  P->mem_free(dev, dA);
  P->mem_free(dev, dB);
  P->module_unload(m);
}

TEST_F(CpuRuntime, BadImageIsRejectedWithAClearMessage) {
  tessera_plugin_module m = nullptr;
  const char junk[] = "this is not a shared object, just some bytes......"
                      "..................................................";
  EXPECT_EQ(P->module_load(dev, junk, sizeof(junk), &m, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_BAD_IMAGE);
  EXPECT_NE(std::string(err).find("not an ELF shared object"),
            std::string::npos)
      << err;

  // A real ELF header with the rest cut off: dlopen's own complaint.
  EXPECT_EQ(P->module_load(dev, image.data(), 200, &m, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_BAD_IMAGE);
  EXPECT_NE(std::string(err).find("dlopen of the cpu module image failed"),
            std::string::npos)
      << err;
  EXPECT_EQ(m, nullptr);
}

TEST_F(CpuRuntime, UnknownKernelIsNotFound) {
  tessera_plugin_module m = load();
  tessera_plugin_kernel k = nullptr;
  EXPECT_EQ(P->kernel_get(m, "tessera_kernel_nope", &k, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(err).find("tessera_kernel_nope"), std::string::npos)
      << err;
  // A bare name finds the prefixed symbol; the same name, the same handle.
  tessera_plugin_kernel a = kernel(m, "add");
  EXPECT_NE(a, nullptr);
  EXPECT_EQ(kernel(m, "add"), a);
  P->module_unload(m);
}

TEST_F(CpuRuntime, ModulesLoadRepeatedlyAndIndependently) {
  // Unloading one module must not disturb another loaded from the same bytes,
  // and a reload after unload must give a working module again.
  tessera_plugin_module first = load();
  for (int i = 0; i < 5; ++i) {
    tessera_plugin_module m = load();
    ASSERT_NE(m, nullptr);
    EXPECT_NE(kernel(m, "tessera_kernel_add"), nullptr);
    P->module_unload(m);
  }
  std::vector<float> a = randomVector(1000, 8), b = randomVector(1000, 9);
  std::vector<float> c = runAdd(a, b);
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(c[i], a[i] + b[i]);
  EXPECT_NE(kernel(first, "tessera_kernel_gemm"), nullptr);
  P->module_unload(first);
}

TEST_F(CpuRuntime, ThreadCountDoesNotChangeResults) {
  const uint64_t M = 45, N = 67, K = 33, n = 30011;
  std::vector<float> A = randomVector(M * K, 10), B = randomVector(K * N, 11);
  std::vector<float> a = randomVector(n, 12), b = randomVector(n, 13);
  std::vector<float> gemm[2], add[2];
  const char *counts[2] = {"1", "2"};
  for (int i = 0; i < 2; ++i) {
    P->device_close(dev);
    P->shutdown();
    setenv("TESSERA_CPU_THREADS", counts[i], 1);
    ASSERT_EQ(P->initialize(err, sizeof(err)), TESSERA_PLUGIN_OK) << err;
    ASSERT_EQ(P->device_open(0, &dev, err, sizeof(err)), TESSERA_PLUGIN_OK);
    tessera_plugin_device_info info;
    ASSERT_EQ(P->device_info(dev, &info, err, sizeof(err)), TESSERA_PLUGIN_OK);
    EXPECT_EQ(info.compute_units, uint32_t(i + 1));
    gemm[i] = runGemm(A, B, M, N, K, 0.5f);
    add[i] = runAdd(a, b);
  }
  unsetenv("TESSERA_CPU_THREADS");
  EXPECT_EQ(gemm[0], gemm[1]);
  EXPECT_EQ(add[0], add[1]);
}

TEST_F(CpuRuntime, CallsBeforeInitializeFailCleanly) {
  P->device_close(dev);
  dev = nullptr;
  P->shutdown();
  uint32_t count = 0;
  EXPECT_EQ(P->device_count(&count, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_NE(std::string(err).find("initialize"), std::string::npos) << err;
  ASSERT_EQ(P->initialize(err, sizeof(err)), TESSERA_PLUGIN_OK);
}

} // namespace
