//===- LaunchTest.cpp - bundles, image choice, typed launches, DLPack -----===//

#include "RuntimeTestSupport.h"

#include "tessera/dlpack.h"
#include "tessera/runtime.hpp"

#include <cstring>
#include <dlfcn.h>
#include <vector>

using namespace tessera;
using namespace tessera::testing;

namespace {

/// The fake plugin's record of the last launch (it is already loaded; with
/// RTLD_NOLOAD this only finds it).
struct LastLaunch {
  LastLaunch() {
    handle = ::dlopen(TEST_GOOD_DIR "/libtessera_fake_runtime.so",
                      RTLD_NOW | RTLD_NOLOAD);
    slots = static_cast<uint64_t *>(::dlsym(handle, "fake_last_slots"));
    launch = static_cast<tessera_plugin_launch_view *>(
        ::dlsym(handle, "fake_last_launch"));
  }
  ~LastLaunch() {
    if (handle)
      ::dlclose(handle);
  }
  struct tessera_plugin_launch_view {
    uint32_t grid[3], block[3], shared_bytes, num_slots;
  };
  void *handle;
  uint64_t *slots;
  tessera_plugin_launch_view *launch;
};

class LaunchTest : public RuntimeTest {
protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    bundle::Bundle b;
    b.images.push_back(
        cpuImage("x86_64-unknown-linux-gnu", "fakechip", {axpyKernel()}));
    data = bundle::writeBundle(b);
    ASSERT_OK(tessera_module_load_bundle_memory(cpu, data.data(), data.size(),
                                                "axpy.tsb", &module));
    ASSERT_OK(tessera_module_get_kernel(module, "axpy", &kernel));
    for (auto *buffer : {&A, &B, &C})
      ASSERT_OK(tessera_buffer_alloc(cpu, 1000 * sizeof(float), buffer));
  }
  void TearDown() override {
    for (auto *buffer : {A, B, C})
      tessera_buffer_release(buffer);
    tessera_module_unload(module);
    RuntimeTest::TearDown();
  }
  std::vector<tessera_arg> args(int64_t n = 1000) {
    return {tessera_arg_tensor(A, TESSERA_DTYPE_F32, 1, &n),
            tessera_arg_tensor(B, TESSERA_DTYPE_F32, 1, &n),
            tessera_arg_tensor(C, TESSERA_DTYPE_F32, 1, &n),
            tessera_arg_f32(2.0f)};
  }
  std::string launchError(const std::vector<tessera_arg> &a) {
    return failure(tessera_kernel_launch(kernel, nullptr, a.data(),
                                         static_cast<uint32_t>(a.size())),
                   TESSERA_INVALID_ARGUMENT);
  }

  std::string data;
  tessera_module_t module = nullptr;
  tessera_kernel_t kernel = nullptr;
  tessera_buffer_t A = nullptr, B = nullptr, C = nullptr;
};

TEST_F(LaunchTest, AxpyComputes) {
  std::vector<float> a(1000), b(1000), c(1000, -1);
  for (int i = 0; i < 1000; ++i)
    a[i] = static_cast<float>(i), b[i] = 0.5f * static_cast<float>(i);
  ASSERT_OK(tessera_buffer_write(A, nullptr, 0, a.data(), 4000));
  ASSERT_OK(tessera_buffer_write(B, nullptr, 0, b.data(), 4000));
  auto launchArgs = args();
  tessera_launch_dims dims;
  ASSERT_OK(tessera_kernel_prepare_launch(kernel, launchArgs.data(), 4, &dims));
  EXPECT_EQ(dims.grid[0], 8u);
  EXPECT_EQ(dims.grid[1], 1u);
  EXPECT_EQ(dims.block[0], 128u);
  EXPECT_EQ(dims.num_slots, 7u);
  ASSERT_OK(tessera_kernel_launch(kernel, nullptr, launchArgs.data(), 4));
  ASSERT_OK(tessera_buffer_read(C, nullptr, 0, c.data(), 4000));
  for (int i = 0; i < 1000; ++i)
    ASSERT_EQ(c[i], 2.0f * static_cast<float>(i)) << i;
}

TEST_F(LaunchTest, SlotsArePackedAsTheAbiSays) {
  auto launchArgs = args(999);
  launchArgs[1].u.tensor.byte_offset = 4;
  ASSERT_OK(tessera_kernel_launch(kernel, nullptr, launchArgs.data(), 4));
  LastLaunch last;
  ASSERT_NE(last.slots, nullptr);
  EXPECT_EQ(last.slots[0], tessera_buffer_device_address(A));
  EXPECT_EQ(last.slots[1], 999u);
  EXPECT_EQ(last.slots[2], tessera_buffer_device_address(B) + 4);
  EXPECT_EQ(last.slots[5], 999u);
  float two = 2.0f;
  uint32_t bits;
  std::memcpy(&bits, &two, 4);
  EXPECT_EQ(last.slots[6], bits);
  EXPECT_EQ(last.launch->grid[0], 8u);
  EXPECT_EQ(last.launch->num_slots, 7u);
}

TEST_F(LaunchTest, ArgumentsAreChecked) {
  auto a = args();
  a.pop_back();
  EXPECT_EQ(launchError(a), "kernel 'axpy': takes 4 arguments, got 3");
  a = args();
  a[3] = tessera_arg_f64(1.0);
  EXPECT_EQ(launchError(a),
            "kernel 'axpy': argument 'alpha' must be f32, got f64");
  a = args();
  a[0].u.tensor.dtype = TESSERA_DTYPE_F16;
  EXPECT_EQ(launchError(a), "kernel 'axpy': argument 'A' must be f32, got f16");
  a = args();
  a[3] = a[0];
  EXPECT_EQ(launchError(a),
            "kernel 'axpy': argument 'alpha' must be a scalar, got a tensor");
  a = args();
  a[1].u.tensor.rank = 2;
  EXPECT_EQ(launchError(a),
            "kernel 'axpy': argument 'B' must have rank 1, got 2");
  a = args();
  a[2].u.tensor.dims[0] = 999;
  EXPECT_EQ(launchError(a), "kernel 'axpy': dimension N is 1000 in argument "
                            "'A' but 999 in argument 'C'");
  a = args();
  a[2].u.tensor.byte_offset = 8;
  EXPECT_EQ(launchError(a), "kernel 'axpy': argument 'C' needs bytes up to "
                            "4008 but its buffer has 4000");
  a = args();
  a[0].u.tensor.buffer = nullptr;
  EXPECT_EQ(launchError(a), "kernel 'axpy': argument 'A' has no buffer");
}

TEST_F(LaunchTest, EmptyGridLaunchesNothing) {
  LastLaunch last;
  int *count = static_cast<int *>(::dlsym(last.handle, "fake_launch_count"));
  int before = *count;
  auto a = args(0);
  EXPECT_OK(tessera_kernel_launch(kernel, nullptr, a.data(), 4));
  EXPECT_EQ(*count, before);
}

TEST_F(LaunchTest, GridFormulasSeeTheDeviceComputeUnits) {
  // A persistent kernel's grid: at most so many blocks per compute unit (the
  // fake device reports one).
  bundle::KernelInfo k = axpyKernel();
  k.grid = {"min(ceildiv(N, 128), 3 * __compute_units)", "1", "1"};
  bundle::Bundle b;
  b.images.push_back(cpuImage("x86_64-unknown-linux-gnu", "fakechip", {k}));
  std::string bytes = bundle::writeBundle(b);
  tessera_module_t m;
  ASSERT_OK(tessera_module_load_bundle_memory(cpu, bytes.data(), bytes.size(),
                                              "p.tsb", &m));
  tessera_kernel_t pk;
  ASSERT_OK(tessera_module_get_kernel(m, "axpy", &pk));
  LastLaunch last;
  auto a = args();
  EXPECT_OK(tessera_kernel_launch(pk, nullptr, a.data(), 4));
  EXPECT_EQ(last.launch->grid[0], 3u);
  a = args(200); // 2 tiles: fewer than 3 units' worth
  EXPECT_OK(tessera_kernel_launch(pk, nullptr, a.data(), 4));
  EXPECT_EQ(last.launch->grid[0], 2u);
  tessera_module_unload(m);
}

TEST_F(LaunchTest, UnknownKernelListsTheKnownOnes) {
  tessera_kernel_t none;
  EXPECT_EQ(failure(tessera_module_get_kernel(module, "gemm", &none),
                    TESSERA_NOT_FOUND),
            "bundle 'axpy.tsb' has no kernel 'gemm'; it has: axpy");
  EXPECT_EQ(tessera_module_kernel_count(module), 1u);
  EXPECT_STREQ(tessera_module_kernel_name(module, 0), "axpy");
}

/// Names the kernel after the image so the test can tell which was chosen.
bundle::KernelInfo tagged(const std::string &tag) {
  bundle::KernelInfo k = axpyKernel();
  k.name = tag;
  return k;
}

std::string chosen(tessera_device_t device, const bundle::Bundle &b) {
  std::string bytes = bundle::writeBundle(b);
  tessera_module_t module;
  tessera_status_t status = tessera_module_load_bundle_memory(
      device, bytes.data(), bytes.size(), "k.tsb", &module);
  if (status)
    return "error: " + failure(status, tessera_status_code(status));
  std::string name = tessera_module_kernel_name(module, 0);
  tessera_module_unload(module);
  return name;
}

TEST_F(RuntimeTest, ImageChoicePrefersExactChip) {
  bundle::Bundle b;
  b.images.push_back(
      cpuImage("nvptx64-nvidia-cuda", "sm_90a", {tagged("sm90")}));
  b.images.push_back(
      cpuImage("x86_64-unknown-linux-gnu", "x86-64", {tagged("generic")}));
  b.images.push_back(
      cpuImage("x86_64-unknown-linux-gnu", "fakechip", {tagged("exact")}));
  b.images.push_back(
      cpuImage("nvptx64-nvidia-cuda", "sm_80", {tagged("sm80")}));
  EXPECT_EQ(chosen(cpu, b), "exact");
  EXPECT_EQ(chosen(gpu, b), "sm80");
  b.images.erase(b.images.begin() + 2, b.images.end());
  // A CPU runs any chip of its triple; a GPU needs its own chip.
  EXPECT_EQ(chosen(cpu, b), "generic");
  EXPECT_EQ(chosen(gpu, b),
            "error: bundle 'k.tsb' has no image for device 'fake device 1' "
            "(nvptx64-nvidia-cuda:sm_80); it holds nvptx64-nvidia-cuda:sm_90a, "
            "x86_64-unknown-linux-gnu:x86-64");
}

/// An image marked tessera.on_demand (bundle::kOnDemandKey), holding `text`.
bundle::Image onDemandImage(const std::string &triple, const std::string &chip,
                            const std::string &text) {
  bundle::Image image;
  image.imageKind = bundle::ImageKind::PTX;
  image.offloadKind = bundle::OffloadKind::Cuda;
  image.setString(bundle::kTripleKey, triple);
  image.setString(bundle::kArchKey, chip);
  image.setString(bundle::kOnDemandKey, "fallback kernels");
  image.bytes = text;
  return image;
}

// The on-demand images after the chosen image (same triple and chip) go to
// the plugin with module_add_on_demand_image; they are never chosen
// themselves, and those of other images stay out.
TEST_F(RuntimeTest, OnDemandImagesGoWithTheirImage) {
  LastLaunch last;
  int *count = static_cast<int *>(::dlsym(last.handle, "fake_on_demand_count"));
  auto *head = static_cast<char *>(::dlsym(last.handle, "fake_on_demand_head"));
  auto *size =
      static_cast<uint64_t *>(::dlsym(last.handle, "fake_on_demand_size"));
  ASSERT_TRUE(count && head && size);
  bundle::Bundle b;
  b.images.push_back(
      cpuImage("nvptx64-nvidia-cuda", "sm_90a", {tagged("sm90")}));
  b.images.push_back(onDemandImage("nvptx64-nvidia-cuda", "sm_90a", "twin90"));
  b.images.push_back(
      cpuImage("nvptx64-nvidia-cuda", "sm_80", {tagged("sm80")}));
  b.images.push_back(onDemandImage("nvptx64-nvidia-cuda", "sm_80", "twin80"));
  int before = *count;
  EXPECT_EQ(chosen(gpu, b), "sm80");
  EXPECT_EQ(*count, before + 1);
  EXPECT_STREQ(head, "twin80");
  EXPECT_EQ(*size, 6u);
  // The CPU's image has none.
  b.images.push_back(
      cpuImage("x86_64-unknown-linux-gnu", "fakechip", {tagged("exact")}));
  EXPECT_EQ(chosen(cpu, b), "exact");
  EXPECT_EQ(*count, before + 1);
  // An on-demand image alone is no image for the device.
  bundle::Bundle alone;
  alone.images.push_back(
      onDemandImage("nvptx64-nvidia-cuda", "sm_80", "twin80"));
  EXPECT_EQ(chosen(gpu, alone),
            "error: bundle 'k.tsb' has no image for device 'fake device 1' "
            "(nvptx64-nvidia-cuda:sm_80); it holds no images");
  // One the plugin rejects fails the load, naming it.
  b.images[3].bytes = "BAD!";
  std::string error = chosen(gpu, b);
  EXPECT_NE(error.find("image 3 (on demand)"), std::string::npos) << error;
  EXPECT_NE(error.find("not for me"), std::string::npos) << error;
}

TEST_F(RuntimeTest, BadBundlesAreRejected) {
  bundle::Bundle b;
  b.images.push_back(
      cpuImage("x86_64-unknown-linux-gnu", "fakechip", {axpyKernel()}));
  std::string bytes = bundle::writeBundle(b);
  tessera_module_t module;
  std::string message =
      failure(tessera_module_load_bundle_memory(
                  cpu, bytes.data(), bytes.size() - 100, "cut.tsb", &module),
              TESSERA_BAD_BUNDLE);
  EXPECT_NE(message.find("bundle 'cut.tsb' is truncated: image 0 ends at byte"),
            std::string::npos)
      << message;
  failure(tessera_module_load_bundle_file(cpu, "/nonexistent.tsb", &module),
          TESSERA_NOT_FOUND);
  // Metadata naming a symbol the image lacks.
  bundle::KernelInfo missing = axpyKernel();
  missing.symbol = "tessera_kernel_nope";
  b.images[0] = cpuImage("x86_64-unknown-linux-gnu", "fakechip", {missing});
  bytes = bundle::writeBundle(b);
  message = failure(tessera_module_load_bundle_memory(
                        cpu, bytes.data(), bytes.size(), "m.tsb", &module),
                    TESSERA_NOT_FOUND);
  EXPECT_NE(message.find("symbol 'tessera_kernel_nope'"), std::string::npos)
      << message;
  // Broken metadata.
  b.images[0].setString(bundle::kKernelsKey, "[[kernel]]\nname = 3\n");
  bytes = bundle::writeBundle(b);
  message = failure(tessera_module_load_bundle_memory(
                        cpu, bytes.data(), bytes.size(), "t.tsb", &module),
                    TESSERA_BAD_BUNDLE);
  EXPECT_NE(message.find("key 'name' must be a string"), std::string::npos)
      << message;
}

// A flipped byte in the image (machine code) or the metadata of a bundle is
// caught at load, before the plugin sees the image.
TEST_F(RuntimeTest, FlippedBundlesAreRejectedAtLoad) {
  bundle::Bundle b;
  b.images.push_back(
      cpuImage("x86_64-unknown-linux-gnu", "fakechip", {axpyKernel()}));
  b.images[0].bytes = std::string(64, '\x90');
  std::string good = bundle::writeBundle(b);
  size_t code = good.find(b.images[0].bytes);
  size_t meta = good.find("[[kernel]]");
  ASSERT_NE(code, std::string::npos);
  ASSERT_NE(meta, std::string::npos);
  for (size_t at : {size_t(12), meta + 3, code + 10, good.size() - 1}) {
    std::string bad = good;
    bad[at] ^= 0x20;
    tessera_module_t module;
    std::string message =
        failure(tessera_module_load_bundle_memory(cpu, bad.data(), bad.size(),
                                                  "f.tsb", &module),
                TESSERA_BAD_BUNDLE);
    EXPECT_NE(message.find("bundle 'f.tsb'"), std::string::npos) << message;
    EXPECT_NE(message.find("image 0"), std::string::npos) << message;
  }
}

TEST_F(LaunchTest, DLPackRoundTrip) {
  std::vector<float> ones(1000, 1.0f);
  ASSERT_OK(tessera_buffer_write(A, nullptr, 0, ones.data(), 4000));
  ASSERT_OK(tessera_buffer_write(B, nullptr, 0, ones.data(), 4000));
  // Export A, import the export as a new buffer, launch with it.
  tessera_arg a = args()[0];
  DLManagedTensor *exported = nullptr;
  ASSERT_OK(tessera_buffer_to_dlpack(&a.u.tensor, &exported));
  EXPECT_EQ(exported->dl_tensor.ndim, 1);
  EXPECT_EQ(exported->dl_tensor.shape[0], 1000);
  EXPECT_EQ(exported->dl_tensor.device.device_type, kDLCPU);
  EXPECT_EQ(exported->dl_tensor.dtype.code, kDLFloat);
  EXPECT_EQ(exported->dl_tensor.dtype.bits, 32);
  EXPECT_EQ(exported->dl_tensor.data,
            reinterpret_cast<void *>(tessera_buffer_device_address(A)));
  tessera_buffer_t view;
  tessera_arg imported;
  ASSERT_OK(tessera_buffer_from_dlpack(cpu, exported, &view, &imported));
  auto launchArgs = args();
  launchArgs[0] = imported;
  ASSERT_OK(tessera_kernel_launch(kernel, nullptr, launchArgs.data(), 4));
  float c0 = 0;
  ASSERT_OK(tessera_buffer_read(C, nullptr, 0, &c0, 4));
  EXPECT_EQ(c0, 3.0f);
  tessera_buffer_release(view); // runs the export's deleter
}

TEST_F(LaunchTest, DLPackImportChecks) {
  float data[6];
  int64_t shape[2] = {2, 3};
  int64_t strides[2] = {1, 2}; // column-major
  DLManagedTensor t = {};
  t.dl_tensor.data = data;
  t.dl_tensor.device = {kDLCPU, 0};
  t.dl_tensor.ndim = 2;
  t.dl_tensor.dtype = {kDLFloat, 32, 1};
  t.dl_tensor.shape = shape;
  t.dl_tensor.strides = strides;
  tessera_buffer_t buffer;
  tessera_arg arg;
  EXPECT_NE(failure(tessera_buffer_from_dlpack(cpu, &t, &buffer, &arg),
                    TESSERA_INVALID_ARGUMENT)
                .find("not compact row-major"),
            std::string::npos);
  t.dl_tensor.strides = nullptr;
  t.dl_tensor.device = {kDLCUDA, 0};
  EXPECT_NE(failure(tessera_buffer_from_dlpack(cpu, &t, &buffer, &arg),
                    TESSERA_INVALID_ARGUMENT)
                .find("device type 2"),
            std::string::npos);
  // The fake GPU device takes kDLCUDA with its ordinal.
  t.dl_tensor.device = {kDLCUDA, 1};
  static int deleted = 0;
  t.deleter = [](DLManagedTensor *) { ++deleted; };
  ASSERT_OK(tessera_buffer_from_dlpack(gpu, &t, &buffer, &arg));
  EXPECT_EQ(arg.u.tensor.rank, 2u);
  EXPECT_EQ(arg.u.tensor.dims[1], 3);
  EXPECT_EQ(tessera_buffer_size(buffer), 24u);
  tessera_buffer_release(buffer);
  EXPECT_EQ(deleted, 1);
  // DLPack 1.1's 8-bit floats both ways; a borrowed view (no deleter).
  t.deleter = nullptr;
  t.dl_tensor.dtype = {kDLFloat8_e4m3fn, 8, 1};
  ASSERT_OK(tessera_buffer_from_dlpack(gpu, &t, &buffer, &arg));
  EXPECT_EQ(arg.u.tensor.dtype, TESSERA_DTYPE_F8E4M3);
  EXPECT_EQ(tessera_buffer_size(buffer), 6u);
  DLManagedTensor *out = nullptr;
  ASSERT_OK(tessera_buffer_to_dlpack(&arg.u.tensor, &out));
  EXPECT_EQ(out->dl_tensor.dtype.code, kDLFloat8_e4m3fn);
  out->deleter(out);
  tessera_buffer_release(buffer);
  t.dl_tensor.dtype = {kDLFloat8_e5m2, 8, 1};
  ASSERT_OK(tessera_buffer_from_dlpack(gpu, &t, &buffer, &arg));
  EXPECT_EQ(arg.u.tensor.dtype, TESSERA_DTYPE_F8E5M2);
  tessera_buffer_release(buffer);
  EXPECT_EQ(deleted, 1);
}

TEST_F(LaunchTest, CppWrapper) {
  Runtime rt = Runtime::create(nullptr);
  tessera_runtime_options options = {TEST_GOOD_DIR, 1};
  Runtime fake = Runtime::create(&options);
  auto devices = fake.devices();
  ASSERT_EQ(devices.size(), 2u);
  Module m = devices[0].loadBundle(data.data(), data.size(), "axpy.tsb");
  Kernel k = m.kernel("axpy");
  Buffer x = devices[0].alloc(16), y = devices[0].alloc(16),
         z = devices[0].alloc(16);
  std::vector<float> in = {1, 2, 3, 4}, out(4);
  x.write(in.data(), 16);
  y.write(in.data(), 16);
  k.launch({x.tensor(TESSERA_DTYPE_F32, {4}), y.tensor(TESSERA_DTYPE_F32, {4}),
            z.tensor(TESSERA_DTYPE_F32, {4}), tessera_arg_f32(1.0f)});
  z.read(out.data(), 16);
  EXPECT_EQ(out, (std::vector<float>{2, 4, 6, 8}));
  try {
    m.kernel("nope");
    FAIL() << "expected an Error";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), TESSERA_NOT_FOUND);
  }
}

} // namespace
