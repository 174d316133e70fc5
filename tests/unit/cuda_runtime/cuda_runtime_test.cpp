//===- cuda_runtime_test.cpp - the cuda runtime plugin through its C ABI --===//

#include "tessera/cuda/tensor_map.h"
#include "tessera/plugin/runtime_abi.h"

#include <gtest/gtest.h>

#include "PluginUnderTest.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <dlfcn.h>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using tessera::test::exeDir;
using tessera::test::readFile;

void *pluginLibrary() {
  static void *lib = tessera::test::openTestPlugin(
      TESSERA_TEST_PLUGIN_DIR, "libtessera_cuda_runtime.so");
  return lib;
}

const tessera_runtime_plugin *plugin() {
  return tessera::test::pluginTable(pluginLibrary());
}

bool startsWith(const std::string &s, const std::string &prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// Sets (or with nullptr clears) $TESSERA_LIBCUDA for one initialize.
struct ScopedLibcuda {
  explicit ScopedLibcuda(const char *path) {
    const tessera_runtime_plugin *P = plugin();
    P->shutdown();
    if (path)
      setenv("TESSERA_LIBCUDA", path, 1);
    else
      unsetenv("TESSERA_LIBCUDA");
  }
  ~ScopedLibcuda() {
    plugin()->shutdown();
    unsetenv("TESSERA_LIBCUDA");
  }
};

TEST(CudaRuntimeUnavailable, PluginTable) {
  const tessera_runtime_plugin *P = plugin();
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->abi_major, uint32_t(TESSERA_RUNTIME_ABI_MAJOR));
  EXPECT_EQ(P->struct_size, sizeof(tessera_runtime_plugin));
  EXPECT_STREQ(P->name, "cuda");
  EXPECT_NE(dlsym(pluginLibrary(), TESSERA_CUDA_ENCODE_TENSOR_MAP_NAME),
            nullptr);
  EXPECT_GE(P->abi_minor, 2u);
  EXPECT_NE(P->module_add_on_demand_image, nullptr);
}

TEST(CudaRuntimeUnavailable, MissingLibcudaIsReportedNotFatal) {
  const tessera_runtime_plugin *P = plugin();
  ASSERT_NE(P, nullptr);
  ScopedLibcuda scoped("/nonexistent/libcuda.so.1");
  char err[512] = {};
  ASSERT_EQ(P->initialize(err, sizeof(err)), TESSERA_PLUGIN_ERROR_UNAVAILABLE);
  EXPECT_TRUE(
      startsWith(err, "libcuda not found (dlopen /nonexistent/libcuda.so.1: "))
      << err;
  std::printf("unavailable: %s\n", err);
  // A second initialize reports the first result again.
  char again[512] = {};
  EXPECT_EQ(P->initialize(again, sizeof(again)),
            TESSERA_PLUGIN_ERROR_UNAVAILABLE);
  EXPECT_STREQ(again, err);
  // Every other entry point fails cleanly instead of calling into nothing.
  uint32_t count = 7;
  EXPECT_EQ(P->device_count(&count, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_UNAVAILABLE);
  tessera_plugin_device dev = nullptr;
  EXPECT_EQ(P->device_open(0, &dev, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_UNAVAILABLE);
  auto encode = reinterpret_cast<tessera_cuda_encode_tensor_map_fn>(
      dlsym(pluginLibrary(), TESSERA_CUDA_ENCODE_TENSOR_MAP_NAME));
  ASSERT_NE(encode, nullptr);
  alignas(128) unsigned char map[TESSERA_CUDA_TENSOR_MAP_BYTES];
  uint64_t dims[1] = {64};
  uint32_t box[1] = {16}, strides[1] = {1};
  EXPECT_EQ(encode(map, 7, 1, 0, dims, nullptr, box, strides, 0, 0, 0, 0, err,
                   sizeof(err)),
            TESSERA_PLUGIN_ERROR_UNAVAILABLE);
}

TEST(CudaRuntimeUnavailable, LibraryThatIsNotTheDriver) {
  const tessera_runtime_plugin *P = plugin();
  ASSERT_NE(P, nullptr);
  ScopedLibcuda scoped("libc.so.6");
  char err[512] = {};
  ASSERT_EQ(P->initialize(err, sizeof(err)), TESSERA_PLUGIN_ERROR_UNAVAILABLE);
  EXPECT_NE(std::string(err).find("lacks cuInit"), std::string::npos) << err;
}

TEST(CudaRuntimeUnavailable, StubLibcudaMeansNoDevice) {
#ifndef TESSERA_TEST_STUB_LIBCUDA
  GTEST_SKIP() << "no CUDA stub libcuda at build time";
#else
  if (access(TESSERA_TEST_STUB_LIBCUDA, R_OK) != 0)
    GTEST_SKIP() << "no " TESSERA_TEST_STUB_LIBCUDA " on this machine";
  // In a child process: the stub's soname is libcuda.so.1, and once loaded it
  // would stand in for the real driver in later tests of this process.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    const tessera_runtime_plugin *P = plugin();
    P->shutdown();
    setenv("TESSERA_LIBCUDA", TESSERA_TEST_STUB_LIBCUDA, 1);
    char err[512] = {};
    int code = P->initialize(err, sizeof(err));
    std::string out = std::to_string(code) + "|" + err;
    ssize_t ignored = write(fds[1], out.data(), out.size());
    (void)ignored;
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0)
    out.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child died";
  EXPECT_TRUE(startsWith(out, std::to_string(TESSERA_PLUGIN_ERROR_UNAVAILABLE) +
                                  "|no CUDA device"))
      << out;
#endif
}

// ---------------------------------------------------------------------------
// GPU tests

uint64_t f32Slot(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

std::vector<float> randomVector(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

class CudaRuntimeGpu : public ::testing::Test {
protected:
  void SetUp() override {
    P = plugin();
    ASSERT_NE(P, nullptr);
    P->shutdown(); // start from $TESSERA_LIBCUDA / libcuda.so.1 afresh
    int code = P->initialize(err, sizeof(err));
    if (code == TESSERA_PLUGIN_ERROR_UNAVAILABLE) {
      std::printf("skipped: no CUDA device\n");
      GTEST_SKIP() << err;
    }
    ASSERT_EQ(code, TESSERA_PLUGIN_OK) << err;
#ifndef TESSERA_TEST_HAVE_KERNELS
    GTEST_SKIP() << "test kernels were not built (no nvcc at build time)";
#endif
    ASSERT_EQ(P->device_open(0, &dev, err, sizeof(err)), TESSERA_PLUGIN_OK)
        << err;
    ASSERT_EQ(P->device_info(dev, &info, err, sizeof(err)), TESSERA_PLUGIN_OK);
  }
  void TearDown() override {
    if (dev)
      P->device_close(dev);
  }

  tessera_device_ptr alloc(uint64_t bytes) {
    tessera_device_ptr p = 0;
    EXPECT_EQ(P->mem_alloc(dev, bytes, &p, err, sizeof(err)), TESSERA_PLUGIN_OK)
        << err;
    return p;
  }
  tessera_plugin_module load(const std::string &file) {
    std::vector<char> image = readFile(exeDir() + "/" + file);
    EXPECT_FALSE(image.empty()) << file << " not found next to the test";
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
             std::vector<uint64_t> slots, uint32_t gx, uint32_t bx,
             uint32_t shared = 0) {
    tessera_plugin_launch l{};
    l.grid[0] = gx;
    l.grid[1] = l.grid[2] = 1;
    l.block[0] = bx;
    l.block[1] = l.block[2] = 1;
    l.shared_bytes = shared;
    l.num_slots = uint32_t(slots.size());
    l.slots = slots.data();
    return P->launch(k, s, &l, err, sizeof(err));
  }

  // c = a + alpha * b through `moduleFile`, checked against the host.
  void checkVadd(const std::string &moduleFile,
                 tessera_plugin_stream stream = nullptr) {
    tessera_plugin_module m = load(moduleFile);
    ASSERT_NE(m, nullptr);
    tessera_plugin_kernel k = kernel(m, "tessera_kernel_vadd");
    const uint64_t n = 1000003, bytes = n * 4; // 3907 blocks, last partial
    std::vector<float> a = randomVector(n, 1), b = randomVector(n, 2), c(n);
    tessera_device_ptr da = alloc(bytes), db = alloc(bytes), dc = alloc(bytes);
    ASSERT_EQ(
        P->copy_to_device(dev, nullptr, da, a.data(), bytes, err, sizeof(err)),
        TESSERA_PLUGIN_OK)
        << err;
    ASSERT_EQ(
        P->copy_to_device(dev, nullptr, db, b.data(), bytes, err, sizeof(err)),
        TESSERA_PLUGIN_OK);
    ASSERT_EQ(P->mem_set(dev, nullptr, dc, 0xff, bytes, err, sizeof(err)),
              TESSERA_PLUGIN_OK);
    ASSERT_EQ(launch(k, stream, {da, n, db, n, dc, n, f32Slot(0.5f)},
                     uint32_t((n + 255) / 256), 256),
              TESSERA_PLUGIN_OK)
        << err;
    if (stream)
      ASSERT_EQ(P->stream_synchronize(stream, err, sizeof(err)),
                TESSERA_PLUGIN_OK)
          << err;
    ASSERT_EQ(
        P->copy_to_host(dev, nullptr, c.data(), dc, bytes, err, sizeof(err)),
        TESSERA_PLUGIN_OK)
        << err;
    for (uint64_t i = 0; i < n; ++i)
      ASSERT_NEAR(c[i], a[i] + 0.5f * b[i], 1e-6f) << "at " << i;
    for (tessera_device_ptr p : {da, db, dc})
      P->mem_free(dev, p);
    P->module_unload(m);
  }

  const tessera_runtime_plugin *P = nullptr;
  tessera_plugin_device dev = nullptr;
  tessera_plugin_device_info info{};
  char err[4096] = {};
};

TEST_F(CudaRuntimeGpu, DeviceInfo) {
  uint32_t count = 0;
  ASSERT_EQ(P->device_count(&count, err, sizeof(err)), TESSERA_PLUGIN_OK);
  EXPECT_GE(count, 1u);
  EXPECT_STREQ(info.triple, "nvptx64-nvidia-cuda");
  EXPECT_TRUE(startsWith(info.chip, "sm_")) << info.chip;
  EXPECT_GT(info.compute_units, 0u);
  EXPECT_EQ(info.warp_size, 32u);
  EXPECT_GE(info.max_shared_bytes_per_block, 48u * 1024);
  std::printf("device: %s, %s, %u SMs, %llu MiB, %u B shared/block\n",
              info.name, info.chip, info.compute_units,
              (unsigned long long)(info.total_memory >> 20),
              info.max_shared_bytes_per_block);
}

TEST_F(CudaRuntimeGpu, VectorAddFromPtx) {
  checkVadd("cuda_test_kernels.sm_80.ptx");
}

TEST_F(CudaRuntimeGpu, VectorAddFromSm90aCubin) {
  if (std::string(info.chip) != "sm_90a")
    GTEST_SKIP() << "the cubin is for sm_90a; this device is " << info.chip;
  checkVadd("cuda_test_kernels.sm_90a.cubin");
}

TEST_F(CudaRuntimeGpu, DynamicSharedMemoryAbove48KiB) {
  tessera_plugin_module m = load("cuda_test_kernels.sm_80.ptx");
  ASSERT_NE(m, nullptr);
  tessera_plugin_kernel k = kernel(m, "tessera_kernel_reverse_chunks");
  tessera_plugin_stream s = nullptr;
  ASSERT_EQ(P->stream_create(dev, &s, err, sizeof(err)), TESSERA_PLUGIN_OK);
  tessera_plugin_event e0, e1;
  ASSERT_EQ(P->event_create(dev, &e0, err, sizeof(err)), TESSERA_PLUGIN_OK);
  ASSERT_EQ(P->event_create(dev, &e1, err, sizeof(err)), TESSERA_PLUGIN_OK);

  const uint64_t n = 777777, bytes = n * 4;
  std::vector<float> in = randomVector(n, 3), out(n);
  tessera_device_ptr din = alloc(bytes), dout = alloc(bytes);
  ASSERT_EQ(P->copy_to_device(dev, s, din, in.data(), bytes, err, sizeof(err)),
            TESSERA_PLUGIN_OK);
  uint32_t maxShared = info.max_shared_bytes_per_block;
  for (uint32_t shared : {64u * 1024, std::min(100u * 1024, maxShared)}) {
    int32_t chunk = int32_t(shared / 4);
    uint32_t blocks = uint32_t((n + chunk - 1) / chunk);
    ASSERT_EQ(P->event_record(e0, s, err, sizeof(err)), TESSERA_PLUGIN_OK);
    ASSERT_EQ(launch(k, s, {din, n, dout, n, uint64_t(uint32_t(chunk))}, blocks,
                     256, shared),
              TESSERA_PLUGIN_OK)
        << err;
    ASSERT_EQ(P->event_record(e1, s, err, sizeof(err)), TESSERA_PLUGIN_OK);
    ASSERT_EQ(
        P->copy_to_host(dev, s, out.data(), dout, bytes, err, sizeof(err)),
        TESSERA_PLUGIN_OK);
    ASSERT_EQ(P->stream_synchronize(s, err, sizeof(err)), TESSERA_PLUGIN_OK)
        << err;
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t base = i / chunk * chunk, from = base + chunk - 1 - (i - base);
      float expect = from < n ? in[from] : 0.0f;
      ASSERT_EQ(out[i], expect) << "at " << i << " with " << shared << " B";
    }
    float ms = -1;
    ASSERT_EQ(P->event_elapsed_ms(e0, e1, &ms, err, sizeof(err)),
              TESSERA_PLUGIN_OK)
        << err;
    EXPECT_GE(ms, 0.0f);
  }

  // More than the device allows: a clear launch error, not a crash.
  EXPECT_EQ(launch(k, s, {din, n, dout, n, 16}, 1, 32, maxShared + 1024),
            TESSERA_PLUGIN_ERROR_LAUNCH);
  EXPECT_NE(std::string(err).find("cannot raise dynamic shared memory"),
            std::string::npos)
      << err;

  P->event_destroy(e0);
  P->event_destroy(e1);
  P->stream_destroy(s);
  P->mem_free(dev, din);
  P->mem_free(dev, dout);
  P->module_unload(m);
}

TEST_F(CudaRuntimeGpu, BadImagesAndUnknownKernels) {
  tessera_plugin_module m = nullptr;
  const char junk[] = "definitely not a cubin";
  EXPECT_EQ(P->module_load(dev, junk, sizeof(junk), &m, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_BAD_IMAGE);
  EXPECT_NE(std::string(err).find("not a cubin"), std::string::npos) << err;

  // PTX that fails to JIT: the error carries the driver's name and JIT log.
  const std::string badPtx = ".version 7.0\n.target sm_80\n.address_size 64\n"
                             ".visible .entry broken() { bogus.instr; }\n";
  EXPECT_EQ(
      P->module_load(dev, badPtx.data(), badPtx.size(), &m, err, sizeof(err)),
      TESSERA_PLUGIN_ERROR_BAD_IMAGE);
  EXPECT_NE(std::string(err).find("cuModuleLoadDataEx failed: CUDA_ERROR_"),
            std::string::npos)
      << err;
  std::printf("bad PTX: %s\n", err);

  m = load("cuda_test_kernels.sm_80.ptx");
  ASSERT_NE(m, nullptr);
  tessera_plugin_kernel k = nullptr;
  EXPECT_EQ(P->kernel_get(m, "tessera_kernel_missing", &k, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(err).find("tessera_kernel_missing"), std::string::npos);
  tessera_plugin_kernel a = kernel(m, "tessera_kernel_vadd");
  EXPECT_EQ(kernel(m, "tessera_kernel_vadd"), a);
  P->module_unload(m);
}

// A TMA kernel whose twin without TMA is in the module's on-demand image
// (as the cuda compiler plugin ships it, PTX): kernel_get succeeds without
// the twin, a launch whose tensor a map describes runs the kernel, and the
// first launch whose tensor no map describes (base not 16-byte aligned)
// loads the on-demand image (the driver JIT-compiles it) and runs the twin.
TEST_F(CudaRuntimeGpu, TwinFromTheOnDemandImage) {
  if (std::string(info.chip) != "sm_90a")
    GTEST_SKIP() << "the cubin is for sm_90a; this device is " << info.chip;
  std::vector<char> twinPtx =
      readFile(exeDir() + "/cuda_test_tma_twin.sm_90a.ptx");
  std::vector<char> twinCubin =
      readFile(exeDir() + "/cuda_test_tma_twin.sm_90a.cubin");
  ASSERT_FALSE(twinPtx.empty());
  ASSERT_FALSE(twinCubin.empty());
  const int64_t rows = 37, cols = 64, n = rows * cols;
  tessera_device_ptr buffer = alloc((n + 4) * 4);
  std::vector<float> host(n + 4);
  auto run = [&](tessera_plugin_kernel k, tessera_device_ptr p) {
    int rc = launch(k, nullptr, {p, uint64_t(rows), uint64_t(cols)},
                    uint32_t((n + 127) / 128), 128);
    if (rc == TESSERA_PLUGIN_OK)
      EXPECT_EQ(P->copy_to_host(dev, nullptr, host.data(), buffer,
                                host.size() * 4, err, sizeof(err)),
                TESSERA_PLUGIN_OK)
          << err;
    return rc;
  };

  // The twin as PTX (as the compiler ships it) and as a cubin
  // (TESSERA_CUDA_TWINS=cubin).
  tessera_plugin_module m = nullptr;
  tessera_plugin_kernel k = nullptr;
  for (const std::vector<char> *twin : {&twinPtx, &twinCubin}) {
    m = load("cuda_test_tma.sm_90a.cubin");
    ASSERT_NE(m, nullptr);
    ASSERT_EQ(P->module_add_on_demand_image(m, twin->data(), twin->size(), err,
                                            sizeof(err)),
              TESSERA_PLUGIN_OK)
        << err;
    k = kernel(m, "tessera_kernel_fill_tma");
    ASSERT_NE(k, nullptr);
    ASSERT_EQ(
        P->mem_set(dev, nullptr, buffer, 0, (n + 4) * 4, err, sizeof(err)),
        TESSERA_PLUGIN_OK);
    ASSERT_EQ(run(k, buffer), TESSERA_PLUGIN_OK) << err;
    EXPECT_EQ(host[0], 1.0f);
    EXPECT_EQ(host[n - 1], 1.0f);
    ASSERT_EQ(run(k, buffer + 4), TESSERA_PLUGIN_OK) << err;
    EXPECT_EQ(host[0], 1.0f);
    EXPECT_EQ(host[1], 2.0f);
    EXPECT_EQ(host[n], 2.0f);
    // Again: the twin is loaded once.
    ASSERT_EQ(run(k, buffer + 8), TESSERA_PLUGIN_OK) << err;
    EXPECT_EQ(host[n + 1], 2.0f);
    P->module_unload(m);
  }

  // An on-demand image that does not JIT: the kernel still runs, and only
  // a launch that needs the twin fails, with the driver's log.
  m = load("cuda_test_tma.sm_90a.cubin");
  ASSERT_NE(m, nullptr);
  const std::string bad = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                          ".visible .entry broken() { bogus.instr; }\n";
  ASSERT_EQ(P->module_add_on_demand_image(m, bad.data(), bad.size(), err,
                                          sizeof(err)),
            TESSERA_PLUGIN_OK)
      << err;
  k = kernel(m, "tessera_kernel_fill_tma");
  ASSERT_EQ(run(k, buffer), TESSERA_PLUGIN_OK) << err;
  EXPECT_EQ(run(k, buffer + 4), TESSERA_PLUGIN_ERROR_LAUNCH);
  EXPECT_NE(std::string(err).find("needs its twin without TMA "
                                  "(tessera_kernel_fill_tma__fallback)"),
            std::string::npos)
      << err;
  EXPECT_NE(std::string(err).find("JIT log"), std::string::npos) << err;
  P->module_unload(m);

  // Neither image has the twin: kernel_get refuses the kernel.
  m = load("cuda_test_tma.sm_90a.cubin");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(P->kernel_get(m, "tessera_kernel_fill_tma", &k, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_BAD_IMAGE);
  EXPECT_NE(std::string(err).find("no tessera_kernel_fill_tma__fallback"),
            std::string::npos)
      << err;
  // Junk is refused at once.
  const char junk[] = "not an image";
  EXPECT_EQ(
      P->module_add_on_demand_image(m, junk, sizeof(junk), err, sizeof(err)),
      TESSERA_PLUGIN_ERROR_BAD_IMAGE);
  P->module_unload(m);
  P->mem_free(dev, buffer);
}

TEST_F(CudaRuntimeGpu, CallsFromAnotherThread) {
  // A fresh thread has no current context; the plugin binds the device's.
  std::thread worker([&] { checkVadd("cuda_test_kernels.sm_80.ptx"); });
  worker.join();
}

TEST_F(CudaRuntimeGpu, WrapsANativeStream) {
  // A CUstream created by someone else (as torch does): work launched on the
  // wrapper runs on it, and destroying the wrapper leaves it alive.
  ASSERT_NE(P->stream_wrap, nullptr);
  void *libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(libcuda, nullptr);
  using StreamFn = int (*)(void **, unsigned);
  using QueryFn = int (*)(void *);
  auto create = reinterpret_cast<StreamFn>(dlsym(libcuda, "cuStreamCreate"));
  auto query = reinterpret_cast<QueryFn>(dlsym(libcuda, "cuStreamQuery"));
  auto destroy =
      reinterpret_cast<QueryFn>(dlsym(libcuda, "cuStreamDestroy_v2"));
  ASSERT_TRUE(create && query && destroy);
  P->mem_free(dev, alloc(256)); // binds the device's context here
  void *native = nullptr;
  ASSERT_EQ(create(&native, 0), 0);
  tessera_plugin_stream wrapped = nullptr;
  ASSERT_EQ(P->stream_wrap(dev, native, &wrapped, err, sizeof(err)),
            TESSERA_PLUGIN_OK)
      << err;
  checkVadd("cuda_test_kernels.sm_80.ptx", wrapped);
  P->stream_destroy(wrapped);
  EXPECT_EQ(query(native), 0) << "the native stream was destroyed";
  EXPECT_EQ(destroy(native), 0);
  EXPECT_EQ(P->stream_wrap(dev, nullptr, &wrapped, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
}

TEST_F(CudaRuntimeGpu, SlotCountIsCheckedAgainstTheKernel) {
  // Only drivers with cuFuncGetParamInfo (12.4+) can tell; without it a short
  // launch would read past the slots, so do not try.
  void *libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  int version = 0;
  auto getVersion = libcuda ? reinterpret_cast<int (*)(int *)>(
                                  dlsym(libcuda, "cuDriverGetVersion"))
                            : nullptr;
  if (!getVersion || getVersion(&version) != 0 || version < 12040)
    GTEST_SKIP() << "driver " << version << " has no cuFuncGetParamInfo";
  tessera_plugin_module m = load("cuda_test_kernels.sm_80.ptx");
  ASSERT_NE(m, nullptr);
  tessera_plugin_kernel k = kernel(m, "tessera_kernel_vadd");
  EXPECT_EQ(launch(k, nullptr, {0, 1, 0, 1, 0, 1}, 1, 32),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_NE(std::string(err).find("takes 7 parameters but the launch has 6"),
            std::string::npos)
      << err;
  P->module_unload(m);
}

TEST_F(CudaRuntimeGpu, EncodeTensorMap) {
  auto encode = reinterpret_cast<tessera_cuda_encode_tensor_map_fn>(
      dlsym(pluginLibrary(), TESSERA_CUDA_ENCODE_TENSOR_MAP_NAME));
  ASSERT_NE(encode, nullptr);
  const uint64_t rows = 256, cols = 256;
  tessera_device_ptr buf = alloc(rows * cols * 4);
  unsigned char
      map[TESSERA_CUDA_TENSOR_MAP_BYTES + 1]; // deliberately unaligned
  uint64_t dims[2] = {cols, rows}, strides[1] = {cols * 4};
  uint32_t box[2] = {32, 64}, elementStrides[2] = {1, 1};
  int code =
      encode(map + 1, /*FLOAT32*/ 7, 2, buf, dims, strides, box, elementStrides,
             0, /*SWIZZLE_128B*/ 3, 0, 0, err, sizeof(err));
  if (code == TESSERA_PLUGIN_ERROR_UNAVAILABLE)
    GTEST_SKIP() << err;
  EXPECT_EQ(code, TESSERA_PLUGIN_OK) << err;
  // A box wider than 256 elements is rejected by the driver.
  uint32_t badBox[2] = {512, 64};
  EXPECT_EQ(encode(map + 1, 7, 2, buf, dims, strides, badBox, elementStrides, 0,
                   0, 0, 0, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_NE(std::string(err).find("cuTensorMapEncodeTiled failed"),
            std::string::npos)
      << err;
  P->mem_free(dev, buf);
}

} // namespace
