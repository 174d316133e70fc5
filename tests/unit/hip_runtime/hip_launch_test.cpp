//===- hip_launch_test.cpp - hip kernels through the tessera runtime ------===//
//
// Real tile kernels, compiled for gfx942 by the hip compiler at build time,
// loaded from their bundles through the tessera runtime and launched on the
// hip plugin with $TESSERA_HIP_LIBRARY pointing at the stand-in for
// libamdhip64 (stand_in_hip.h). The stand-in runs nothing; it records each
// hipModuleLaunchKernel call, and the tests check the record against what
// LLVM says of the code object (`llvm-readelf --notes`: the kernel's
// symbol, .kernarg_segment_size, each argument's .offset/.size,
// .reqd_workgroup_size) and what the bundle says (`tessera info`: threads,
// dynamic LDS): grid and block as the kernel asks, every argument's bytes
// where the kernel reads them, dynamic LDS as the image requires. This is
// the launch path checked against an ABI test double: nothing here ran on
// an AMD GPU.
//
//===----------------------------------------------------------------------===//

#include "HipTestSupport.h"

#include "tessera/runtime.h"
#include "tessera/runtime.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

namespace {

using namespace tessera::test::hip;
using tessera::test::exeDir;

/// A runtime over this build tree's plugins only, with the hip plugin
/// pointed at `library`.
struct HipRuntime {
  explicit HipRuntime(const char *library)
      : hipLibrary("TESSERA_HIP_LIBRARY", library),
        pluginPath("TESSERA_PLUGIN_PATH", nullptr) {
    std::string dir = exeDir() + "/" TESSERA_TEST_PLUGIN_DIR;
    tessera_runtime_options options = {};
    options.plugin_path = dir.c_str();
    options.skip_default_plugin_dir = 1;
    runtime = tessera::Runtime::create(&options);
    for (const tessera::Device &d : runtime.devices()) {
      tessera_device_info info = d.info();
      if (std::string(info.plugin) == "hip" && !hip)
        hip = d.get();
      if (std::string(info.plugin) == "cpu" && !cpu)
        cpu = d.get();
    }
  }
  const tessera_plugin_info *plugin(const std::string &name) {
    plugins = runtime.plugins();
    for (const tessera_plugin_info &p : plugins)
      if (name == p.name)
        return &p;
    return nullptr;
  }

  ScopedEnv hipLibrary, pluginPath;
  tessera::Runtime runtime;
  std::vector<tessera_plugin_info> plugins;
  tessera_device_t hip = nullptr, cpu = nullptr;
};

uint64_t address(const tessera::Buffer &b) {
  return tessera_buffer_device_address(b.get());
}

TEST(HipLaunch, WithoutLibamdhip64TheRestOfTesseraKeepsWorking) {
  HipRuntime rt("/nonexistent/libamdhip64.so");
  const tessera_plugin_info *hip = rt.plugin("hip");
  ASSERT_NE(hip, nullptr);
  EXPECT_EQ(hip->state, TESSERA_PLUGIN_UNAVAILABLE);
  EXPECT_EQ(std::string(hip->message)
                .rfind("libamdhip64 not found (dlopen "
                       "/nonexistent/libamdhip64.so: ",
                       0),
            0u)
      << hip->message;
  EXPECT_EQ(hip->device_count, 0u);
  EXPECT_EQ(rt.hip, nullptr);
  // The CPU device works as ever.
  ASSERT_NE(rt.cpu, nullptr);
  tessera::Device cpu(rt.cpu);
  tessera::Buffer b = cpu.alloc(64);
  std::vector<uint8_t> in(64, 7), out(64, 0);
  b.write(in.data(), 64);
  b.read(out.data(), 64);
  EXPECT_EQ(in, out);
#if TESSERA_TEST_HAVE_KERNELS
  // A bundle of hip images still reads; it has nothing for the CPU.
  tessera_module_t m = nullptr;
  std::string tsb = kernelFile("gemm", "gfx942", "tsb");
  tessera_status_t s = tessera_module_load_bundle_file(rt.cpu, tsb.c_str(), &m);
  EXPECT_EQ(tessera_status_code(s), TESSERA_INCOMPATIBLE);
  EXPECT_NE(
      std::string(tessera_status_message(s)).find("amdgcn-amd-amdhsa:gfx942"),
      std::string::npos)
      << tessera_status_message(s);
  tessera_status_free(s);
#endif
}

TEST(HipLaunch, StandInDevice) {
  ASSERT_TRUE(StandIn::get().ok()) << standInPath();
  HipRuntime rt(standInPath().c_str());
  const tessera_plugin_info *hip = rt.plugin("hip");
  ASSERT_NE(hip, nullptr);
  EXPECT_EQ(hip->state, TESSERA_PLUGIN_READY) << hip->message;
  ASSERT_NE(rt.hip, nullptr);
  tessera_device_info info = tessera::Device(rt.hip).info();
  EXPECT_STREQ(info.triple, "amdgcn-amd-amdhsa");
  EXPECT_STREQ(info.chip, "gfx942");
  EXPECT_EQ(info.warp_size, 64u);
  EXPECT_EQ(info.max_shared_bytes_per_block, 65536u);
  EXPECT_NE(std::string(info.name).find("stand-in"), std::string::npos);
}

TEST(HipLaunch, BuffersStreamsAndEventsThroughTheRuntime) {
  StandIn &si = StandIn::get();
  ASSERT_TRUE(si.ok());
  HipRuntime rt(standInPath().c_str());
  ASSERT_NE(rt.hip, nullptr);
  tessera::Device dev(rt.hip);
  {
    tessera::Buffer a = dev.alloc(1024), b = dev.alloc(1024);
    tessera::Stream s = dev.createStream();
    tessera::Event e0 = dev.createEvent(), e1 = dev.createEvent();
    std::vector<uint8_t> in(1024), out(1024);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = uint8_t(i);
    e0.record(&s);
    a.write(in.data(), 1024, 0, &s);
    tessera::check(tessera_buffer_copy(b.get(), 0, a.get(), 0, 1024, s.get()));
    tessera::check(tessera_buffer_fill(b.get(), s.get(), 10, 0xee, 4));
    b.read(out.data(), 1024, 0, &s);
    e1.record(&s);
    s.synchronize();
    e1.synchronize();
    for (size_t i = 0; i < in.size(); ++i)
      ASSERT_EQ(out[i], i >= 10 && i < 14 ? 0xee : in[i]) << i;
    EXPECT_GT(e1.elapsedSince(e0), 0.0f);
    EXPECT_EQ(si.counts().allocations, 2);
  }
  EXPECT_EQ(si.counts().allocations, 0);
  EXPECT_EQ(si.counts().streams, 0);
  EXPECT_EQ(si.counts().events, 0);
}

#if TESSERA_TEST_HAVE_KERNELS

class HipKernels : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(si.ok()) << standInPath();
    si.reset();
    rt = std::make_unique<HipRuntime>(standInPath().c_str());
    ASSERT_NE(rt->hip, nullptr);
    dev = std::make_unique<tessera::Device>(rt->hip);
  }
  void TearDown() override {
    buffers.clear();
    modules.clear();
    dev.reset();
    rt.reset();
    tessera_stand_in_hip_counts c = si.counts();
    EXPECT_EQ(c.allocations, 0);
    EXPECT_EQ(c.modules, 0);
  }

  tessera::Kernel kernel(const std::string &bundle, const std::string &name) {
    modules.push_back(dev->loadBundle(kernelFile(bundle, "gfx942", "tsb")));
    return modules.back().kernel(name);
  }
  /// A buffer for a tensor of `elements` of `bytes` each.
  const tessera::Buffer &buffer(uint64_t elements, uint64_t bytes) {
    buffers.push_back(dev->alloc(elements * bytes));
    return buffers.back();
  }

  /// Launches `name` of `bundle` and checks the one hipModuleLaunchKernel it
  /// makes against the code object's notes and the bundle's info.
  void launchAndCheck(const std::string &bundle, const std::string &name,
                      const std::vector<tessera_arg> &args,
                      const std::vector<uint64_t> &slots,
                      std::array<uint32_t, 3> grid,
                      tessera_stream_t stream = nullptr,
                      void *nativeStream = nullptr) {
    SCOPED_TRACE(bundle + ": " + name);
    tessera::Kernel k = kernel(bundle, name);
    si.reset();
    tessera::check(tessera_kernel_launch(k.get(), stream, args.data(),
                                         uint32_t(args.size())));
    ASSERT_EQ(si.counts().launches, 1);
    tessera_stand_in_hip_launch rec;
    ASSERT_EQ(si.launchAt(0, &rec), 0);

    std::vector<NoteKernel> notes =
        parseNotes(readText(kernelFile(bundle, "gfx942", "notes")));
    std::vector<InfoKernel> infos =
        parseInfo(readText(kernelFile(bundle, "gfx942", "info")));
    const NoteKernel *note = findNote(notes, "tessera_kernel_" + name);
    ASSERT_NE(note, nullptr) << "no notes for tessera_kernel_" << name;
    const InfoKernel *info = nullptr;
    for (const InfoKernel &i : infos)
      if (i.name == name)
        info = &i;
    ASSERT_NE(info, nullptr);

    // The function the code object names; the grid the kernel's formula
    // gives for these shapes.
    EXPECT_EQ(std::string(rec.function), note->name);
    EXPECT_EQ(info->symbol, note->name);
    EXPECT_EQ(rec.grid[0], grid[0]);
    EXPECT_EQ(rec.grid[1], grid[1]);
    EXPECT_EQ(rec.grid[2], grid[2]);
    // The block the kernel was compiled for.
    ASSERT_EQ(note->reqdWorkgroupSize.size(), 3u);
    for (int d = 0; d < 3; ++d)
      EXPECT_EQ(rec.block[d], note->reqdWorkgroupSize[d]) << d;
    EXPECT_EQ(rec.block[0], info->threads);
    EXPECT_LE(rec.block[0] * rec.block[1] * rec.block[2],
              note->maxFlatWorkgroupSize);
    EXPECT_EQ(note->wavefrontSize, 64u);
    // Dynamic LDS: what distribution planned (the bundle), within what the
    // chip has beside the code object's static LDS.
    EXPECT_EQ(rec.shared_bytes, info->sharedBytes);
    EXPECT_LE(rec.shared_bytes + note->groupSegmentFixedSize, 65536u);
    EXPECT_EQ(rec.stream, nativeStream);
    EXPECT_EQ(rec.device, 0);
    // Every argument's bytes at its offset.
    expectKernarg(rec, *note, slots);
  }

  StandIn &si = StandIn::get();
  std::unique_ptr<HipRuntime> rt;
  std::unique_ptr<tessera::Device> dev;
  std::vector<tessera::Module> modules;
  std::deque<tessera::Buffer> buffers; // references stay valid
};

TEST_F(HipKernels, ElementwiseAdd) {
  const int64_t n = 5000;
  const tessera::Buffer &a = buffer(n, 4), &b = buffer(n, 4), &c = buffer(n, 4);
  launchAndCheck("elementwise_add", "elementwise_add",
                 {a.tensor(TESSERA_DTYPE_F32, {n}),
                  b.tensor(TESSERA_DTYPE_F32, {n}),
                  c.tensor(TESSERA_DTYPE_F32, {n})},
                 {address(a), n, address(b), n, address(c), n},
                 {5, 1, 1}); // ceildiv(5000, 1024)
}

TEST_F(HipKernels, GemmWithDynamicLds) {
  const int64_t m = 256, n = 384, k = 64;
  const tessera::Buffer &a = buffer(m * k, 2), &b = buffer(k * n, 2),
                        &c = buffer(m * n, 2);
  launchAndCheck("gemm", "gemm",
                 {a.tensor(TESSERA_DTYPE_F16, {m, k}),
                  b.tensor(TESSERA_DTYPE_F16, {k, n}),
                  c.tensor(TESSERA_DTYPE_F16, {m, n})},
                 {address(a), m, k, address(b), k, n, address(c), m, n},
                 {3, 2, 1}); // ceildiv(N, 128), ceildiv(M, 128)
}

TEST_F(HipKernels, TwoKernelsOfOneCodeObject) {
  const int64_t m = 128, n = 256, k = 64;
  for (auto [name, dtype] :
       {std::pair{"gemm_fp8", TESSERA_DTYPE_F8E4M3},
        std::pair{"gemm_fp8_e5m2", TESSERA_DTYPE_F8E5M2}}) {
    const tessera::Buffer &a = buffer(m * k, 1), &b = buffer(n * k, 1),
                          &c = buffer(m * n, 2);
    launchAndCheck("gemm_fp8", name,
                   {a.tensor(dtype, {m, k}), b.tensor(dtype, {n, k}),
                    c.tensor(TESSERA_DTYPE_F16, {m, n})},
                   {address(a), m, k, address(b), n, k, address(c), m, n},
                   {2, 1, 1});
  }
}

TEST_F(HipKernels, RmsnormWithAnF32Scalar) {
  const int64_t m = 10, n = 3000;
  const tessera::Buffer &x = buffer(m * n, 4), &w = buffer(n, 4),
                        &y = buffer(m * n, 4);
  float eps = 1e-5f;
  uint32_t epsBits;
  std::memcpy(&epsBits, &eps, 4);
  launchAndCheck("rmsnorm", "rmsnorm",
                 {x.tensor(TESSERA_DTYPE_F32, {m, n}),
                  w.tensor(TESSERA_DTYPE_F32, {n}),
                  y.tensor(TESSERA_DTYPE_F32, {m, n}), tessera_arg_f32(eps)},
                 {address(x), m, n, address(w), n, address(y), m, n, epsBits},
                 {3, 1, 1}); // ceildiv(M, 4)
}

TEST_F(HipKernels, FlashAttentionWithAllOfLdsOnAStream) {
  const int64_t b = 2, h = 3, s = 200, d = 128;
  std::vector<tessera_arg> args;
  std::vector<uint64_t> slots;
  for (int t = 0; t < 4; ++t) {
    const tessera::Buffer &q = buffer(b * h * s * d, 2);
    args.push_back(q.tensor(TESSERA_DTYPE_F16, {b, h, s, d}));
    for (uint64_t v :
         {address(q), uint64_t(b), uint64_t(h), uint64_t(s), uint64_t(d)})
      slots.push_back(v);
  }
  float scale = 0.08838834764f;
  uint32_t scaleBits;
  std::memcpy(&scaleBits, &scale, 4);
  args.push_back(tessera_arg_i64(TESSERA_DTYPE_I32, 1));
  args.push_back(tessera_arg_f32(scale));
  slots.push_back(1);
  slots.push_back(scaleBits);
  // On the caller's own stream (a native stream of the stand-in, wrapped).
  void *native = si.createNativeStream();
  ASSERT_NE(native, nullptr);
  tessera_stream_t stream = nullptr;
  tessera::check(tessera_stream_wrap(rt->hip, native, &stream));
  launchAndCheck("flash_attention_fwd", "flash_attention_fwd", args, slots,
                 {4, 3, 2}, // ceildiv(S, 64), H, B
                 stream, native);
  tessera_stream_destroy(stream);
  EXPECT_TRUE(si.destroyNativeStream(native));
}

TEST_F(HipKernels, ScalarsOfEveryWidth) {
  const int64_t n = 1000;
  const tessera::Buffer &x = buffer(n, 4), &y = buffer(n, 4);
  tessera_arg half = {};
  half.kind = TESSERA_ARG_SCALAR;
  half.u.scalar.dtype = TESSERA_DTYPE_F16;
  half.u.scalar.value.bits = 0x3c00; // 1.0
  double dv = 2.5;
  float fv = 0.5f;
  uint64_t dBits;
  uint32_t fBits;
  std::memcpy(&dBits, &dv, 8);
  std::memcpy(&fBits, &fv, 4);
  const int64_t big = -(int64_t(1) << 40);
  launchAndCheck(
      "scalars", "scalars",
      {x.tensor(TESSERA_DTYPE_F32, {n}), tessera_arg_i64(TESSERA_DTYPE_I1, 1),
       tessera_arg_i64(TESSERA_DTYPE_I8, -5), half,
       tessera_arg_i64(TESSERA_DTYPE_I16, -300),
       tessera_arg_i64(TESSERA_DTYPE_I32, 123456),
       tessera_arg_i64(TESSERA_DTYPE_I64, big), tessera_arg_f64(dv),
       tessera_arg_f32(fv), y.tensor(TESSERA_DTYPE_F32, {n})},
      {address(x), n, 1, uint64_t(int64_t(-5)), 0x3c00, uint64_t(int64_t(-300)),
       123456, uint64_t(big), dBits, fBits, address(y), n},
      {4, 1, 1}); // ceildiv(N, 256)
}

TEST_F(HipKernels, EmptyGridLaunchesNothing) {
  const tessera::Buffer &a = buffer(1, 4);
  tessera::Kernel k = kernel("elementwise_add", "elementwise_add");
  si.reset();
  k.launch({a.tensor(TESSERA_DTYPE_F32, {0}), a.tensor(TESSERA_DTYPE_F32, {0}),
            a.tensor(TESSERA_DTYPE_F32, {0})});
  EXPECT_EQ(si.counts().launches, 0);
}

TEST_F(HipKernels, HipFailuresComeBackAsStatuses) {
  const int64_t n = 16;
  const tessera::Buffer &a = buffer(n, 4);
  tessera::Kernel k = kernel("elementwise_add", "elementwise_add");
  si.failNext("hipModuleLaunchKernel", 719);
  std::vector<tessera_arg> args(3, a.tensor(TESSERA_DTYPE_F32, {n}));
  tessera_status_t s = tessera_kernel_launch(k.get(), nullptr, args.data(), 3);
  EXPECT_EQ(tessera_status_code(s), TESSERA_LAUNCH_FAILED);
  EXPECT_NE(std::string(tessera_status_message(s))
                .find("hipModuleLaunchKernel failed: hipErrorLaunchFailure"),
            std::string::npos)
      << tessera_status_message(s);
  tessera_status_free(s);
}

#endif // TESSERA_TEST_HAVE_KERNELS

} // namespace
