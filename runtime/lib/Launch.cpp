//===- Launch.cpp - check typed arguments, derive the grid, launch --------===//

#include "Internal.h"
#include "tessera/bundle/GridExpr.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

using namespace tessera;
using tessera::runtime::makeStatus;
using tessera::runtime::PluginError;
using tessera::runtime::pluginStatus;

static_assert(static_cast<int>(bundle::DType::F16) == TESSERA_DTYPE_F16 &&
                  static_cast<int>(bundle::DType::F8E4M3) ==
                      TESSERA_DTYPE_F8E4M3 &&
                  static_cast<int>(bundle::DType::I1) == TESSERA_DTYPE_I1 &&
                  static_cast<int>(bundle::DType::I64) == TESSERA_DTYPE_I64 &&
                  static_cast<int>(bundle::DType::Index) == TESSERA_DTYPE_INDEX,
              "tessera_dtype_t and bundle::DType must agree");
static_assert(TESSERA_MAX_RANK == bundle::kMaxRank, "rank limits must agree");

namespace {

const char *dtypeName(uint32_t dtype) {
  return dtype < bundle::kNumDTypes
             ? bundle::dtypeName(static_cast<bundle::DType>(dtype))
             : "<invalid dtype>";
}

/// A static dim of the metadata as a number; -1 for a decimal that is not
/// plain ("007", or beyond int64), which no size matches.
int64_t parseStaticDim(const std::string &text) {
  if (text.empty() || (text.size() > 1 && text[0] == '0'))
    return -1;
  int64_t value = 0;
  for (char c : text)
    if (c < '0' || c > '9' || __builtin_mul_overflow(value, 10, &value) ||
        __builtin_add_overflow(value, c - '0', &value))
      return -1;
  return value;
}

/// Per-thread scratch of the launch path, reused so that a launch does not
/// allocate once the vectors have grown (a launch is a few microseconds; each
/// malloc/free pair is a noticeable part of it).
struct LaunchScratch {
  std::vector<uint64_t> slots;
  /// Per symbol of the kernel's plan: its value and the argument that bound
  /// it (kUnbound: none yet).
  static constexpr uint32_t kUnbound = UINT32_MAX;
  std::vector<int64_t> symbolValue;
  std::vector<uint32_t> symbolArg;
  /// Per argument: its dims (tensors) or none (scalars).
  struct ArgDims {
    const int64_t *dims;
    uint32_t rank;
  };
  std::vector<ArgDims> argDims;
};

/// The grid of the last few launches per thread: a grid is a function of the
/// formulas and the tensor dims alone (symbols are bound from dims), so a
/// launch of the same kernel with the same dims as a recent one reuses its
/// grid instead of evaluating the formulas again. Keyed by the kernel's
/// serial number, which no other kernel of the process has.
struct GridMemo {
  struct Entry {
    uint64_t serial = 0;
    std::vector<int64_t> dims; // per argument: rank, then dims; -1: scalar
    uint32_t grid[3] = {};
  };
  static constexpr size_t kEntries = 4;
  Entry entries[kEntries];
  size_t next = 0;
};

thread_local LaunchScratch tScratch;
thread_local GridMemo tGridMemo;
std::atomic<uint64_t> gNextKernelSerial{1};

/// Checks arguments and computes everything a launch needs.
class LaunchBuilder {
public:
  explicit LaunchBuilder(const tessera_kernel_s &kernel)
      : slots(tScratch.slots), kernel(kernel), info(kernel.info),
        plan(kernel.plan), symbolValue(tScratch.symbolValue),
        symbolArg(tScratch.symbolArg), argDims(tScratch.argDims) {
    slots.clear();
    argDims.clear();
    symbolValue.assign(plan.symbols.size(), 0);
    symbolArg.assign(plan.symbols.size(), LaunchScratch::kUnbound);
  }

  tessera_status_t build(const tessera_arg *args, uint32_t numArgs);

  tessera_launch_dims dims = {};
  /// Valid until the next launch on this thread.
  std::vector<uint64_t> &slots;

private:
  tessera_status_t fail(const std::string &what) {
    return makeStatus(TESSERA_INVALID_ARGUMENT,
                      "kernel '" + info.name + "': " + what);
  }
  tessera_status_t tensor(const bundle::KernelArg &meta,
                          const tessera_tensor_arg &arg);
  tessera_status_t scalar(const bundle::KernelArg &meta,
                          const tessera_scalar_arg &arg);
  tessera_status_t grid();
  tessera_status_t evaluateGrid(uint32_t out[3]);

  const tessera_kernel_s &kernel;
  const bundle::KernelInfo &info;
  const runtime::LaunchPlan &plan;
  std::vector<int64_t> &symbolValue;
  std::vector<uint32_t> &symbolArg;
  std::vector<LaunchScratch::ArgDims> &argDims;
};

tessera_status_t LaunchBuilder::tensor(const bundle::KernelArg &meta,
                                       const tessera_tensor_arg &arg) {
  // Built only on failure: the success path allocates nothing.
  auto where = [&] { return "argument '" + meta.name + "'"; };
  if (!arg.buffer)
    return fail(where() + " has no buffer");
  if (arg.buffer->device != kernel.module->device)
    return fail(where() + " is a buffer of another device");
  if (arg.dtype != static_cast<uint32_t>(meta.dtype))
    return fail(where() + " must be " + bundle::dtypeName(meta.dtype) +
                ", got " + dtypeName(arg.dtype));
  if (arg.rank != meta.dims.size())
    return fail(where() + " must have rank " +
                std::to_string(meta.dims.size()) + ", got " +
                std::to_string(arg.rank));
  uint64_t elements = 1;
  bool overflow = false;
  const runtime::LaunchPlan::Dim *rules =
      plan.dims.data() + plan.firstDim[argDims.size()];
  for (uint32_t d = 0; d < arg.rank; ++d) {
    int64_t value = arg.dims[d];
    const runtime::LaunchPlan::Dim &rule = rules[d];
    if (value < 0)
      return fail(where() + " has negative dimension " + std::to_string(d));
    overflow |= __builtin_mul_overflow(elements, static_cast<uint64_t>(value),
                                       &elements);
    switch (rule.kind) {
    case runtime::LaunchPlan::DimKind::Any:
      break;
    case runtime::LaunchPlan::DimKind::Static:
      if (value != rule.value)
        return fail(where() + " must have dimension " + std::to_string(d) +
                    " equal to " + meta.dims[d] + ", got " +
                    std::to_string(value));
      break;
    case runtime::LaunchPlan::DimKind::Symbol: {
      uint32_t &bound = symbolArg[rule.symbol];
      int64_t &known = symbolValue[rule.symbol];
      if (bound == LaunchScratch::kUnbound) {
        bound = static_cast<uint32_t>(argDims.size());
        known = value;
      } else if (known != value) {
        return fail("dimension " + meta.dims[d] + " is " +
                    std::to_string(known) + " in argument '" +
                    info.args[bound].name + "' but " + std::to_string(value) +
                    " in argument '" + meta.name + "'");
      }
      break;
    }
    }
  }
  uint64_t bytes = 0, end = 0;
  overflow |=
      __builtin_mul_overflow(elements, bundle::dtypeBytes(meta.dtype), &bytes);
  overflow |= __builtin_add_overflow(bytes, arg.byte_offset, &end);
  if (overflow || end > arg.buffer->size)
    return fail(where() + " needs bytes up to " +
                (overflow ? std::string("beyond 2^64") : std::to_string(end)) +
                " but its buffer has " + std::to_string(arg.buffer->size));
  slots.push_back(arg.buffer->address + arg.byte_offset);
  for (uint32_t d = 0; d < arg.rank; ++d)
    slots.push_back(static_cast<uint64_t>(arg.dims[d]));
  argDims.push_back({arg.dims, arg.rank});
  return nullptr;
}

tessera_status_t LaunchBuilder::scalar(const bundle::KernelArg &meta,
                                       const tessera_scalar_arg &arg) {
  auto where = [&] { return "argument '" + meta.name + "'"; };
  if (arg.dtype != static_cast<uint32_t>(meta.dtype))
    return fail(where() + " must be " + bundle::dtypeName(meta.dtype) +
                ", got " + dtypeName(arg.dtype));
  uint64_t slot = 0;
  auto intRange = [&](int64_t lo, int64_t hi) -> tessera_status_t {
    if (arg.value.i < lo || arg.value.i > hi)
      return fail(where() + " is " + std::to_string(arg.value.i) +
                  ", outside the range of " + bundle::dtypeName(meta.dtype));
    // Two's complement, truncated to the type's width: the low bytes.
    unsigned bits = bundle::dtypeBytes(meta.dtype) * 8;
    slot = static_cast<uint64_t>(arg.value.i);
    if (bits < 64)
      slot &= (uint64_t(1) << bits) - 1;
    return nullptr;
  };
  auto bitsFit = [&](unsigned bits) -> tessera_status_t {
    if (arg.value.bits >> bits)
      return fail(where() + " has bits beyond the " + std::to_string(bits) +
                  " of " + bundle::dtypeName(meta.dtype));
    slot = arg.value.bits;
    return nullptr;
  };
  tessera_status_t status = nullptr;
  switch (meta.dtype) {
  case bundle::DType::I1:
    status = intRange(0, 1);
    break;
  case bundle::DType::I8:
    status = intRange(INT8_MIN, UINT8_MAX);
    break;
  case bundle::DType::I16:
    status = intRange(INT16_MIN, UINT16_MAX);
    break;
  case bundle::DType::I32:
    status = intRange(INT32_MIN, UINT32_MAX);
    break;
  case bundle::DType::I64:
  case bundle::DType::Index:
    slot = static_cast<uint64_t>(arg.value.i);
    break;
  case bundle::DType::F32: {
    uint32_t bits;
    std::memcpy(&bits, &arg.value.f32, 4);
    slot = bits;
    break;
  }
  case bundle::DType::F64:
    std::memcpy(&slot, &arg.value.f64, 8);
    break;
  case bundle::DType::F16:
  case bundle::DType::BF16:
    status = bitsFit(16);
    break;
  case bundle::DType::F8E4M3:
  case bundle::DType::F8E5M2:
    status = bitsFit(8);
    break;
  }
  if (status)
    return status;
  slots.push_back(slot);
  argDims.push_back({nullptr, 0});
  return nullptr;
}

tessera_status_t LaunchBuilder::evaluateGrid(uint32_t out[3]) {
  bundle::GridEnv env;
  for (size_t i = 0; i < plan.symbols.size(); ++i)
    if (symbolArg[i] != LaunchScratch::kUnbound)
      env.symbols.emplace(plan.symbols[i], symbolValue[i]);
  // The device's multiprocessors (compute units): persistent kernels launch
  // at most one block per unit (docs/bundle.md).
  // TESSERA_COMPUTE_UNITS=N stands in for the device's count (tests make
  // each block walk several tiles on small shapes with it).
  static const int64_t unitsOverride = [] {
    const char *e = std::getenv("TESSERA_COMPUTE_UNITS");
    return e && *e ? std::max<int64_t>(1, std::atoll(e)) : int64_t(0);
  }();
  if (kernel.module && kernel.module->device)
    env.symbols.emplace(
        bundle::kComputeUnitsSymbol,
        unitsOverride ? unitsOverride
                      : int64_t(kernel.module->device->info.compute_units));
  env.dim = [this](int64_t arg, int64_t dim, int64_t &value) {
    if (arg < 0 || arg >= static_cast<int64_t>(argDims.size()) || dim < 0 ||
        dim >= static_cast<int64_t>(argDims[arg].rank))
      return false;
    value = argDims[arg].dims[dim];
    return true;
  };
  static const char *axes[] = {"x", "y", "z"};
  for (int axis = 0; axis < 3; ++axis) {
    int64_t value;
    std::string error;
    if (!bundle::evaluateGridExpr(info.grid[axis], env, value, error))
      return fail("grid " + std::string(axes[axis]) + ": " + error);
    if (value < 0 || value > UINT32_MAX)
      return fail("grid " + std::string(axes[axis]) + " = '" + info.grid[axis] +
                  "' evaluates to " + std::to_string(value) +
                  ", outside [0, 4294967295]");
    out[axis] = static_cast<uint32_t>(value);
  }
  return nullptr;
}

tessera_status_t LaunchBuilder::grid() {
  if (plan.constantGrid) {
    std::memcpy(dims.grid, plan.grid, sizeof dims.grid);
    return nullptr;
  }
  GridMemo &memo = tGridMemo;
  auto matches = [&](const GridMemo::Entry &e) {
    if (e.serial != plan.serial)
      return false;
    size_t p = 0;
    for (const auto &a : argDims) {
      int64_t rank = a.dims ? int64_t(a.rank) : -1;
      if (p >= e.dims.size() || e.dims[p++] != rank)
        return false;
      for (uint32_t d = 0; a.dims && d < a.rank; ++d)
        if (p >= e.dims.size() || e.dims[p++] != a.dims[d])
          return false;
    }
    return p == e.dims.size();
  };
  for (const auto &e : memo.entries)
    if (matches(e)) {
      std::memcpy(dims.grid, e.grid, sizeof dims.grid);
      return nullptr;
    }
  if (auto *status = evaluateGrid(dims.grid))
    return status;
  GridMemo::Entry &e = memo.entries[memo.next];
  memo.next = (memo.next + 1) % GridMemo::kEntries;
  e.serial = plan.serial;
  e.dims.clear();
  for (const auto &a : argDims) {
    e.dims.push_back(a.dims ? int64_t(a.rank) : -1);
    for (uint32_t d = 0; a.dims && d < a.rank; ++d)
      e.dims.push_back(a.dims[d]);
  }
  std::memcpy(e.grid, dims.grid, sizeof e.grid);
  return nullptr;
}

tessera_status_t LaunchBuilder::build(const tessera_arg *args,
                                      uint32_t numArgs) {
  if (numArgs != info.args.size())
    return fail("takes " + std::to_string(info.args.size()) +
                " arguments, got " + std::to_string(numArgs));
  if (numArgs && !args)
    return fail("the argument array is NULL");
  for (uint32_t i = 0; i < numArgs; ++i) {
    const bundle::KernelArg &meta = info.args[i];
    bool wantTensor = meta.kind == bundle::ArgKind::Tensor;
    if (args[i].kind != TESSERA_ARG_TENSOR &&
        args[i].kind != TESSERA_ARG_SCALAR)
      return fail("argument '" + meta.name + "' has an invalid kind");
    if (wantTensor != (args[i].kind == TESSERA_ARG_TENSOR))
      return fail("argument '" + meta.name + "' must be a " +
                  (wantTensor ? "tensor" : "scalar") + ", got a " +
                  (wantTensor ? "scalar" : "tensor"));
    tessera_status_t status = wantTensor ? tensor(meta, args[i].u.tensor)
                                         : scalar(meta, args[i].u.scalar);
    if (status)
      return status;
  }
  if (auto *status = grid())
    return status;
  const tessera_plugin_device_info &device = kernel.module->device->info;
  if (device.max_threads_per_block &&
      info.threads > device.max_threads_per_block)
    return fail("needs " + std::to_string(info.threads) +
                " threads per block; the device allows " +
                std::to_string(device.max_threads_per_block));
  if (device.max_shared_bytes_per_block &&
      info.sharedBytes > device.max_shared_bytes_per_block)
    return fail("needs " + std::to_string(info.sharedBytes) +
                " bytes of shared memory; the device allows " +
                std::to_string(device.max_shared_bytes_per_block));
  dims.block[0] = info.threads;
  dims.block[1] = dims.block[2] = 1;
  dims.shared_bytes = info.sharedBytes;
  dims.num_slots = static_cast<uint32_t>(slots.size());
  return nullptr;
}

} // namespace

void tessera::runtime::prepareLaunchPlan(tessera_kernel_s &kernel) {
  LaunchPlan &plan = kernel.plan;
  plan = LaunchPlan();
  plan.serial = gNextKernelSerial.fetch_add(1, std::memory_order_relaxed);
  for (const bundle::KernelArg &arg : kernel.info.args) {
    plan.firstDim.push_back(static_cast<uint32_t>(plan.dims.size()));
    if (arg.kind != bundle::ArgKind::Tensor)
      continue;
    for (const std::string &dim : arg.dims) {
      LaunchPlan::Dim rule = {LaunchPlan::DimKind::Any, 0, 0};
      if (std::isdigit(static_cast<unsigned char>(dim[0]))) {
        rule.kind = LaunchPlan::DimKind::Static;
        rule.value = parseStaticDim(dim);
      } else if (dim != "?") {
        rule.kind = LaunchPlan::DimKind::Symbol;
        auto it = std::find(plan.symbols.begin(), plan.symbols.end(), dim);
        rule.symbol = static_cast<uint32_t>(it - plan.symbols.begin());
        if (it == plan.symbols.end())
          plan.symbols.push_back(dim);
      }
      plan.dims.push_back(rule);
    }
  }
  // A grid of formulas without symbols or dims is a constant; formulas that
  // fail here (a symbol, a dim, a division by zero) are evaluated at each
  // launch, which reports their errors.
  bundle::GridEnv none;
  none.dim = [](int64_t, int64_t, int64_t &) { return false; };
  bool constant = true;
  for (int axis = 0; constant && axis < 3; ++axis) {
    int64_t value;
    std::string error;
    constant =
        bundle::evaluateGridExpr(kernel.info.grid[axis], none, value, error) &&
        value >= 0 && value <= UINT32_MAX;
    if (constant)
      plan.grid[axis] = static_cast<uint32_t>(value);
  }
  plan.constantGrid = constant;
}

extern "C" {

tessera_status_t tessera_kernel_prepare_launch(tessera_kernel_t kernel,
                                               const tessera_arg *args,
                                               uint32_t num_args,
                                               tessera_launch_dims *out) {
  TESSERA_CHECK_ARG(kernel && out,
                    "tessera_kernel_prepare_launch: NULL argument");
  LaunchBuilder builder(*kernel);
  if (auto *status = builder.build(args, num_args))
    return status;
  *out = builder.dims;
  return nullptr;
}

tessera_status_t tessera_kernel_launch(tessera_kernel_t kernel,
                                       tessera_stream_t stream,
                                       const tessera_arg *args,
                                       uint32_t num_args) {
  TESSERA_CHECK_ARG(kernel, "tessera_kernel_launch: NULL kernel");
  tessera_device_s *device = kernel->module->device;
  TESSERA_CHECK_ARG(!stream || stream->device == device,
                    "tessera_kernel_launch: the stream belongs to another "
                    "device");
  LaunchBuilder builder(*kernel);
  if (auto *status = builder.build(args, num_args))
    return status;
  const tessera_launch_dims &dims = builder.dims;
  if (!dims.grid[0] || !dims.grid[1] || !dims.grid[2])
    return nullptr; // an empty grid: nothing to do, and not an error
  tessera_plugin_launch launch = {};
  std::memcpy(launch.grid, dims.grid, sizeof launch.grid);
  std::memcpy(launch.block, dims.block, sizeof launch.block);
  launch.shared_bytes = dims.shared_bytes;
  launch.num_slots = dims.num_slots;
  launch.slots = builder.slots.data();
  auto lock = tessera::runtime::lockStream(device, stream);
  PluginError err;
  int code =
      device->api->launch(kernel->handle, stream ? stream->handle : nullptr,
                          &launch, err.data(), err.size());
  if (code == TESSERA_PLUGIN_OK)
    return nullptr; // no message to build on the common path
  return pluginStatus(code, err.text,
                      "launch of kernel '" + kernel->info.name + "' failed");
}

tessera_arg tessera_arg_tensor(tessera_buffer_t buffer, tessera_dtype_t dtype,
                               uint32_t rank, const int64_t *dims) {
  tessera_arg arg;
  std::memset(&arg, 0, sizeof arg);
  arg.kind = TESSERA_ARG_TENSOR;
  arg.u.tensor.buffer = buffer;
  arg.u.tensor.dtype = dtype;
  arg.u.tensor.rank = rank;
  for (uint32_t i = 0; i < rank && i < TESSERA_MAX_RANK && dims; ++i)
    arg.u.tensor.dims[i] = dims[i];
  return arg;
}

tessera_arg tessera_arg_i64(tessera_dtype_t dtype, int64_t value) {
  tessera_arg arg;
  std::memset(&arg, 0, sizeof arg);
  arg.kind = TESSERA_ARG_SCALAR;
  arg.u.scalar.dtype = dtype;
  arg.u.scalar.value.i = value;
  return arg;
}

tessera_arg tessera_arg_f32(float value) {
  tessera_arg arg;
  std::memset(&arg, 0, sizeof arg);
  arg.kind = TESSERA_ARG_SCALAR;
  arg.u.scalar.dtype = TESSERA_DTYPE_F32;
  arg.u.scalar.value.f32 = value;
  return arg;
}

tessera_arg tessera_arg_f64(double value) {
  tessera_arg arg;
  std::memset(&arg, 0, sizeof arg);
  arg.kind = TESSERA_ARG_SCALAR;
  arg.u.scalar.dtype = TESSERA_DTYPE_F64;
  arg.u.scalar.value.f64 = value;
  return arg;
}

const char *tessera_dtype_name(tessera_dtype_t dtype) {
  return dtypeName(static_cast<uint32_t>(dtype));
}

} // extern "C"
