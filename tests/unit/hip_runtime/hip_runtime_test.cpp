//===- hip_runtime_test.cpp - the hip runtime plugin through its C ABI ----===//
//
// The plugin is dlopened directly (PluginUnderTest.h) and pointed at the
// stand-in for libamdhip64 ($TESSERA_HIP_LIBRARY; stand_in_hip.h), which
// runs nothing on a GPU: these tests check how the plugin drives the HIP
// module API and what it refuses, not results on AMD hardware.
//
//===----------------------------------------------------------------------===//

#include "HipTestSupport.h"
#include "PluginUnderTest.h"

#include "tessera/plugin/runtime_abi.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace tessera::test::hip;
using tessera::test::exeDir;

void *pluginLibrary() {
  static void *lib = tessera::test::openTestPlugin(TESSERA_TEST_PLUGIN_DIR,
                                                   "libtessera_hip_runtime.so");
  return lib;
}

const tessera_runtime_plugin *plugin() {
  return tessera::test::pluginTable(pluginLibrary());
}

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

/// Points the plugin at `library` for one initialize (shut down around it).
struct ScopedHipLibrary {
  explicit ScopedHipLibrary(const char *library)
      : env((plugin()->shutdown(), "TESSERA_HIP_LIBRARY"), library) {}
  ~ScopedHipLibrary() { plugin()->shutdown(); }
  ScopedEnv env;
};

//===----------------------------------------------------------------------===//
// Without a usable libamdhip64
//===----------------------------------------------------------------------===//

TEST(HipRuntimeUnavailable, PluginTable) {
  const tessera_runtime_plugin *P = plugin();
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(P->abi_major, uint32_t(TESSERA_RUNTIME_ABI_MAJOR));
  EXPECT_EQ(P->abi_minor, uint32_t(TESSERA_RUNTIME_ABI_MINOR));
  EXPECT_EQ(P->struct_size, sizeof(tessera_runtime_plugin));
  EXPECT_STREQ(P->name, "hip");
  EXPECT_NE(P->stream_wrap, nullptr);
}

TEST(HipRuntimeUnavailable, MissingLibraryIsReportedNotFatal) {
  const tessera_runtime_plugin *P = plugin();
  ASSERT_NE(P, nullptr);
  ScopedHipLibrary scoped("/nonexistent/libamdhip64.so");
  char err[512] = {};
  ASSERT_EQ(P->initialize(err, sizeof(err)), TESSERA_PLUGIN_ERROR_UNAVAILABLE);
  EXPECT_EQ(
      std::string(err).rfind(
          "libamdhip64 not found (dlopen /nonexistent/libamdhip64.so: ", 0),
      0u)
      << err;
  std::printf("unavailable: %s\n", err);
  // A second initialize reports the first result again.
  char again[512] = {};
  EXPECT_EQ(P->initialize(again, sizeof(again)),
            TESSERA_PLUGIN_ERROR_UNAVAILABLE);
  EXPECT_STREQ(again, err);
  // Every other entry fails cleanly instead of calling into nothing.
  uint32_t count = 7;
  EXPECT_EQ(P->device_count(&count, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_UNAVAILABLE);
  EXPECT_TRUE(contains(err, "not initialized")) << err;
  tessera_plugin_device dev = nullptr;
  EXPECT_EQ(P->device_open(0, &dev, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_UNAVAILABLE);
  EXPECT_EQ(dev, nullptr);
  EXPECT_EQ(P->launch(nullptr, nullptr, nullptr, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_UNAVAILABLE);
  P->device_close(nullptr);
  P->stream_destroy(nullptr);
  P->module_unload(nullptr);
}

TEST(HipRuntimeUnavailable, DefaultSearchWithoutROCm) {
  for (const char *name :
       {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"})
    if (void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) {
      dlclose(h);
      GTEST_SKIP() << name << " is installed here";
    }
  ScopedHipLibrary scoped(nullptr);
  char err[512] = {};
  ASSERT_EQ(plugin()->initialize(err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_UNAVAILABLE);
  EXPECT_EQ(std::string(err).rfind("libamdhip64 not found (dlopen "
                                   "libamdhip64.so: ",
                                   0),
            0u)
      << err;
  EXPECT_TRUE(contains(err, "also tried libamdhip64.so.6 and "
                            "libamdhip64.so.5)"))
      << err;
}

TEST(HipRuntimeUnavailable, LibraryMissingASymbol) {
  std::string path = standInPath("_no_launch");
  ScopedHipLibrary scoped(path.c_str());
  char err[512] = {};
  ASSERT_EQ(plugin()->initialize(err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_UNAVAILABLE);
  EXPECT_EQ(std::string(err), "libamdhip64 lacks hipModuleLaunchKernel (" +
                                  path +
                                  " is not the HIP runtime, or too old)");
}

TEST(HipRuntimeUnavailable, LibraryThatIsNotHip) {
  ScopedHipLibrary scoped("libc.so.6");
  char err[512] = {};
  ASSERT_EQ(plugin()->initialize(err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_UNAVAILABLE);
  EXPECT_TRUE(contains(err, "libamdhip64 lacks hipInit (libc.so.6")) << err;
}

TEST(HipRuntimeUnavailable, RuntimeWithoutDevices) {
  StandIn &si = StandIn::get();
  ASSERT_TRUE(si.ok()) << standInPath();
  si.setDeviceCount(0);
  ScopedHipLibrary scoped(standInPath().c_str());
  char err[512] = {};
  EXPECT_EQ(plugin()->initialize(err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_UNAVAILABLE);
  EXPECT_STREQ(err, "no HIP device");
  si.setDeviceCount(1);
}

//===----------------------------------------------------------------------===//
// On the stand-in
//===----------------------------------------------------------------------===//

class HipStandIn : public ::testing::Test {
protected:
  void SetUp() override { open(standInPath(), 1); }
  void open(const std::string &library, int devices) {
    P = plugin();
    ASSERT_NE(P, nullptr);
    ASSERT_TRUE(si.ok()) << standInPath();
    si.reset();
    si.setDeviceCount(devices);
    scoped = std::make_unique<ScopedHipLibrary>(library.c_str());
    ASSERT_EQ(P->initialize(err, sizeof(err)), TESSERA_PLUGIN_OK) << err;
    ASSERT_EQ(P->device_open(0, &dev, err, sizeof(err)), TESSERA_PLUGIN_OK)
        << err;
  }
  void TearDown() override {
    if (P && dev)
      P->device_close(dev);
    dev = nullptr;
    // The plugin freed everything it created on the stand-in.
    tessera_stand_in_hip_counts c = si.counts();
    EXPECT_EQ(c.allocations, 0);
    EXPECT_EQ(c.streams, nativeStreams);
    EXPECT_EQ(c.events, 0);
    EXPECT_EQ(c.modules, 0);
    scoped.reset();
    si.setDeviceCount(1);
  }

  /// Loads a compiled test kernel's hsaco.
  tessera_plugin_module load(const char *name, const char *chip = "gfx942") {
    std::vector<char> image =
        tessera::test::readFile(kernelFile(name, chip, "hsaco"));
    EXPECT_FALSE(image.empty()) << kernelFile(name, chip, "hsaco");
    tessera_plugin_module m = nullptr;
    EXPECT_EQ(
        P->module_load(dev, image.data(), image.size(), &m, err, sizeof(err)),
        TESSERA_PLUGIN_OK)
        << err;
    return m;
  }
  int loadError(const std::string &bytes) {
    tessera_plugin_module m = nullptr;
    int rc =
        P->module_load(dev, bytes.data(), bytes.size(), &m, err, sizeof(err));
    EXPECT_EQ(m, nullptr);
    return rc;
  }

  const tessera_runtime_plugin *P = nullptr;
  StandIn &si = StandIn::get();
  std::unique_ptr<ScopedHipLibrary> scoped;
  tessera_plugin_device dev = nullptr;
  char err[512] = {};
  int nativeStreams = 0; // created by a test directly on the stand-in
};

TEST_F(HipStandIn, DeviceInfo) {
  uint32_t count = 0;
  ASSERT_EQ(P->device_count(&count, err, sizeof(err)), TESSERA_PLUGIN_OK);
  EXPECT_EQ(count, 1u);
  tessera_plugin_device_info info;
  ASSERT_EQ(P->device_info(dev, &info, err, sizeof(err)), TESSERA_PLUGIN_OK)
      << err;
  EXPECT_TRUE(contains(info.name, "stand-in")) << info.name;
  EXPECT_STREQ(info.triple, "amdgcn-amd-amdhsa");
  EXPECT_STREQ(info.chip, "gfx942"); // gcnArchName gfx942:sramecc+:xnack-
  EXPECT_EQ(info.warp_size, 64u);
  EXPECT_EQ(info.max_shared_bytes_per_block, 65536u);
  EXPECT_EQ(info.compute_units, 304u);
  EXPECT_EQ(info.max_threads_per_block, 1024u);
  EXPECT_EQ(info.total_memory, uint64_t(192) << 30);
  tessera_plugin_device other = nullptr;
  EXPECT_EQ(P->device_open(1, &other, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_STREQ(err, "hip device 1 does not exist (1 present)");
  EXPECT_EQ(P->device_info(dev, nullptr, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
}

TEST_F(HipStandIn, Rocm5DevicePropertiesLayout) {
  // Without hipGetDevicePropertiesR0600 the chip comes from ROCm 5's
  // hipDeviceProp_t (gcnArchName at another offset).
  TearDown();
  open(standInPath("_rocm5"), 1);
  tessera_plugin_device_info info;
  ASSERT_EQ(P->device_info(dev, &info, err, sizeof(err)), TESSERA_PLUGIN_OK);
  EXPECT_STREQ(info.chip, "gfx942");
}

TEST_F(HipStandIn, Buffers) {
  tessera_device_ptr a = 0, b = 0;
  ASSERT_EQ(P->mem_alloc(dev, 4096, &a, err, sizeof(err)), TESSERA_PLUGIN_OK)
      << err;
  ASSERT_EQ(P->mem_alloc(dev, 4096, &b, err, sizeof(err)), TESSERA_PLUGIN_OK);
  EXPECT_EQ(si.counts().allocations, 2);
  std::vector<uint8_t> in(4096), out(4096, 0);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = uint8_t(i * 7);
  // Synchronous (NULL stream), then on a stream.
  ASSERT_EQ(
      P->copy_to_device(dev, nullptr, a, in.data(), 4096, err, sizeof(err)),
      TESSERA_PLUGIN_OK)
      << err;
  ASSERT_EQ(P->copy_device(dev, nullptr, b, a, 4096, err, sizeof(err)),
            TESSERA_PLUGIN_OK)
      << err;
  ASSERT_EQ(P->mem_set(dev, nullptr, b + 100, 0xab, 10, err, sizeof(err)),
            TESSERA_PLUGIN_OK)
      << err;
  tessera_plugin_stream s = nullptr;
  ASSERT_EQ(P->stream_create(dev, &s, err, sizeof(err)), TESSERA_PLUGIN_OK);
  ASSERT_EQ(P->copy_to_host(dev, s, out.data(), b, 4096, err, sizeof(err)),
            TESSERA_PLUGIN_OK)
      << err;
  ASSERT_EQ(P->stream_synchronize(s, err, sizeof(err)), TESSERA_PLUGIN_OK);
  for (size_t i = 0; i < in.size(); ++i)
    ASSERT_EQ(out[i], i >= 100 && i < 110 ? 0xab : in[i]) << i;
  // Zero bytes need no pointers; otherwise NULL is refused by name.
  EXPECT_EQ(P->copy_to_device(dev, s, 0, nullptr, 0, err, sizeof(err)),
            TESSERA_PLUGIN_OK);
  EXPECT_EQ(P->copy_to_device(dev, s, a, nullptr, 8, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_STREQ(err, "copy_to_device of 8 bytes: NULL source");
  EXPECT_EQ(P->copy_to_host(dev, nullptr, nullptr, a, 8, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_STREQ(err, "copy_to_host of 8 bytes: NULL destination");
  // A range HIP refuses (past the allocation) comes back with HIP's error.
  EXPECT_EQ(P->copy_to_host(dev, nullptr, out.data(), a + 4000, 200, err,
                            sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_STREQ(err, "copy_to_host: hipMemcpy failed: hipErrorInvalidValue "
                    "(invalid argument)");
  // Out of memory.
  tessera_device_ptr huge = 0;
  EXPECT_EQ(P->mem_alloc(dev, uint64_t(1) << 50, &huge, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY);
  EXPECT_TRUE(contains(err, "mem_alloc of 1125899906842624 bytes on hip "
                            "device 0: hipMalloc failed: hipErrorOutOfMemory"))
      << err;
  // A zero-byte buffer still has an address.
  tessera_device_ptr empty = 0;
  ASSERT_EQ(P->mem_alloc(dev, 0, &empty, err, sizeof(err)), TESSERA_PLUGIN_OK);
  EXPECT_NE(empty, 0u);
  P->mem_free(dev, empty);
  P->mem_free(dev, a);
  P->mem_free(dev, b);
  P->mem_free(dev, 0);
  P->stream_destroy(s);
  EXPECT_EQ(si.counts().allocations, 0);
}

TEST_F(HipStandIn, StreamsAndEvents) {
  tessera_plugin_stream s = nullptr;
  tessera_plugin_event e0 = nullptr, e1 = nullptr;
  ASSERT_EQ(P->stream_create(dev, &s, err, sizeof(err)), TESSERA_PLUGIN_OK);
  ASSERT_EQ(P->event_create(dev, &e0, err, sizeof(err)), TESSERA_PLUGIN_OK);
  ASSERT_EQ(P->event_create(dev, &e1, err, sizeof(err)), TESSERA_PLUGIN_OK);
  float ms = -1;
  // Never recorded: HIP's error, not a crash.
  EXPECT_EQ(P->event_elapsed_ms(e0, e1, &ms, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_TRUE(contains(err, "hipEventElapsedTime failed")) << err;
  ASSERT_EQ(P->event_record(e0, s, err, sizeof(err)), TESSERA_PLUGIN_OK);
  ASSERT_EQ(P->event_record(e1, nullptr, err, sizeof(err)), TESSERA_PLUGIN_OK);
  ASSERT_EQ(P->event_synchronize(e1, err, sizeof(err)), TESSERA_PLUGIN_OK);
  ASSERT_EQ(P->event_elapsed_ms(e0, e1, &ms, err, sizeof(err)),
            TESSERA_PLUGIN_OK)
      << err;
  EXPECT_FLOAT_EQ(ms, 0.25f); // the stand-in's clock: one tick apart
  EXPECT_EQ(P->event_elapsed_ms(e0, e1, nullptr, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  ASSERT_EQ(P->stream_synchronize(nullptr, err, sizeof(err)),
            TESSERA_PLUGIN_OK);

  // A stream of the stand-in's own, wrapped: the caller keeps owning it.
  void *native = si.createNativeStream();
  ASSERT_NE(native, nullptr);
  nativeStreams = 1;
  tessera_plugin_stream wrapped = nullptr;
  ASSERT_EQ(P->stream_wrap(dev, native, &wrapped, err, sizeof(err)),
            TESSERA_PLUGIN_OK);
  ASSERT_EQ(P->event_record(e0, wrapped, err, sizeof(err)), TESSERA_PLUGIN_OK);
  P->stream_destroy(wrapped);
  EXPECT_EQ(si.counts().streams, 2); // only the wrapper went
  EXPECT_EQ(P->stream_wrap(dev, nullptr, &wrapped, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  P->event_destroy(e0);
  P->event_destroy(e1);
  P->stream_destroy(s);
  EXPECT_TRUE(si.destroyNativeStream(native));
  nativeStreams = 0;
}

TEST_F(HipStandIn, UnknownAndNullHandlesAreRefused) {
  // Pointers the plugin never handed out, of the right and wrong kinds:
  // refused by name without being followed.
  alignas(64) char junk[256];
  std::memset(junk, 0x5a, sizeof(junk));
  auto badDev = reinterpret_cast<tessera_plugin_device>(junk);
  auto badStream = reinterpret_cast<tessera_plugin_stream>(junk);
  auto badEvent = reinterpret_cast<tessera_plugin_event>(junk);
  auto badModule = reinterpret_cast<tessera_plugin_module>(junk);
  auto badKernel = reinterpret_cast<tessera_plugin_kernel>(junk);
  tessera_plugin_device_info info;
  EXPECT_EQ(P->device_info(badDev, &info, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_STREQ(err, "device_info: device is not a live hip plugin handle");
  tessera_device_ptr p = 0;
  EXPECT_EQ(P->mem_alloc(badDev, 8, &p, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_EQ(P->mem_alloc(nullptr, 8, &p, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_STREQ(err, "mem_alloc: device is NULL");
  EXPECT_EQ(P->mem_alloc(dev, 8, nullptr, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  uint8_t host[8] = {};
  EXPECT_EQ(P->copy_to_device(dev, badStream, 1, host, 8, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_STREQ(err, "copy_to_device: the stream is not a live hip stream "
                    "handle");
  EXPECT_EQ(P->stream_synchronize(badStream, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_EQ(P->event_record(badEvent, nullptr, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_EQ(P->event_synchronize(nullptr, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  float ms;
  EXPECT_EQ(P->event_elapsed_ms(badEvent, badEvent, &ms, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  tessera_plugin_kernel k = nullptr;
  EXPECT_EQ(P->kernel_get(badModule, "x", &k, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_EQ(P->kernel_get(nullptr, "x", &k, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  tessera_plugin_launch launch = {};
  EXPECT_EQ(P->launch(badKernel, nullptr, &launch, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_STREQ(err, "launch: kernel is not a live hip plugin handle");
  EXPECT_EQ(P->launch(nullptr, nullptr, &launch, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  tessera_plugin_module m = nullptr;
  EXPECT_EQ(P->module_load(badDev, host, 8, &m, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  tessera_plugin_stream s = nullptr;
  EXPECT_EQ(P->stream_create(badDev, &s, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  // A handle of one kind passed as another is unknown too.
  EXPECT_EQ(P->stream_synchronize(reinterpret_cast<tessera_plugin_stream>(dev),
                                  err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  // Destroying what is not ours does nothing.
  P->device_close(badDev);
  P->stream_destroy(badStream);
  P->event_destroy(badEvent);
  P->module_unload(badModule);
  P->mem_free(badDev, 1);
  for (char c : junk)
    ASSERT_EQ(c, 0x5a); // nothing was written through them
}

TEST_F(HipStandIn, StreamOfAnotherDevice) {
  TearDown();
  open(standInPath(), 2);
  tessera_plugin_device second = nullptr;
  ASSERT_EQ(P->device_open(1, &second, err, sizeof(err)), TESSERA_PLUGIN_OK);
  tessera_plugin_stream s = nullptr;
  ASSERT_EQ(P->stream_create(second, &s, err, sizeof(err)), TESSERA_PLUGIN_OK);
  tessera_device_ptr p = 0;
  ASSERT_EQ(P->mem_alloc(dev, 16, &p, err, sizeof(err)), TESSERA_PLUGIN_OK);
  EXPECT_EQ(P->mem_set(dev, s, p, 0, 16, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_STREQ(err, "mem_set: the stream belongs to hip device 1, not 0");
  P->mem_free(dev, p);
  // Closing a device frees what was left on it.
  P->device_close(second);
  EXPECT_EQ(si.counts().streams, 0);
}

#if TESSERA_TEST_HAVE_KERNELS

TEST_F(HipStandIn, ModulesAndKernels) {
  tessera_plugin_module m = load("gemm_fp8");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(si.counts().modules, 1);
  tessera_plugin_kernel k = nullptr, again = nullptr;
  ASSERT_EQ(
      P->kernel_get(m, "tessera_kernel_gemm_fp8_e5m2", &k, err, sizeof(err)),
      TESSERA_PLUGIN_OK)
      << err;
  ASSERT_EQ(P->kernel_get(m, "tessera_kernel_gemm_fp8_e5m2", &again, err,
                          sizeof(err)),
            TESSERA_PLUGIN_OK);
  EXPECT_EQ(k, again);
  EXPECT_EQ(P->kernel_get(m, "gemm", &k, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_NOT_FOUND);
  EXPECT_STREQ(err, "kernel 'gemm' not found in the hip module (its code "
                    "object has: tessera_kernel_gemm_fp8, "
                    "tessera_kernel_gemm_fp8_e5m2)");
  EXPECT_EQ(P->kernel_get(m, nullptr, &k, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  P->module_unload(m);
  EXPECT_EQ(si.counts().modules, 0);
  // The kernel went with its module.
  tessera_plugin_launch launch = {};
  EXPECT_EQ(P->launch(again, nullptr, &launch, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
}

TEST_F(HipStandIn, RefusesImagesThatAreNotCodeObjectsForThisDevice) {
  std::string rdna =
      readText(kernelFile("elementwise_add", "gfx1100", "hsaco"));
  ASSERT_FALSE(rdna.empty());
  EXPECT_EQ(loadError(rdna), TESSERA_PLUGIN_ERROR_BAD_IMAGE);
  EXPECT_STREQ(err, "hip module image is a code object for gfx1100 "
                    "(amdhsa.target amdgcn-amd-amdhsa--gfx1100); hip device 0 "
                    "is gfx942");
  // This test binary: an x86-64 ELF.
  std::string host = readText("/proc/self/exe").substr(0, 1 << 16);
  EXPECT_EQ(loadError(host), TESSERA_PLUGIN_ERROR_BAD_IMAGE);
  EXPECT_TRUE(contains(err, "is an ELF for machine 62 (x86-64), not an "
                            "AMDGPU code object"))
      << err;
  EXPECT_EQ(loadError(std::string("\x03\x02\x23\x07\0\0\1\0", 8)),
            TESSERA_PLUGIN_ERROR_BAD_IMAGE);
  EXPECT_TRUE(contains(err, "is SPIR-V")) << err;
  EXPECT_EQ(loadError(".version 8.0\n.target sm_90a\n"),
            TESSERA_PLUGIN_ERROR_BAD_IMAGE);
  EXPECT_TRUE(contains(err, "is PTX text")) << err;
  EXPECT_EQ(loadError(""), TESSERA_PLUGIN_ERROR_BAD_IMAGE);
  EXPECT_STREQ(err, "hip module image (0 bytes) is empty");
  tessera_plugin_module m = nullptr;
  EXPECT_EQ(P->module_load(dev, nullptr, 100, &m, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_BAD_IMAGE);
  std::string ok = readText(kernelFile("gemm", "gfx942", "hsaco"));
  EXPECT_EQ(
      P->module_load(dev, ok.data(), ok.size(), nullptr, err, sizeof(err)),
      TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_EQ(si.counts().modules, 0); // nothing reached HIP
}

TEST_F(HipStandIn, RefusesCorruptCodeObjectsBeforeHip) {
  std::string image = readText(kernelFile("gemm", "gfx942", "hsaco"));
  ASSERT_FALSE(image.empty());
  // Truncated: HIP's hipModuleLoadData takes no size, so the plugin must
  // catch it.
  EXPECT_EQ(loadError(image.substr(0, image.size() - 100)),
            TESSERA_PLUGIN_ERROR_BAD_IMAGE);
  EXPECT_TRUE(contains(err, "is truncated or corrupt: its section headers "
                            "end at byte"))
      << err;
  // The metadata note's MessagePack broken.
  size_t at = image.find("amdhsa.kernels");
  ASSERT_NE(at, std::string::npos);
  std::string broken = image;
  broken[at - 1] = char(0xc1);
  EXPECT_EQ(loadError(broken), TESSERA_PLUGIN_ERROR_BAD_IMAGE);
  EXPECT_TRUE(contains(err, "MessagePack")) << err;
  EXPECT_EQ(si.counts().modules, 0);
  // And HIP's own refusal comes back with HIP's words.
  si.failNext("hipModuleLoadData", 200);
  EXPECT_EQ(loadError(image), TESSERA_PLUGIN_ERROR_BAD_IMAGE);
  EXPECT_STREQ(err, "cannot load the code object for gfx942 (1 kernels): "
                    "hipModuleLoadData failed: hipErrorInvalidImage (device "
                    "kernel image is invalid)");
}

TEST_F(HipStandIn, LaunchPacksTheKernargSegment) {
  tessera_plugin_module m = load("scalars");
  ASSERT_NE(m, nullptr);
  tessera_plugin_kernel k = nullptr;
  ASSERT_EQ(P->kernel_get(m, "tessera_kernel_scalars", &k, err, sizeof(err)),
            TESSERA_PLUGIN_OK)
      << err;
  std::vector<NoteKernel> notes =
      parseNotes(readText(kernelFile("scalars", "gfx942", "notes")));
  const NoteKernel *note = findNote(notes, "tessera_kernel_scalars");
  ASSERT_NE(note, nullptr);
  // X, N, flag, b, h, s, i, l, d, f, Y, N: junk in every slot's high bytes
  // that a value narrower than 8 bytes must not carry into the segment.
  double d = 2.5;
  float f = 0.5f;
  uint64_t dBits, fBits = 0;
  std::memcpy(&dBits, &d, 8);
  std::memcpy(&fBits, &f, 4);
  std::vector<uint64_t> slots = {
      0x00007f0012345600ull,         1000,
      0xffffffffffffff01ull,  // i1 true
      0xfffffffffffffffbull,  // i8 -5
      0xdead00000000'3c00ull, // f16 1.0
      0xfffffffffffffed4ull,  // i16 -300
      0xbeef00000001e240ull,  // i32 123456
      uint64_t(-(int64_t(1) << 40)), dBits, 0x5555555500000000ull | fBits,
      0x00007f0012345a00ull,         1000};
  void *native = si.createNativeStream();
  ASSERT_NE(native, nullptr);
  tessera_plugin_stream s = nullptr;
  ASSERT_EQ(P->stream_wrap(dev, native, &s, err, sizeof(err)),
            TESSERA_PLUGIN_OK);
  tessera_plugin_launch launch = {};
  launch.grid[0] = 4;
  launch.grid[1] = launch.grid[2] = 1;
  launch.block[0] = 64;
  launch.block[1] = launch.block[2] = 1;
  launch.num_slots = uint32_t(slots.size());
  launch.slots = slots.data();
  ASSERT_EQ(P->launch(k, s, &launch, err, sizeof(err)), TESSERA_PLUGIN_OK)
      << err;
  tessera_stand_in_hip_launch rec;
  ASSERT_EQ(si.launchAt(0, &rec), 0);
  EXPECT_STREQ(rec.function, "tessera_kernel_scalars");
  EXPECT_EQ(rec.grid[0], 4u);
  EXPECT_EQ(rec.block[0], 64u);
  EXPECT_EQ(rec.shared_bytes, 0u);
  EXPECT_EQ(rec.stream, native);
  EXPECT_EQ(note->kernargSegmentSize, 72u);
  expectKernarg(rec, *note, slots);
  // The i32's bytes, spelled out: 123456 at offset 24, nothing of 0xbeef.
  EXPECT_EQ(rec.kernarg[24], 0x40);
  EXPECT_EQ(rec.kernarg[27], 0x00);
  EXPECT_EQ(rec.kernarg[28], 0x00);
  P->stream_destroy(s);
  EXPECT_TRUE(si.destroyNativeStream(native));
  P->module_unload(m);
}

TEST_F(HipStandIn, LaunchRefusals) {
  tessera_plugin_module m = load("gemm");
  ASSERT_NE(m, nullptr);
  tessera_plugin_kernel k = nullptr;
  ASSERT_EQ(P->kernel_get(m, "tessera_kernel_gemm", &k, err, sizeof(err)),
            TESSERA_PLUGIN_OK)
      << err;
  std::vector<uint64_t> slots(9, 64);
  tessera_plugin_launch good = {};
  good.grid[0] = good.grid[1] = good.grid[2] = 1;
  good.block[0] = 128;
  good.block[1] = good.block[2] = 1;
  good.shared_bytes = 49152;
  good.num_slots = 9;
  good.slots = slots.data();
  ASSERT_EQ(P->launch(k, nullptr, &good, err, sizeof(err)), TESSERA_PLUGIN_OK)
      << err;

  auto refused = [&](tessera_plugin_launch l) {
    int rc = P->launch(k, nullptr, &l, err, sizeof(err));
    EXPECT_EQ(rc, TESSERA_PLUGIN_ERROR_INVALID) << err;
    return std::string(err);
  };
  tessera_plugin_launch l = good;
  l.num_slots = 8;
  EXPECT_EQ(refused(l), "launch of 'tessera_kernel_gemm': the kernel takes 9 "
                        "arguments (the .args of its code object) but the "
                        "launch has 8 slots");
  l = good;
  l.slots = nullptr;
  EXPECT_EQ(refused(l),
            "launch of 'tessera_kernel_gemm': 9 slots but slots is NULL");
  l = good;
  l.shared_bytes = 65537;
  EXPECT_EQ(refused(l), "launch of 'tessera_kernel_gemm': 65537 bytes of "
                        "dynamic LDS and the kernel's 0 bytes of static LDS "
                        "exceed the 65536 bytes a block may use on gfx942");
  l = good;
  l.block[0] = 256;
  EXPECT_EQ(refused(l), "launch of 'tessera_kernel_gemm': blocks of 256x1x1 "
                        "threads, but the kernel was compiled for 128x1x1 "
                        "(.reqd_workgroup_size)");
  l = good;
  l.grid[1] = 0;
  EXPECT_TRUE(contains(refused(l), "has an empty dimension"));
  l = good;
  l.grid[0] = 0x2000000; // x 128 threads > 2^32 - 1 work-items
  EXPECT_TRUE(contains(refused(l), "exceed 2^32 - 1 work-items"));
  EXPECT_EQ(P->launch(k, nullptr, nullptr, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  EXPECT_STREQ(err, "launch of 'tessera_kernel_gemm': launch is NULL");
  EXPECT_EQ(si.counts().launches, 1); // only the good one reached HIP

  // HIP's own failure, with HIP's words and the launch's shape.
  si.failNext("hipModuleLaunchKernel", 719);
  EXPECT_EQ(P->launch(k, nullptr, &good, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_LAUNCH);
  EXPECT_STREQ(err, "launch of 'tessera_kernel_gemm' (grid 1x1x1, block "
                    "128x1x1, 49152 bytes of dynamic LDS): "
                    "hipModuleLaunchKernel failed: hipErrorLaunchFailure "
                    "(unspecified launch failure)");
  P->module_unload(m);
}

TEST_F(HipStandIn, CloseFreesWhatTheHostLeft) {
  tessera_plugin_module m = load("elementwise_add");
  ASSERT_NE(m, nullptr);
  tessera_plugin_kernel k = nullptr;
  ASSERT_EQ(
      P->kernel_get(m, "tessera_kernel_elementwise_add", &k, err, sizeof(err)),
      TESSERA_PLUGIN_OK);
  tessera_plugin_stream s = nullptr;
  tessera_plugin_event e = nullptr;
  ASSERT_EQ(P->stream_create(dev, &s, err, sizeof(err)), TESSERA_PLUGIN_OK);
  ASSERT_EQ(P->event_create(dev, &e, err, sizeof(err)), TESSERA_PLUGIN_OK);
  P->device_close(dev);
  dev = nullptr;
  tessera_stand_in_hip_counts c = si.counts();
  EXPECT_EQ(c.modules, 0);
  EXPECT_EQ(c.streams, 0);
  EXPECT_EQ(c.events, 0);
  // Their handles are dead now.
  EXPECT_EQ(P->stream_synchronize(s, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
  tessera_plugin_launch launch = {};
  EXPECT_EQ(P->launch(k, nullptr, &launch, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_INVALID);
}

#endif // TESSERA_TEST_HAVE_KERNELS

TEST_F(HipStandIn, AfterShutdownEverythingIsUnavailable) {
  tessera_device_ptr p = 0;
  ASSERT_EQ(P->mem_alloc(dev, 64, &p, err, sizeof(err)), TESSERA_PLUGIN_OK);
  P->mem_free(dev, p);
  P->shutdown();
  EXPECT_EQ(P->mem_alloc(dev, 64, &p, err, sizeof(err)),
            TESSERA_PLUGIN_ERROR_UNAVAILABLE);
  EXPECT_STREQ(err, "hip plugin is not initialized (or initialize failed)");
  P->device_close(dev); // still releases the wrapper
  dev = nullptr;
}

} // namespace
