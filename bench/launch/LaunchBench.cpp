//===- LaunchBench.cpp - host cost of one tessera_kernel_launch -----------===//
//
//   tessera-bench-launch --bundle elementwise_add.tsb [--device cuda|cpu]
//                        [--n 1] [--iters 100000] [--rounds 5]
//                        [--raw-cubin k.cubin --raw-kernel name]
//
// Loads a bundle, prepares the arguments once (three f32 tensors of N
// elements: elementwise_add's A, B, C), then times back-to-back
// tessera_kernel_launch calls on one stream: host wall clock per call. JSON
// out, medians over --rounds of:
//   launch_us           --iters launches, the final synchronize excluded;
//   launch_sync1000_us  the same, with a stream synchronize after every 1000
//                       launches (not timed) so the device queue never fills
//                       and blocks the host;
//   prepare_us          tessera_kernel_prepare_launch: the runtime's argument
//                       checks, grid formulas and slot packing, no plugin;
//   empty_grid_us       a launch with N = 0 (grid 0: the runtime returns
//                       before the plugin): the runtime's launch path alone.
// With --raw-cubin (CUDA only) also raw_culaunch_us: cuLaunchKernel of a
// kernel of the same signature from a cubin, through libcuda directly on
// its own stream: the driver's floor under the plugin.
//
//===----------------------------------------------------------------------===//

#include "tessera/runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

double nowUs() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

[[noreturn]] void die(tessera_status_t s, const char *what) {
  std::fprintf(stderr, "%s: %s\n", what, s ? tessera_status_message(s) : "");
  std::exit(1);
}
#define CHECK(call)                                                            \
  do {                                                                         \
    if (tessera_status_t s_ = (call))                                          \
      die(s_, #call);                                                          \
  } while (0)

/// cuLaunchKernel straight through libcuda, for the driver's floor.
double rawCudaLaunchUs(const std::string &cubinPath, const std::string &name,
                       int64_t n, int iters, int rounds, std::string &error) {
  using CUresult = int;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return error = "no libcuda.so.1", -1;
  auto sym = [&](const char *s) { return dlsym(lib, s); };
  auto cuInit = (CUresult (*)(unsigned))sym("cuInit");
  auto cuDeviceGet = (CUresult (*)(int *, int))sym("cuDeviceGet");
  auto cuRetain = (CUresult (*)(void **, int))sym("cuDevicePrimaryCtxRetain");
  auto cuCtxSetCurrent = (CUresult (*)(void *))sym("cuCtxSetCurrent");
  auto cuModuleLoadData =
      (CUresult (*)(void **, const void *))sym("cuModuleLoadData");
  auto cuModuleGetFunction =
      (CUresult (*)(void **, void *, const char *))sym("cuModuleGetFunction");
  auto cuMemAlloc = (CUresult (*)(uint64_t *, size_t))sym("cuMemAlloc_v2");
  auto cuStreamCreate = (CUresult (*)(void **, unsigned))sym("cuStreamCreate");
  auto cuStreamSynchronize = (CUresult (*)(void *))sym("cuStreamSynchronize");
  auto cuLaunchKernel = (CUresult (*)(
      void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
      unsigned, void *, void **, void **))sym("cuLaunchKernel");
  if (!cuInit || !cuLaunchKernel || !cuModuleLoadData)
    return error = "libcuda lacks a symbol", -1;
  std::ifstream in(cubinPath, std::ios::binary);
  std::vector<char> image((std::istreambuf_iterator<char>(in)), {});
  int dev = 0;
  void *ctx = nullptr, *mod = nullptr, *fn = nullptr, *stream = nullptr;
  uint64_t a = 0, b = 0, c = 0;
  if (image.empty() || cuInit(0) || cuDeviceGet(&dev, 0) ||
      cuRetain(&ctx, dev) || cuCtxSetCurrent(ctx) ||
      cuModuleLoadData(&mod, image.data()) ||
      cuModuleGetFunction(&fn, mod, name.c_str()) ||
      cuMemAlloc(&a, 4 * n + 4) || cuMemAlloc(&b, 4 * n + 4) ||
      cuMemAlloc(&c, 4 * n + 4) || cuStreamCreate(&stream, 0))
    return error = "setting up " + cubinPath + ":" + name + " failed", -1;
  // The test kernels' vadd: (a, an, b, bn, c, n, alpha).
  float alpha = 1.0f;
  void *params[] = {&a, &n, &b, &n, &c, &n, &alpha};
  unsigned grid = unsigned(std::max<int64_t>(1, (n + 255) / 256));
  std::vector<double> perCall;
  for (int r = 0; r < rounds + 1; ++r) {
    cuStreamSynchronize(stream);
    double t0 = nowUs();
    for (int i = 0; i < iters; ++i)
      if (cuLaunchKernel(fn, grid, 1, 1, 256, 1, 1, 0, stream, params, nullptr))
        return error = "cuLaunchKernel failed", -1;
    double t1 = nowUs();
    if (r) // the first round warms up
      perCall.push_back((t1 - t0) / iters);
  }
  cuStreamSynchronize(stream);
  return median(perCall);
}

} // namespace

int main(int argc, char **argv) {
  std::string bundle, deviceName = "cpu", rawCubin,
                      rawKernel = "tessera_kernel_vadd";
  int64_t n = 1;
  int iters = 100000, rounds = 5, syncEvery = 1000;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char * {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--bundle")
      bundle = next();
    else if (a == "--device")
      deviceName = next();
    else if (a == "--n")
      n = std::atoll(next());
    else if (a == "--iters")
      iters = std::max(1, std::atoi(next()));
    else if (a == "--rounds")
      rounds = std::max(1, std::atoi(next()));
    else if (a == "--raw-cubin")
      rawCubin = next();
    else if (a == "--raw-kernel")
      rawKernel = next();
    else {
      std::fprintf(stderr,
                   "usage: %s --bundle k.tsb [--device cuda|cpu] [--n N] "
                   "[--iters N] [--rounds N] [--raw-cubin f --raw-kernel k]\n",
                   argv[0]);
      return 2;
    }
  }
  if (bundle.empty()) {
    std::fprintf(stderr, "--bundle is required\n");
    return 2;
  }

  tessera_runtime_t rt;
  CHECK(tessera_runtime_create(&rt));
  uint32_t count = 0;
  CHECK(tessera_runtime_device_count(rt, &count));
  tessera_device_t device = nullptr;
  tessera_device_info info;
  for (uint32_t i = 0; i < count && !device; ++i) {
    tessera_device_t d;
    CHECK(tessera_runtime_device(rt, i, &d));
    CHECK(tessera_device_get_info(d, &info));
    if (deviceName == info.plugin)
      device = d;
  }
  if (!device) {
    std::fprintf(stderr, "no device of plugin '%s'\n", deviceName.c_str());
    return 1;
  }
  tessera_module_t module;
  CHECK(tessera_module_load_bundle_file(device, bundle.c_str(), &module));
  tessera_kernel_t kernel;
  CHECK(tessera_module_get_kernel(module, "elementwise_add", &kernel));
  tessera_buffer_t bufs[3];
  for (auto &b : bufs) {
    CHECK(tessera_buffer_alloc(device, uint64_t(std::max<int64_t>(n, 1)) * 4,
                               &b));
    CHECK(tessera_buffer_fill(b, nullptr, 0, 0,
                              uint64_t(std::max<int64_t>(n, 1)) * 4));
  }
  tessera_stream_t stream;
  CHECK(tessera_stream_create(device, &stream));
  tessera_arg args[3], empty[3];
  int64_t zero = 0;
  for (int i = 0; i < 3; ++i) {
    args[i] = tessera_arg_tensor(bufs[i], TESSERA_DTYPE_F32, 1, &n);
    empty[i] = tessera_arg_tensor(bufs[i], TESSERA_DTYPE_F32, 1, &zero);
  }
  tessera_launch_dims dims;
  CHECK(tessera_kernel_prepare_launch(kernel, args, 3, &dims));

  // One timed loop per round; the first round is a warm-up.
  auto measure = [&](auto &&body, bool syncInside) {
    std::vector<double> perCall;
    for (int r = 0; r < rounds + 1; ++r) {
      CHECK(tessera_stream_synchronize(stream));
      double total = 0, t0 = nowUs();
      for (int i = 0; i < iters; ++i) {
        body();
        if (syncInside && (i + 1) % syncEvery == 0) {
          double t1 = nowUs();
          total += t1 - t0;
          CHECK(tessera_stream_synchronize(stream));
          t0 = nowUs();
        }
      }
      total += nowUs() - t0;
      if (r)
        perCall.push_back(total / iters);
    }
    CHECK(tessera_stream_synchronize(stream));
    return median(perCall);
  };
  auto launch = [&] { CHECK(tessera_kernel_launch(kernel, stream, args, 3)); };
  double launchUs = measure(launch, false);
  double launchSyncUs = measure(launch, true);
  double prepareUs = measure(
      [&] { CHECK(tessera_kernel_prepare_launch(kernel, args, 3, &dims)); },
      false);
  double emptyUs = measure(
      [&] { CHECK(tessera_kernel_launch(kernel, stream, empty, 3)); }, false);

  // Correctness of what was timed: C = A + B with A, B filled below.
  std::vector<float> ha(size_t(std::max<int64_t>(n, 1)), 1.5f), hc(ha.size());
  CHECK(tessera_buffer_write(bufs[0], nullptr, 0, ha.data(), ha.size() * 4));
  CHECK(tessera_buffer_write(bufs[1], nullptr, 0, ha.data(), ha.size() * 4));
  launch();
  CHECK(tessera_stream_synchronize(stream));
  CHECK(tessera_buffer_read(bufs[2], nullptr, 0, hc.data(), hc.size() * 4));
  bool correct = n == 0 || (hc[0] == 3.0f && hc[size_t(n) - 1] == 3.0f);

  double rawUs = -1;
  std::string rawError;
  if (!rawCubin.empty())
    rawUs = rawCudaLaunchUs(rawCubin, rawKernel, n, iters, rounds, rawError);

  std::printf("{\"bench\": \"launch\", \"device\": \"%s\", \"plugin\": \"%s\", "
              "\"chip\": \"%s\", \"kernel\": \"elementwise_add\", \"n\": %lld, "
              "\"grid\": [%u, %u, %u], \"block\": %u, \"iters\": %d, "
              "\"rounds\": %d, \"launch_us\": %.3f, "
              "\"launch_sync1000_us\": %.3f, \"prepare_us\": %.3f, "
              "\"empty_grid_us\": %.3f, \"correct\": %s",
              info.name, info.plugin, info.chip, (long long)n, dims.grid[0],
              dims.grid[1], dims.grid[2], dims.block[0], iters, rounds,
              launchUs, launchSyncUs, prepareUs, emptyUs,
              correct ? "true" : "false");
  if (!rawCubin.empty()) {
    if (rawUs >= 0)
      std::printf(", \"raw_culaunch_us\": %.3f", rawUs);
    else
      std::printf(", \"raw_culaunch_error\": \"%s\"", rawError.c_str());
  }
  std::printf("}\n");

  tessera_stream_destroy(stream);
  for (auto &b : bufs)
    tessera_buffer_release(b);
  tessera_module_unload(module);
  tessera_runtime_destroy(rt);
  return correct ? 0 : 1;
}
