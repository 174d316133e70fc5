//===- CmdRun.cpp - tessera run -------------------------------------------===//
//
//   tessera run k.tsb [--kernel <name>] [--shape M=1000,N=1000,...]
//               [--scalar <name>=<value>]... [--device <index>|<plugin>]
//               [--iters N] [--warmup N] [--seed S] [--flops <formula>]
//               [--fill uniform|normal] [--no-check] [--json] [--dump <dir>]
//
// Fills the kernel's tensor arguments with random data (uniform in [-1, 1),
// or standard normal with --fill normal, as torch.randn), runs it, and checks
// every tensor against the same kernel run on the host CPU from the bundle's
// CPU image (when the run itself is on another device), then prints the
// median time (and GFLOP/s with --flops "2*M*N*K"). --dump <dir> writes
// each tensor's input, checked result and reference as text, one element a
// line in row-major order (<dir>/<arg>.input.txt, .result.txt,
// .reference.txt), so a failed check shows which elements are wrong.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "HostReference.h"
#include "HostTensor.h"

#include "tessera/bundle/Bundle.h"
#include "tessera/bundle/GridExpr.h"
#include "tessera/runtime.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

using namespace tessera;
using namespace tessera::tool;

namespace {

struct RunOptions {
  std::string bundlePath, kernel, device, flops, dumpDir;
  std::map<std::string, int64_t, std::less<>> shape;
  std::map<std::string, std::string> scalars;
  int iters = 10, warmup = 2;
  uint64_t seed = 1;
  bool check = true, json = false, normal = false;
};

[[noreturn]] void fail(const std::string &msg) {
  std::fprintf(stderr, "tessera run: %s\n", msg.c_str());
  std::exit(1);
}

bool parseInt(const std::string &s, int64_t &v) {
  char *end = nullptr;
  errno = 0;
  long long x = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end || errno)
    return false;
  v = x;
  return true;
}

RunOptions parseArgs(int argc, char **argv) {
  RunOptions o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        fail(a + " needs a value");
      return argv[++i];
    };
    if (a == "--kernel")
      o.kernel = value();
    else if (a == "--device")
      o.device = value();
    else if (a == "--flops")
      o.flops = value();
    else if (a == "--no-check")
      o.check = false;
    else if (a == "--json")
      o.json = true;
    else if (a == "--dump")
      o.dumpDir = value();
    else if (a == "--fill") {
      std::string f = value();
      if (f != "uniform" && f != "normal")
        fail("--fill takes 'uniform' or 'normal', got '" + f + "'");
      o.normal = f == "normal";
    } else if (a == "--iters" || a == "--warmup" || a == "--seed") {
      int64_t v;
      std::string s = value();
      if (!parseInt(s, v) || v < 0)
        fail(a + " takes a non-negative integer, got '" + s + "'");
      if (a == "--iters")
        o.iters = int(v);
      else if (a == "--warmup")
        o.warmup = int(v);
      else
        o.seed = uint64_t(v);
    } else if (a == "--shape") {
      std::string s = value();
      size_t pos = 0;
      while (pos <= s.size()) {
        size_t comma = s.find(',', pos);
        std::string item = s.substr(
            pos, comma == std::string::npos ? std::string::npos : comma - pos);
        size_t eq = item.find('=');
        int64_t v;
        if (eq == std::string::npos || eq == 0 ||
            !parseInt(item.substr(eq + 1), v) || v < 0)
          fail("bad --shape entry '" + item +
               "': expected NAME=<size>, e.g. M=1000");
        o.shape[item.substr(0, eq)] = v;
        if (comma == std::string::npos)
          break;
        pos = comma + 1;
      }
    } else if (a == "--scalar") {
      std::string s = value();
      size_t eq = s.find('=');
      if (eq == std::string::npos || eq == 0)
        fail("bad --scalar '" + s + "': expected NAME=<value>");
      o.scalars[s.substr(0, eq)] = s.substr(eq + 1);
    } else if (!a.empty() && a[0] == '-') {
      fail("unknown option '" + a + "'");
    } else if (o.bundlePath.empty()) {
      o.bundlePath = a;
    } else {
      fail("more than one bundle given");
    }
  }
  if (o.bundlePath.empty())
    fail("usage: tessera run <bundle.tsb> [--kernel NAME] [--shape M=..,N=..] "
         "[--scalar NAME=VALUE] [--device INDEX|PLUGIN] [--iters N] [--flops "
         "FORMULA] [--dump DIR]");
  return o;
}

const bundle::Image *imageFor(const bundle::Bundle &b,
                              const tessera_device_info &d) {
  const bundle::Image *any = nullptr;
  for (const bundle::Image &img : b.images) {
    // Images marked on demand belong to the image before them.
    if (img.triple() != d.triple || img.hasString(bundle::kOnDemandKey))
      continue;
    if (img.arch() == d.chip)
      return &img;
    any = &img;
  }
  return any;
}

bool isHostDevice(const tessera_device_info &d) {
  return !std::strcmp(d.plugin, "cpu");
}

/// Which device a run without --device prefers: accelerators, then the host,
/// then software renderers that emulate a GPU on the host's cores (Mesa's
/// lavapipe), which are slower than the host's own code.
int preference(const tessera_device_info &d) {
  if (!std::strcmp(d.chip, "lavapipe"))
    return 0;
  return isHostDevice(d) ? 1 : 2;
}

/// One tensor argument as the user sized it.
struct TensorPlan {
  const bundle::KernelArg *arg;
  std::vector<int64_t> dims;
  uint64_t bytes = 0;
  /// "tensor 'A' [M=1048576, K=1048576] f16", for messages.
  std::string what;
};

std::string describeTensor(const bundle::KernelArg &a,
                           const std::vector<int64_t> &dims) {
  std::string text = "tensor '" + a.name + "' [";
  for (size_t d = 0; d < dims.size(); ++d) {
    const std::string &s = a.dims[d];
    int64_t fixed;
    if (d)
      text += ", ";
    if (!parseInt(s, fixed))
      text += (s == "?" ? a.name + "." + std::to_string(d) : s) + "=";
    text += std::to_string(dims[d]);
  }
  return text + "] " + bundle::dtypeName(a.dtype);
}

/// What the run keeps on the host of each tensor: the input, the downloaded
/// result, the device buffer when the device is the host itself, and, when
/// another device's result is checked against the host's, the host buffer
/// and its result.
std::vector<const char *> hostCopies(const tessera_device_info &device,
                                     bool check) {
  if (isHostDevice(device))
    return {"input", "device buffer", "result"};
  if (check)
    return {"input", "result", "host reference buffer", "host reference"};
  return {"input", "result"};
}

/// Sizes every tensor and refuses, before anything is allocated, a tensor
/// whose byte count overflows int64 or that does not fit in the host's or
/// the device's memory together with the tensors before it: such a run
/// would otherwise end in std::bad_alloc or the OOM killer, not a message.
void checkSizes(std::vector<TensorPlan> &plans,
                const tessera_device_info &device, bool check) {
  uint64_t hostMemory = hostAvailableBytes();
  std::vector<const char *> copies = hostCopies(device, check);
  std::string copyList;
  for (const char *c : copies)
    copyList += std::string(copyList.empty() ? "" : ", ") + c;
  uint64_t total = 0;
  for (TensorPlan &p : plans) {
    int64_t elements = 1, bytes;
    bool overflow = false;
    long double approx = bundle::dtypeBytes(p.arg->dtype);
    for (int64_t d : p.dims) {
      overflow |= __builtin_mul_overflow(elements, d, &elements);
      approx *= d;
    }
    overflow |= __builtin_mul_overflow(
        elements, int64_t(bundle::dtypeBytes(p.arg->dtype)), &bytes);
    if (overflow) {
      char size[64];
      std::snprintf(size, sizeof size, "%.4Lg", approx);
      fail("cannot allocate " + p.what + ": its size, " + size +
           " bytes, overflows int64");
    }
    p.bytes = uint64_t(bytes);
    if (__builtin_add_overflow(total, p.bytes, &total))
      total = UINT64_MAX;
    long double needed = (long double)total * copies.size();
    if (hostMemory && needed > hostMemory) {
      char text[64];
      std::snprintf(text, sizeof text, "%.0Lf", needed);
      fail("cannot allocate " + std::to_string(p.bytes) + " bytes for " +
           p.what + " on the host: with its " + std::to_string(copies.size()) +
           " copies (" + copyList + ")" +
           (total == p.bytes ? "" : " and the tensors before it") +
           " the run needs " + text + " bytes, and the host has " +
           std::to_string(hostMemory) + " bytes available");
    }
    if (!isHostDevice(device) && device.total_memory &&
        total > device.total_memory)
      fail("cannot allocate " + std::to_string(p.bytes) + " bytes for " +
           p.what + " on " + device.plugin + " device '" + device.name + "'" +
           (total == p.bytes ? ""
                             : " (with the tensors before it, " +
                                   std::to_string(total) + " bytes)") +
           ": the device has " + std::to_string(device.total_memory) +
           " bytes of memory");
  }
}

/// The arguments of one run: device buffers holding the host tensors.
struct Launchable {
  std::vector<Buffer> buffers;
  std::vector<tessera_arg> args;
};

Launchable upload(const Device &dev, const bundle::KernelInfo &k,
                  const std::vector<TensorPlan> &plans,
                  const std::vector<HostTensor> &tensors,
                  const std::vector<tessera_arg> &scalars) {
  Launchable l;
  size_t t = 0, s = 0;
  for (const bundle::KernelArg &a : k.args) {
    if (a.kind == bundle::ArgKind::Scalar) {
      l.args.push_back(scalars[s++]);
      continue;
    }
    const TensorPlan &plan = plans[t];
    const HostTensor &h = tensors[t++];
    std::optional<Buffer> allocated;
    try {
      allocated.emplace(dev.alloc(std::max<uint64_t>(h.bytes.size(), 1)));
    } catch (const Error &e) {
      // The runtime's message names the device and the plugin's reason.
      fail("cannot allocate " + std::to_string(plan.bytes) + " bytes for " +
           plan.what + " on " + dev.info().plugin + ": " + e.what());
    }
    Buffer buf = std::move(*allocated);
    if (!h.bytes.empty())
      buf.write(h.bytes.data(), h.bytes.size());
    l.args.push_back(buf.tensor(tessera_dtype_t(h.dtype), h.dims));
    l.buffers.push_back(std::move(buf));
  }
  return l;
}

/// Host memory for the tensors of `plans`: a copy of `like` when given,
/// else zeros. Exits with a message naming the tensor when it cannot.
std::vector<HostTensor> hostTensors(const std::vector<TensorPlan> &plans,
                                    const std::vector<HostTensor> *like,
                                    const char *purpose) {
  std::vector<HostTensor> out;
  out.reserve(plans.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    const TensorPlan &p = plans[i];
    try {
      if (like)
        out.push_back((*like)[i]);
      else
        out.push_back(HostTensor{p.arg->dtype, p.dims,
                                 std::vector<unsigned char>(p.bytes)});
    } catch (const std::bad_alloc &) {
      fail("cannot allocate " + std::to_string(p.bytes) + " bytes for " +
           p.what + " on the host (" + purpose + "): out of memory");
    } catch (const std::length_error &) {
      fail("cannot allocate " + std::to_string(p.bytes) + " bytes for " +
           p.what + " on the host (" + purpose + "): too large");
    }
  }
  return out;
}

std::vector<HostTensor> download(const Launchable &l,
                                 const std::vector<TensorPlan> &plans,
                                 const std::vector<HostTensor> &like) {
  std::vector<HostTensor> out = hostTensors(plans, &like, "the result");
  for (size_t i = 0; i < out.size(); ++i)
    if (!out[i].bytes.empty())
      l.buffers[i].read(out[i].bytes.data(), out[i].bytes.size());
  return out;
}

/// "passed" when every tensor is within its dtype's tolerance of the
/// reference, else "FAILED"; `worst` gets the largest relative error.
std::string compareAll(const std::vector<HostTensor> &result,
                       const std::vector<HostTensor> &ref, double &worst) {
  std::string state = "passed";
  for (size_t i = 0; i < ref.size(); ++i) {
    double err = relativeError(result[i], ref[i]);
    worst = std::max(worst, err);
    if (!(err <= toleranceFor(ref[i].dtype)))
      state = "FAILED";
  }
  return state;
}

/// Writes each tensor of `ts` to <dir>/<arg name>.<what>.txt, one element a
/// line (row-major, widened to double; %.9g round-trips f32 and narrower).
void dumpTensors(const std::string &dir, const std::vector<TensorPlan> &plans,
                 const std::vector<HostTensor> &ts, const char *what) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  for (size_t i = 0; i < ts.size() && i < plans.size(); ++i) {
    std::string path = dir + "/" + plans[i].arg->name + "." + what + ".txt";
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f)
      fail("--dump: cannot write '" + path + "'");
    for (int64_t e = 0, n = ts[i].numElements(); e < n; ++e)
      std::fprintf(f, "%.9g\n", ts[i].get(e));
    std::fclose(f);
  }
}

int run(const RunOptions &o) {
  bundle::Bundle b;
  std::string error;
  if (!bundle::readBundleFile(o.bundlePath, b, error))
    fail(error);
  Runtime rt = Runtime::create();
  std::vector<Device> devices = rt.devices();
  if (devices.empty())
    fail("no devices: no runtime plugin is available (see `tessera plugins`)");

  // Pick the device: by index, by plugin name, or the best one the bundle
  // has an image for (accelerators before the host, software renderers
  // after it).
  int chosen = -1;
  for (size_t i = 0; i < devices.size(); ++i) {
    tessera_device_info info = devices[i].info();
    bool fits = imageFor(b, info) != nullptr;
    if (!o.device.empty()) {
      int64_t idx;
      if ((parseInt(o.device, idx) && idx == int64_t(i)) ||
          o.device == info.plugin) {
        chosen = int(i);
        break;
      }
      continue;
    }
    if (fits &&
        (chosen < 0 || preference(info) > preference(devices[chosen].info())))
      chosen = int(i);
  }
  if (chosen < 0)
    fail(o.device.empty() ? "the bundle has no image for any device here"
                          : "no device '" + o.device + "'");
  Device dev = devices[chosen];
  tessera_device_info info = dev.info();
  const bundle::Image *image = imageFor(b, info);
  if (!image)
    fail("the bundle has no image for device " + std::to_string(chosen) + " (" +
         info.triple + ":" + info.chip + ")");
  std::vector<bundle::KernelInfo> kernels;
  if (!bundle::parseKernelMetadata(image->kernels(), o.bundlePath, kernels,
                                   error))
    fail(error);
  const bundle::KernelInfo *k = nullptr;
  for (const auto &x : kernels)
    if (o.kernel.empty() ? kernels.size() == 1 : x.name == o.kernel)
      k = &x;
  if (!k) {
    std::string names;
    for (const auto &x : kernels)
      names += " " + x.name;
    fail((o.kernel.empty()
              ? "the bundle has several kernels; pick one with --kernel:"
              : "no kernel '" + o.kernel + "'; the bundle has:") +
         names);
  }

  // Shapes, then sizes, then data.
  std::mt19937_64 rng(o.seed);
  std::vector<TensorPlan> plans;
  std::vector<tessera_arg> scalars;
  for (const bundle::KernelArg &a : k->args) {
    if (a.kind == bundle::ArgKind::Scalar) {
      auto it = o.scalars.find(a.name);
      std::string v = it == o.scalars.end() ? std::string() : it->second;
      if (bundle::isIntegerDType(a.dtype)) {
        int64_t x = 0;
        if (!v.empty() && !parseInt(v, x))
          fail("scalar '" + a.name + "' needs an integer, got '" + v + "'");
        scalars.push_back(tessera_arg_i64(tessera_dtype_t(a.dtype), x));
      } else {
        double x = v.empty() ? 1.0 : std::strtod(v.c_str(), nullptr);
        if (a.dtype == bundle::DType::F32)
          scalars.push_back(tessera_arg_f32(float(x)));
        else if (a.dtype == bundle::DType::F64)
          scalars.push_back(tessera_arg_f64(x));
        else
          fail("scalar '" + a.name + "' of type " + bundle::dtypeName(a.dtype) +
               " cannot be set from the command line");
      }
      continue;
    }
    std::vector<int64_t> dims;
    for (size_t d = 0; d < a.dims.size(); ++d) {
      const std::string &s = a.dims[d];
      int64_t v;
      if (parseInt(s, v)) {
        dims.push_back(v);
      } else {
        std::string key = s == "?" ? a.name + "." + std::to_string(d) : s;
        auto it = o.shape.find(key);
        if (it == o.shape.end())
          fail("dimension " + std::to_string(d) + " of '" + a.name + "' is '" +
               s + "': pass its size with --shape " + key + "=<n>");
        dims.push_back(it->second);
      }
    }
    plans.push_back({&a, dims, 0, describeTensor(a, dims)});
  }
  checkSizes(plans, info, o.check);
  std::vector<HostTensor> tensors = hostTensors(plans, nullptr, "the input");
  for (HostTensor &t : tensors)
    fillRandom(t, rng, o.normal);

  Launchable l = upload(dev, *k, plans, tensors, scalars);
  Module module = dev.loadBundle(o.bundlePath);
  Kernel kernel = module.kernel(k->name);
  tessera_launch_dims dims = kernel.prepare(l.args);
  Stream stream = dev.createStream();
  Event start = dev.createEvent(), stop = dev.createEvent();

  // First run on the pristine inputs: that is the result we check.
  kernel.launch(l.args, &stream);
  stream.synchronize();
  std::vector<HostTensor> result = download(l, plans, tensors);
  if (!o.dumpDir.empty()) {
    dumpTensors(o.dumpDir, plans, tensors, "input");
    dumpTensors(o.dumpDir, plans, result, "result");
  }

  std::string checkState = "skipped";
  double worst = 0;
  if (o.check && !isHostDevice(info)) {
    // The reference: the bundle's CPU image on the host, same inputs.
    int host = -1;
    for (size_t i = 0; i < devices.size(); ++i)
      if (isHostDevice(devices[i].info()) && imageFor(b, devices[i].info()))
        host = int(i);
    if (host >= 0) {
      Device hd = devices[host];
      Launchable hl = upload(hd, *k, plans, tensors, scalars);
      Module hostModule = hd.loadBundle(o.bundlePath);
      hostModule.kernel(k->name).launch(hl.args);
      std::vector<HostTensor> ref = download(hl, plans, tensors);
      if (!o.dumpDir.empty())
        dumpTensors(o.dumpDir, plans, ref, "reference");
      checkState = compareAll(result, ref, worst);
    } else {
      checkState = "skipped (the bundle has no host CPU image to compare with)";
    }
  } else if (o.check) {
    // On the host the reference is the tile interpreter run on the source
    // the bundle carries: an independent reading of the kernel's semantics.
    std::vector<HostTensor> ref;
    std::string why;
    if (computeReference(std::string(image->string("tessera.source")), k->name,
                         tensors, scalars, ref, why)) {
      if (!o.dumpDir.empty())
        dumpTensors(o.dumpDir, plans, ref, "reference");
      checkState = compareAll(result, ref, worst);
      checkState += " (reference: tile interpreter)";
    } else {
      checkState = "skipped (" + why + ")";
    }
  }

  for (int i = 0; i < o.warmup; ++i)
    kernel.launch(l.args, &stream);
  std::vector<float> times;
  for (int i = 0; i < o.iters; ++i) {
    start.record(&stream);
    kernel.launch(l.args, &stream);
    stop.record(&stream);
    stop.synchronize();
    times.push_back(stop.elapsedSince(start));
  }
  std::sort(times.begin(), times.end());
  double median = times.empty() ? 0 : times[times.size() / 2];

  double gflops = 0;
  if (!o.flops.empty()) {
    bundle::GridEnv env;
    env.symbols = o.shape;
    int64_t flops;
    if (!bundle::evaluateGridExpr(o.flops, env, flops, error))
      fail("--flops: " + error);
    gflops = median > 0 ? double(flops) / (median * 1e6) : 0;
  }
  if (o.json) {
    // The inputs that name the case, for tools that pair rows with peers.
    std::string symbols, scalarText, dtype;
    for (const auto &[name, v] : o.shape)
      symbols += (symbols.empty() ? "" : ", ") +
                 ("\"" + name + "\": " + std::to_string(v));
    for (const auto &[name, v] : o.scalars)
      scalarText += (scalarText.empty() ? "" : ", ") +
                    ("\"" + name + "\": \"" + v + "\"");
    for (const bundle::KernelArg &a : k->args)
      if (a.kind == bundle::ArgKind::Tensor && dtype.empty())
        dtype = bundle::dtypeName(a.dtype);
    std::printf("{\"symbols\": {%s}, \"scalars\": {%s}, \"dtype\": \"%s\", ",
                symbols.c_str(), scalarText.c_str(), dtype.c_str());
    std::printf(
        "\"kernel\": \"%s\", \"device\": \"%s\", \"triple\": \"%s\", "
        "\"grid\": [%u, %u, %u], \"threads\": %u, \"median_ms\": %.6f, "
        "\"gflops\": %.3f, \"check\": \"%s\", \"max_rel_error\": %.3g}\n",
        k->name.c_str(), info.name, info.triple, dims.grid[0], dims.grid[1],
        dims.grid[2], dims.block[0], median, gflops, checkState.c_str(), worst);
  } else {
    std::printf("kernel %s on %s (%s:%s), grid %ux%ux%u, %u threads\n",
                k->name.c_str(), info.name, info.triple, info.chip,
                dims.grid[0], dims.grid[1], dims.grid[2], dims.block[0]);
    std::printf("check: %s", checkState.c_str());
    if (checkState.rfind("passed", 0) == 0 ||
        checkState.rfind("FAILED", 0) == 0)
      std::printf(" (max relative error %.3g)", worst);
    std::printf("\ntime: %.3f ms (median of %d)", median, o.iters);
    if (gflops > 0)
      std::printf(", %.2f GFLOP/s", gflops);
    std::printf("\n");
  }
  return checkState.rfind("FAILED", 0) == 0 ? 1 : 0;
}

} // namespace

int tessera::tool::runRun(int argc, char **argv) {
  RunOptions o = parseArgs(argc, argv);
  try {
    return run(o);
  } catch (const std::bad_alloc &) {
    // Every tensor allocation reports its own size; this is what is left.
    fail("out of host memory");
  } catch (const std::exception &e) {
    fail(e.what());
  }
}
