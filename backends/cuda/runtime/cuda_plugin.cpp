//===- cuda_plugin.cpp - the cuda runtime plugin's ABI table -------------===//
//
// Runs on the CUDA driver API, reached only through CudaSymbolTable (dlopen
// of libcuda.so.1, or $TESSERA_LIBCUDA): the plugin has no link-time CUDA
// dependency and loads on machines without a GPU, where initialize reports
// TESSERA_PLUGIN_ERROR_UNAVAILABLE.
//
// Each device handle holds the device's primary context; every call binds
// that context to the calling thread first (cuCtxSetCurrent is cheap), since
// the host may call from any thread.
//
//===----------------------------------------------------------------------===//

#include "cubin_elf.h"
#include "cuda_driver_types.h"
#include "cuda_symbol_table.h"

#include "tessera/cuda/tensor_map.h"
#include "tessera/plugin/runtime_abi.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#ifndef TESSERA_CUDA_PLUGIN_VERSION
#define TESSERA_CUDA_PLUGIN_VERSION "0.1.0"
#endif

using namespace tessera::cuda;

namespace {

CudaSymbolTable gCu;

// The tensor-map descriptor a TMA kernel's module carries (the compiler's
// kTmaMagic, docs/backends/cuda.md): "TMA2", at most eight maps.
constexpr uint32_t kTmaDescriptorMagic = 0x32414D54u;
constexpr size_t kMaxTensorMaps = 8;

// The first initialize's outcome; reset by shutdown.
std::mutex gInitMutex;
bool gInitDone = false;
int gInitCode = TESSERA_PLUGIN_OK;
std::string gInitMessage;
std::atomic<bool> gReady{false};

int fail(char *err, size_t errLen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int fail(char *err, size_t errLen, int code, const char *fmt, ...) {
  if (err && errLen) {
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(err, errLen, fmt, args);
    va_end(args);
  }
  return code;
}

/// "<what>: CUDA_ERROR_X (text)".
int cuFail(char *err, size_t errLen, int code, CUresult result,
           const std::string &what) {
  return fail(err, errLen, code, "%s: %s", what.c_str(),
              gCu.describe(result).c_str());
}

/// The plugin code for a failed driver call whose caller has no better idea.
int codeFor(CUresult result, int fallback) {
  switch (result) {
  case CUDA_ERROR_OUT_OF_MEMORY:
    return TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY;
  case CUDA_ERROR_INVALID_VALUE:
    return TESSERA_PLUGIN_ERROR_INVALID;
  case CUDA_ERROR_NO_DEVICE:
    return TESSERA_PLUGIN_ERROR_UNAVAILABLE;
  default:
    return fallback;
  }
}

#define REQUIRE_READY(err, errLen)                                             \
  if (!gReady.load(std::memory_order_acquire))                                 \
  return fail(err, errLen, TESSERA_PLUGIN_ERROR_UNAVAILABLE,                   \
              "cuda plugin is not initialized (or initialize failed)")

// Calls a driver function; on failure returns from the enclosing function
// with `code` (refined by codeFor) and "<name> failed: <error>".
#define CU_CHECK(call, code, context)                                          \
  do {                                                                         \
    CUresult cuResult_ = gCu.call;                                             \
    if (cuResult_ != CUDA_SUCCESS)                                             \
      return cuFail(                                                           \
          err, errLen, codeFor(cuResult_, code), cuResult_,                    \
          std::string(context) + ": " +                                        \
              std::string(#call).substr(0, std::string(#call).find('(')) +     \
              " failed");                                                      \
  } while (0)

std::string chipName(int major, int minor) {
  // Hopper and later have arch-specific ("a") features on the exact chip;
  // images built for sm_XYa are what run best there, so that is the chip.
  std::string chip = "sm_" + std::to_string(major * 10 + minor);
  if (major >= 9)
    chip += "a";
  return chip;
}

} // namespace

struct tessera_plugin_device_s {
  uint32_t ordinal;
  CUdevice device;
  CUcontext context;
  tessera_plugin_device_info info;
};

struct tessera_plugin_stream_s {
  tessera_plugin_device device;
  CUstream stream;
  bool owned = true; // false: a wrapped stream its creator destroys
};

struct tessera_plugin_event_s {
  tessera_plugin_device device;
  CUevent event;
};

struct tessera_plugin_kernel_s {
  tessera_plugin_device device;
  CUfunction function;
  std::string name;
  // Parameter sizes from cuFuncGetParamInfo; empty when the driver cannot
  // tell (older than 12.4), and then launches are not checked.
  bool paramsKnown = false;
  std::vector<size_t> paramSizes;
  // The dynamic shared memory limit set on the function so far; launches at
  // or under it need no cuFuncSetAttribute.
  std::atomic<uint32_t> sharedLimit{kDefaultDynamicSharedLimit};

  // sm_90a kernels with tensor maps (the module's `tessera_tma_<name>`
  // global): one 128-byte CUtensorMap parameter per map after the slots,
  // built here at launch from the tensor's slots (pointer, rows, cols) and
  // cached per (map, pointer, dims). Where a map cannot describe the tensor
  // (base or row pitch not 16-byte aligned) the launch runs `fallback`
  // (`<name>__fallback`, slots only) with its own block size and shared
  // memory instead.
  struct MapSpec {
    uint32_t slot, rank, dataType, elemBytes, swizzle, l2;
    uint32_t box[5]; // innermost first
  };
  std::vector<MapSpec> maps;
  // Set at kernel_get when the twin is in the module's image; otherwise
  // (the twin is in the module's on-demand image) by the first launch that
  // needs it, under the module's mutex.
  std::atomic<tessera_plugin_kernel_s *> fallback{nullptr};
  std::unique_ptr<tessera_plugin_kernel_s> fallbackOwned;
  uint32_t fallbackThreads = 0, fallbackShared = 0;
  tessera_plugin_module_s *module = nullptr;
  std::mutex mapMutex;
  std::map<std::array<uint64_t, 7>, CUtensorMap> mapCache;
};

struct tessera_plugin_module_s {
  tessera_plugin_device device;
  CUmodule module;
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<tessera_plugin_kernel_s>> kernels;
  // Parameter counts by kernel, from a cubin's .nv.info.<kernel> sections.
  std::map<std::string, long> paramCounts;
  // For cubins, the `tessera_tma_*` globals its symbol table defines, so that
  // kernel_get asks cuModuleGetGlobal only for a descriptor that exists (a
  // miss is CUDA_ERROR_NOT_FOUND, which compute-sanitizer reports). PTX and
  // fatbinaries: not known, and the driver is probed.
  bool tmaSymbolsKnown = false;
  std::set<std::string> tmaSymbols;
  // The cubin's kernels (tessera_kernel_*), to know whether a twin is in it
  // without asking the driver for a function it lacks.
  bool kernelSymbolsKnown = false;
  std::set<std::string> kernelSymbols;
  // The on-demand image (module_add_on_demand_image): the TMA kernels'
  // twins, as PTX the driver JIT-compiles, or a cubin. Loaded by the first
  // launch that needs a twin (under `mutex`); a failed load is remembered
  // and reported by every such launch.
  std::string onDemandImage;
  CUmodule onDemandModule = nullptr;
  bool onDemandTried = false;
  std::string onDemandError;
};

// Makes the device's context current on this thread. Asking first is cheaper
// than setting on every call (the launch path's hottest driver call after
// cuLaunchKernel), and it stays right when the application switches
// contexts between our calls.
static CUresult bindContext(tessera_plugin_device device) {
  CUcontext current = nullptr;
  if (gCu.cuCtxGetCurrent(&current) == CUDA_SUCCESS &&
      current == device->context)
    return CUDA_SUCCESS;
  return gCu.cuCtxSetCurrent(device->context);
}

#define BIND(device, what)                                                     \
  do {                                                                         \
    CUresult bindResult_ = bindContext(device);                                \
    if (bindResult_ != CUDA_SUCCESS)                                           \
      return cuFail(                                                           \
          err, errLen, codeFor(bindResult_, TESSERA_PLUGIN_ERROR_INTERNAL),    \
          bindResult_, std::string(what) + ": cuCtxSetCurrent failed");        \
  } while (0)

extern "C" {

static int cudaInitialize(char *err, size_t errLen) {
  std::lock_guard<std::mutex> lock(gInitMutex);
  if (!gInitDone) {
    gInitDone = true;
    gInitCode = TESSERA_PLUGIN_OK;
    gInitMessage.clear();
    const char *override = std::getenv("TESSERA_LIBCUDA");
    const char *library = override && *override ? override : "libcuda.so.1";
    std::string error;
    CUresult result;
    int count = 0;
    if (!gCu.load(library, error)) {
      gInitCode = TESSERA_PLUGIN_ERROR_UNAVAILABLE;
      gInitMessage = error;
    } else if ((result = gCu.cuInit(0)) != CUDA_SUCCESS) {
      gInitCode = TESSERA_PLUGIN_ERROR_UNAVAILABLE;
      gInitMessage =
          result == CUDA_ERROR_NO_DEVICE
              ? "no CUDA device"
              : "no CUDA device: cuInit failed: " + gCu.describe(result);
    } else if ((result = gCu.cuDeviceGetCount(&count)) != CUDA_SUCCESS ||
               count == 0) {
      gInitCode = TESSERA_PLUGIN_ERROR_UNAVAILABLE;
      gInitMessage = "no CUDA device";
    }
    gReady.store(gInitCode == TESSERA_PLUGIN_OK, std::memory_order_release);
  }
  if (gInitCode != TESSERA_PLUGIN_OK)
    return fail(err, errLen, gInitCode, "%s", gInitMessage.c_str());
  return TESSERA_PLUGIN_OK;
}

// Objects must be released before shutdown. libcuda stays loaded (it does not
// support unloading); a later initialize starts over, reading
// $TESSERA_LIBCUDA again.
static void cudaShutdown(void) {
  std::lock_guard<std::mutex> lock(gInitMutex);
  gReady.store(false, std::memory_order_release);
  gInitDone = false;
}

static int cudaDeviceCount(uint32_t *count, char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!count)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "count is NULL");
  int n = 0;
  CU_CHECK(cuDeviceGetCount(&n), TESSERA_PLUGIN_ERROR_INTERNAL, "device_count");
  *count = uint32_t(n);
  return TESSERA_PLUGIN_OK;
}

static int cudaDeviceOpen(uint32_t ordinal, tessera_plugin_device *out,
                          char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!out)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "device is NULL");
  int count = 0;
  CU_CHECK(cuDeviceGetCount(&count), TESSERA_PLUGIN_ERROR_INTERNAL,
           "device_open");
  if (ordinal >= uint32_t(count))
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "cuda device %u does not exist (%d present)", ordinal, count);
  auto d = std::make_unique<tessera_plugin_device_s>();
  d->ordinal = ordinal;
  CU_CHECK(cuDeviceGet(&d->device, int(ordinal)), TESSERA_PLUGIN_ERROR_INTERNAL,
           "device_open");

  tessera_plugin_device_info &info = d->info;
  std::memset(&info, 0, sizeof(info));
  CU_CHECK(cuDeviceGetName(info.name, int(sizeof(info.name)), d->device),
           TESSERA_PLUGIN_ERROR_INTERNAL, "device_open");
  std::snprintf(info.triple, sizeof(info.triple), "nvptx64-nvidia-cuda");
  int major = 0, minor = 0, sms = 0, threads = 0, shared = 0, warp = 0;
  size_t total = 0;
  CU_CHECK(cuDeviceGetAttribute(
               &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->device),
           TESSERA_PLUGIN_ERROR_INTERNAL, "device_open");
  CU_CHECK(cuDeviceGetAttribute(
               &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->device),
           TESSERA_PLUGIN_ERROR_INTERNAL, "device_open");
  CU_CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                d->device),
           TESSERA_PLUGIN_ERROR_INTERNAL, "device_open");
  CU_CHECK(cuDeviceGetAttribute(
               &threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, d->device),
           TESSERA_PLUGIN_ERROR_INTERNAL, "device_open");
  CU_CHECK(cuDeviceGetAttribute(
               &shared, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
               d->device),
           TESSERA_PLUGIN_ERROR_INTERNAL, "device_open");
  CU_CHECK(
      cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, d->device),
      TESSERA_PLUGIN_ERROR_INTERNAL, "device_open");
  CU_CHECK(cuDeviceTotalMem_v2(&total, d->device),
           TESSERA_PLUGIN_ERROR_INTERNAL, "device_open");
  std::snprintf(info.chip, sizeof(info.chip), "%s",
                chipName(major, minor).c_str());
  info.total_memory = total;
  info.compute_units = uint32_t(sms);
  info.max_threads_per_block = uint32_t(threads);
  info.max_shared_bytes_per_block = uint32_t(shared);
  info.warp_size = uint32_t(warp);

  CU_CHECK(cuDevicePrimaryCtxRetain(&d->context, d->device),
           TESSERA_PLUGIN_ERROR_UNAVAILABLE, "device_open");
  *out = d.release();
  return TESSERA_PLUGIN_OK;
}

static void cudaDeviceClose(tessera_plugin_device device) {
  if (!device)
    return;
  if (gReady.load(std::memory_order_acquire))
    gCu.cuDevicePrimaryCtxRelease_v2(device->device);
  delete device;
}

static int cudaDeviceInfo(tessera_plugin_device device,
                          tessera_plugin_device_info *info, char *err,
                          size_t errLen) {
  if (!device || !info)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "device or info is NULL");
  *info = device->info;
  return TESSERA_PLUGIN_OK;
}

static int cudaMemAlloc(tessera_plugin_device device, uint64_t bytes,
                        tessera_device_ptr *ptr, char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!device || !ptr)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "mem_alloc: NULL argument");
  BIND(device, "mem_alloc");
  CUdeviceptr p = 0;
  // The driver rejects zero bytes; a zero-byte buffer still gets an address.
  CUresult result = gCu.cuMemAlloc_v2(&p, bytes ? size_t(bytes) : 1);
  if (result != CUDA_SUCCESS)
    return cuFail(err, errLen,
                  codeFor(result, TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY), result,
                  "mem_alloc of " + std::to_string(bytes) +
                      " bytes: cuMemAlloc_v2 failed");
  *ptr = tessera_device_ptr(p);
  return TESSERA_PLUGIN_OK;
}

static void cudaMemFree(tessera_plugin_device device, tessera_device_ptr ptr) {
  if (!device || !ptr || !gReady.load(std::memory_order_acquire))
    return;
  if (bindContext(device) == CUDA_SUCCESS)
    gCu.cuMemFree_v2(CUdeviceptr(ptr));
}

static CUstream streamOf(tessera_plugin_stream s) {
  return s ? s->stream : nullptr;
}

// With a NULL stream the copy runs on the default stream and is waited for.
#define FINISH_IF_SYNC(s, context)                                             \
  if (!(s))                                                                    \
  CU_CHECK(cuStreamSynchronize(nullptr), TESSERA_PLUGIN_ERROR_LAUNCH, context)

static int cudaCopyToDevice(tessera_plugin_device device,
                            tessera_plugin_stream s, tessera_device_ptr dst,
                            const void *src, uint64_t bytes, char *err,
                            size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!device)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "device is NULL");
  if (!bytes)
    return TESSERA_PLUGIN_OK;
  BIND(device, "copy_to_device");
  // From pageable memory the driver has staged `src` when this returns, so
  // the caller may reuse it at once.
  CU_CHECK(
      cuMemcpyHtoDAsync_v2(CUdeviceptr(dst), src, size_t(bytes), streamOf(s)),
      TESSERA_PLUGIN_ERROR_INVALID, "copy_to_device");
  FINISH_IF_SYNC(s, "copy_to_device");
  return TESSERA_PLUGIN_OK;
}

static int cudaCopyToHost(tessera_plugin_device device, tessera_plugin_stream s,
                          void *dst, tessera_device_ptr src, uint64_t bytes,
                          char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!device)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "device is NULL");
  if (!bytes)
    return TESSERA_PLUGIN_OK;
  BIND(device, "copy_to_host");
  CU_CHECK(
      cuMemcpyDtoHAsync_v2(dst, CUdeviceptr(src), size_t(bytes), streamOf(s)),
      TESSERA_PLUGIN_ERROR_INVALID, "copy_to_host");
  FINISH_IF_SYNC(s, "copy_to_host");
  return TESSERA_PLUGIN_OK;
}

static int cudaCopyDevice(tessera_plugin_device device, tessera_plugin_stream s,
                          tessera_device_ptr dst, tessera_device_ptr src,
                          uint64_t bytes, char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!device)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "device is NULL");
  if (!bytes)
    return TESSERA_PLUGIN_OK;
  BIND(device, "copy_device");
  CU_CHECK(cuMemcpyDtoDAsync_v2(CUdeviceptr(dst), CUdeviceptr(src),
                                size_t(bytes), streamOf(s)),
           TESSERA_PLUGIN_ERROR_INVALID, "copy_device");
  FINISH_IF_SYNC(s, "copy_device");
  return TESSERA_PLUGIN_OK;
}

static int cudaMemSet(tessera_plugin_device device, tessera_plugin_stream s,
                      tessera_device_ptr dst, uint8_t value, uint64_t bytes,
                      char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!device)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "device is NULL");
  if (!bytes)
    return TESSERA_PLUGIN_OK;
  BIND(device, "mem_set");
  CU_CHECK(cuMemsetD8Async(CUdeviceptr(dst), value, size_t(bytes), streamOf(s)),
           TESSERA_PLUGIN_ERROR_INVALID, "mem_set");
  FINISH_IF_SYNC(s, "mem_set");
  return TESSERA_PLUGIN_OK;
}

static int cudaStreamCreate(tessera_plugin_device device,
                            tessera_plugin_stream *s, char *err,
                            size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!device || !s)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "stream_create: NULL argument");
  BIND(device, "stream_create");
  CUstream stream = nullptr;
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_DEFAULT),
           TESSERA_PLUGIN_ERROR_INTERNAL, "stream_create");
  *s = new tessera_plugin_stream_s{device, stream, /*owned=*/true};
  return TESSERA_PLUGIN_OK;
}

static void cudaStreamDestroy(tessera_plugin_stream s) {
  if (!s)
    return;
  if (s->owned && gReady.load(std::memory_order_acquire) &&
      bindContext(s->device) == CUDA_SUCCESS)
    gCu.cuStreamDestroy_v2(s->stream);
  delete s;
}

static int cudaStreamWrap(tessera_plugin_device device, void *native,
                          tessera_plugin_stream *s, char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!device || !native || !s)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "stream_wrap: NULL argument");
  *s = new tessera_plugin_stream_s{device, static_cast<CUstream>(native),
                                   /*owned=*/false};
  return TESSERA_PLUGIN_OK;
}

static int cudaStreamSynchronize(tessera_plugin_stream s, char *err,
                                 size_t errLen) {
  REQUIRE_READY(err, errLen);
  // NULL: the default stream of the context current on this thread (the
  // device this thread used last).
  if (s)
    BIND(s->device, "stream_synchronize");
  CU_CHECK(cuStreamSynchronize(streamOf(s)), TESSERA_PLUGIN_ERROR_LAUNCH,
           "stream_synchronize");
  return TESSERA_PLUGIN_OK;
}

static int cudaEventCreate(tessera_plugin_device device,
                           tessera_plugin_event *e, char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!device || !e)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "event_create: NULL argument");
  BIND(device, "event_create");
  CUevent event = nullptr;
  CU_CHECK(cuEventCreate(&event, CU_EVENT_DEFAULT),
           TESSERA_PLUGIN_ERROR_INTERNAL, "event_create");
  *e = new tessera_plugin_event_s{device, event};
  return TESSERA_PLUGIN_OK;
}

static void cudaEventDestroy(tessera_plugin_event e) {
  if (!e)
    return;
  if (gReady.load(std::memory_order_acquire) &&
      bindContext(e->device) == CUDA_SUCCESS)
    gCu.cuEventDestroy_v2(e->event);
  delete e;
}

static int cudaEventRecord(tessera_plugin_event e, tessera_plugin_stream s,
                           char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!e)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "event is NULL");
  BIND(e->device, "event_record");
  CU_CHECK(cuEventRecord(e->event, streamOf(s)), TESSERA_PLUGIN_ERROR_INVALID,
           "event_record");
  return TESSERA_PLUGIN_OK;
}

static int cudaEventSynchronize(tessera_plugin_event e, char *err,
                                size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!e)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "event is NULL");
  BIND(e->device, "event_synchronize");
  CU_CHECK(cuEventSynchronize(e->event), TESSERA_PLUGIN_ERROR_LAUNCH,
           "event_synchronize");
  return TESSERA_PLUGIN_OK;
}

static int cudaEventElapsedMs(tessera_plugin_event start,
                              tessera_plugin_event end, float *ms, char *err,
                              size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!start || !end || !ms)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "event_elapsed_ms: NULL argument");
  BIND(start->device, "event_elapsed_ms");
  CUresult result = gCu.eventElapsedTime(ms, start->event, end->event);
  if (result == CUDA_ERROR_NOT_READY)
    return cuFail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, result,
                  "event_elapsed_ms: an event has not completed yet "
                  "(synchronize it first)");
  if (result != CUDA_SUCCESS)
    return cuFail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, result,
                  "event_elapsed_ms: cuEventElapsedTime failed");
  return TESSERA_PLUGIN_OK;
}

namespace {
enum class ImageKind { Cubin, Fatbin, Ptx, Unknown };

ImageKind classifyImage(const void *image, uint64_t size) {
  const auto *bytes = static_cast<const unsigned char *>(image);
  if (size >= 4 && std::memcmp(bytes,
                               "\x7f"
                               "ELF",
                               4) == 0)
    return ImageKind::Cubin;
  // A fatbinary wrapper starts with the magic 0xBA55ED50 (little-endian).
  if (size >= 4 && bytes[0] == 0x50 && bytes[1] == 0xED && bytes[2] == 0x55 &&
      bytes[3] == 0xBA)
    return ImageKind::Fatbin;
  // PTX is text that names its ISA version and target.
  std::string head(static_cast<const char *>(image),
                   size_t(std::min<uint64_t>(size, 1 << 16)));
  if (head.find(".version") != std::string::npos &&
      head.find(".target") != std::string::npos)
    return ImageKind::Ptx;
  return ImageKind::Unknown;
}
} // namespace

/// The parameter count of every `.entry` of a PTX text (its `.param`
/// declarations up to the closing parenthesis), so that cuFuncGetParamInfo
/// is never asked past the last one.
static void ptxParamCounts(const char *text, size_t size,
                           std::map<std::string, long> &counts) {
  std::string_view ptx(text, size);
  for (size_t at = ptx.find(".entry "); at != std::string_view::npos;
       at = ptx.find(".entry ", at + 7)) {
    size_t nameBegin = at + 7;
    size_t open = ptx.find('(', nameBegin);
    size_t close = open == std::string_view::npos ? open : ptx.find(')', open);
    if (close == std::string_view::npos)
      return;
    std::string_view name = ptx.substr(nameBegin, open - nameBegin);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\n' ||
                             name.back() == '\t' || name.back() == '\r'))
      name.remove_suffix(1);
    std::string_view params = ptx.substr(open, close - open);
    long n = 0;
    for (size_t p = params.find(".param"); p != std::string_view::npos;
         p = params.find(".param", p + 6))
      ++n;
    counts[std::string(name)] = n;
  }
}

/// cuModuleLoadDataEx of an image of a known kind, in the current context;
/// on failure `message` holds the driver's error and the JIT log.
static bool loadImage(tessera_plugin_device device, const void *image,
                      uint64_t size, ImageKind kind, CUmodule &out,
                      std::string &message) {
  // The driver reads PTX up to a NUL, which the image need not have.
  std::string ptx;
  const void *data = image;
  if (kind == ImageKind::Ptx) {
    ptx.assign(static_cast<const char *>(image), size_t(size));
    data = ptx.c_str();
  }
  std::vector<char> log(16 * 1024, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log.data(),
                    reinterpret_cast<void *>(uintptr_t(log.size() - 1))};
  CUresult result = gCu.cuModuleLoadDataEx(&out, data, 2, options, values);
  if (result == CUDA_SUCCESS)
    return true;
  const char *what = kind == ImageKind::Ptx     ? "PTX"
                     : kind == ImageKind::Cubin ? "cubin"
                                                : "fatbinary";
  message = std::string("cannot load the ") + what + " image for " +
            device->info.chip +
            ": cuModuleLoadDataEx failed: " + gCu.describe(result);
  if (log[0])
    message += "; JIT log: " + std::string(log.data());
  return false;
}

static int cudaModuleLoad(tessera_plugin_device device, const void *image,
                          uint64_t size, tessera_plugin_module *module,
                          char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!device || !module)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "module_load: NULL argument");
  if (!image || size == 0)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_BAD_IMAGE,
                "cuda module image is empty");
  ImageKind kind = classifyImage(image, size);
  if (kind == ImageKind::Unknown)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_BAD_IMAGE,
                "cuda module image (%llu bytes) is not a cubin (ELF), a "
                "fatbinary or PTX text",
                (unsigned long long)size);
  BIND(device, "module_load");
  CUmodule cuModule = nullptr;
  std::string message;
  if (!loadImage(device, image, size, kind, cuModule, message))
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_BAD_IMAGE, "%s",
                message.c_str());
  auto m = std::make_unique<tessera_plugin_module_s>();
  m->device = device;
  m->module = cuModule;
  if (kind == ImageKind::Cubin) {
    const auto *elf = static_cast<const unsigned char *>(image);
    cubinParamCounts(elf, size_t(size), m->paramCounts);
    m->tmaSymbolsKnown =
        cubinDefinedSymbols(elf, size_t(size), "tessera_tma_", m->tmaSymbols);
    m->kernelSymbolsKnown = cubinDefinedSymbols(
        elf, size_t(size), "tessera_kernel_", m->kernelSymbols);
  } else if (kind == ImageKind::Ptx) {
    ptxParamCounts(static_cast<const char *>(image), size_t(size),
                   m->paramCounts);
  }
  *module = m.release();
  return TESSERA_PLUGIN_OK;
}

static void cudaModuleUnload(tessera_plugin_module module) {
  if (!module)
    return;
  if (gReady.load(std::memory_order_acquire) &&
      bindContext(module->device) == CUDA_SUCCESS) {
    gCu.cuModuleUnload(module->module);
    if (module->onDemandModule)
      gCu.cuModuleUnload(module->onDemandModule);
  }
  delete module;
}

/// Parameter sizes through cuFuncGetParamInfo, up to the first index the
/// driver rejects. For cubins the count comes from the ELF's .nv.info first
/// (EIATTR_KPARAM_INFO entries), so that no query goes past the last
/// parameter (compute-sanitizer reports such a query as an API error).
static std::unique_ptr<tessera_plugin_kernel_s>
makeKernel(tessera_plugin_module module, CUfunction function,
           const char *name) {
  auto k = std::make_unique<tessera_plugin_kernel_s>();
  k->device = module->device;
  k->function = function;
  k->name = name;
  k->module = module;
  if (gCu.cuFuncGetParamInfo) {
    k->paramsKnown = true;
    long known = -1;
    if (auto it = module->paramCounts.find(name);
        it != module->paramCounts.end() && it->second > 0)
      known = it->second;
    for (size_t i = 0; known < 0 || long(i) < known; ++i) {
      size_t offset = 0, size = 0;
      CUresult r = gCu.cuFuncGetParamInfo(function, i, &offset, &size);
      if (r == CUDA_ERROR_INVALID_VALUE && known < 0)
        break; // past the last parameter
      if (r != CUDA_SUCCESS) {
        k->paramsKnown = false; // cannot tell; do not check launches
        k->paramSizes.clear();
        break;
      }
      k->paramSizes.push_back(size);
    }
  }
  return k;
}

/// Checks `slots` against the parameter sizes: the slots, then `maps`
/// 128-byte tensor maps.
static int checkParams(const tessera_plugin_kernel_s *kernel, uint32_t numSlots,
                       size_t maps, char *err, size_t errLen) {
  if (!kernel->paramsKnown)
    return TESSERA_PLUGIN_OK;
  const char *name = kernel->name.c_str();
  const auto &sizes = kernel->paramSizes;
  if (numSlots + maps != sizes.size()) {
    if (maps)
      return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                  "launch of '%s': the kernel takes %zu parameters (%zu "
                  "tensor maps after the slots) but the launch has %u slots",
                  name, sizes.size(), maps, numSlots);
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "launch of '%s': the kernel takes %zu parameters but the "
                "launch has %u slots",
                name, sizes.size(), numSlots);
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    bool map = i >= numSlots;
    if ((!map && sizes[i] > sizeof(uint64_t)) ||
        (map && sizes[i] != sizeof(CUtensorMap) && sizes[i] != 128))
      return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                  map ? "launch of '%s': parameter %zu is %zu bytes; a tensor "
                        "map takes 128"
                      : "launch of '%s': parameter %zu is %zu bytes; a slot "
                        "holds at most 8",
                  name, i, sizes[i]);
  }
  return TESSERA_PLUGIN_OK;
}

static int cudaKernelGet(tessera_plugin_module module, const char *name,
                         tessera_plugin_kernel *kernel, char *err,
                         size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!module || !name || !kernel)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "kernel_get: NULL argument");
  std::lock_guard<std::mutex> lock(module->mutex);
  auto found = module->kernels.find(name);
  if (found != module->kernels.end()) {
    *kernel = found->second.get();
    return TESSERA_PLUGIN_OK;
  }
  BIND(module->device, "kernel_get");
  CUfunction function = nullptr;
  CUresult result = gCu.cuModuleGetFunction(&function, module->module, name);
  if (result == CUDA_ERROR_NOT_FOUND)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_NOT_FOUND,
                "kernel '%s' not found in the cuda module", name);
  if (result != CUDA_SUCCESS)
    return cuFail(err, errLen, TESSERA_PLUGIN_ERROR_INTERNAL, result,
                  std::string("kernel_get '") + name +
                      "': cuModuleGetFunction failed");
  auto k = makeKernel(module, function, name);
  // Tensor maps and the fallback kernel of a TMA kernel.
  CUdeviceptr desc = 0;
  size_t descBytes = 0;
  std::string descName = std::string("tessera_tma_") + name;
  bool mayHaveMaps =
      !module->tmaSymbolsKnown || module->tmaSymbols.count(descName) != 0;
  if (mayHaveMaps && gCu.cuModuleGetGlobal_v2 && gCu.cuMemcpyDtoH_v2 &&
      gCu.cuModuleGetGlobal_v2(&desc, &descBytes, module->module,
                               descName.c_str()) == CUDA_SUCCESS &&
      descBytes >= 16) {
    std::vector<uint32_t> w(descBytes / 4);
    if (CUresult r = gCu.cuMemcpyDtoH_v2(w.data(), desc, w.size() * 4);
        r != CUDA_SUCCESS)
      return cuFail(err, errLen, TESSERA_PLUGIN_ERROR_INTERNAL, r,
                    "kernel_get '" + std::string(name) + "': reading " +
                        descName);
    // "TMA2": {magic, maps, fallback threads, fallback shared bytes}, then
    // per map {slot, rank, data type, element bytes, swizzle, L2 promotion,
    // box[5] innermost first, 0}.
    uint32_t n = w[1];
    bool bad = w[0] != kTmaDescriptorMagic || n > kMaxTensorMaps ||
               w.size() < 4 + 12 * size_t(n);
    for (uint32_t i = 0; !bad && i < n; ++i) {
      const uint32_t *m = &w[4 + 12 * i];
      bad = m[1] < 1 || m[1] > 5;
      tessera_plugin_kernel_s::MapSpec spec{m[0], m[1], m[2], m[3],
                                            m[4], m[5], {}};
      for (int d = 0; d < 5; ++d)
        spec.box[d] = m[6 + d];
      k->maps.push_back(spec);
    }
    if (bad)
      return fail(err, errLen, TESSERA_PLUGIN_ERROR_BAD_IMAGE,
                  "kernel_get '%s': %s is not a tensor-map descriptor", name,
                  descName.c_str());
    std::string fbName = std::string(name) + "__fallback";
    CUfunction fb = nullptr;
    // A twin the cubin does not define is in the on-demand image: not asked
    // for here (the driver would report the miss as an API error).
    CUresult r =
        module->kernelSymbolsKnown && !module->kernelSymbols.count(fbName) &&
                !module->onDemandImage.empty()
            ? CUDA_ERROR_NOT_FOUND
            : gCu.cuModuleGetFunction(&fb, module->module, fbName.c_str());
    if (r == CUDA_SUCCESS) {
      k->fallbackOwned = makeKernel(module, fb, fbName.c_str());
      k->fallback = k->fallbackOwned.get();
    } else if (r != CUDA_ERROR_NOT_FOUND || module->onDemandImage.empty()) {
      return cuFail(err, errLen, TESSERA_PLUGIN_ERROR_BAD_IMAGE, r,
                    "kernel_get '" + std::string(name) + "': no " + fbName);
    }
    // Else the twin is in the on-demand image: the first launch that needs
    // it loads it (fallbackFor).
    k->fallbackThreads = w[2];
    k->fallbackShared = w[3];
  }
  *kernel = k.get();
  module->kernels.emplace(name, std::move(k));
  return TESSERA_PLUGIN_OK;
}

static int cudaModuleAddOnDemandImage(tessera_plugin_module module,
                                      const void *image, uint64_t size,
                                      char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!module || (!image && size))
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "module_add_on_demand_image: NULL argument");
  ImageKind kind =
      image && size ? classifyImage(image, size) : ImageKind::Unknown;
  if (kind != ImageKind::Ptx && kind != ImageKind::Cubin)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_BAD_IMAGE,
                "cuda on-demand image (%llu bytes) is not PTX text or a "
                "cubin (ELF)",
                (unsigned long long)size);
  std::lock_guard<std::mutex> lock(module->mutex);
  if (!module->onDemandImage.empty())
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "module_add_on_demand_image: the module has one already");
  module->onDemandImage.assign(static_cast<const char *>(image), size_t(size));
  return TESSERA_PLUGIN_OK;
}

/// The twin of TMA kernel `main` (`<name>__fallback`): found at kernel_get
/// in the module's image, or loaded here from the module's on-demand image
/// by the first launch that needs it (the driver JIT-compiles PTX then, for
/// about as long as ptxas takes; its cache under ~/.nv/ComputeCache keeps
/// the result for later processes). The caller has bound the context.
static int fallbackFor(tessera_plugin_kernel main, tessera_plugin_kernel &out,
                       char *err, size_t errLen) {
  out = main->fallback.load(std::memory_order_acquire);
  if (out)
    return TESSERA_PLUGIN_OK;
  tessera_plugin_module_s *module = main->module;
  std::lock_guard<std::mutex> lock(module->mutex);
  out = main->fallback.load(std::memory_order_acquire);
  if (out)
    return TESSERA_PLUGIN_OK;
  std::string fbName = main->name + "__fallback";
  if (!module->onDemandTried) {
    module->onDemandTried = true;
    const std::string &bytes = module->onDemandImage;
    ImageKind kind = classifyImage(bytes.data(), bytes.size());
    if (bytes.empty())
      module->onDemandError = "the module has no on-demand image";
    else if (!loadImage(module->device, bytes.data(), bytes.size(), kind,
                        module->onDemandModule, module->onDemandError))
      module->onDemandModule = nullptr;
    else if (kind == ImageKind::Cubin)
      cubinParamCounts(reinterpret_cast<const unsigned char *>(bytes.data()),
                       bytes.size(), module->paramCounts);
    else
      ptxParamCounts(bytes.data(), bytes.size(), module->paramCounts);
  }
  if (!module->onDemandModule)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_LAUNCH,
                "launch of '%s' needs its twin without TMA (%s): %s",
                main->name.c_str(), fbName.c_str(),
                module->onDemandError.c_str());
  CUfunction fb = nullptr;
  if (CUresult r =
          gCu.cuModuleGetFunction(&fb, module->onDemandModule, fbName.c_str());
      r != CUDA_SUCCESS)
    return cuFail(err, errLen, TESSERA_PLUGIN_ERROR_LAUNCH, r,
                  "launch of '" + main->name + "': no " + fbName +
                      " in the on-demand image");
  main->fallbackOwned = makeKernel(module, fb, fbName.c_str());
  out = main->fallbackOwned.get();
  main->fallback.store(out, std::memory_order_release);
  return TESSERA_PLUGIN_OK;
}

static int cudaLaunch(tessera_plugin_kernel kernel, tessera_plugin_stream s,
                      const tessera_plugin_launch *launch, char *err,
                      size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!kernel || !launch)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "launch: NULL kernel or launch");
  const char *name = kernel->name.c_str();
  if (launch->num_slots && !launch->slots)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "launch of '%s': %u slots but slots is NULL", name,
                launch->num_slots);
  BIND(kernel->device, "launch");

  // TMA kernels: the tensor maps, or the fallback kernel where a map cannot
  // describe a tensor.
  alignas(128) CUtensorMap maps[kMaxTensorMaps];
  size_t numMaps = 0;
  uint32_t block[3] = {launch->block[0], launch->block[1], launch->block[2]};
  uint32_t shared = launch->shared_bytes;
  if (!kernel->maps.empty()) {
    bool ok =
        kernel->maps.size() <= kMaxTensorMaps && gCu.cuTensorMapEncodeTiled;
    for (size_t i = 0; ok && i < kernel->maps.size(); ++i) {
      const auto &spec = kernel->maps[i];
      if (size_t(spec.slot) + spec.rank >= launch->num_slots) {
        ok = false;
        break;
      }
      // The tensor's slots: its pointer, then its dims outermost first; the
      // map wants them innermost first, with the byte strides of the outer
      // dims of the row-major tensor.
      uint64_t ptr = launch->slots[spec.slot];
      uint64_t dims[5] = {}, strides[4] = {};
      uint64_t pitch = spec.elemBytes;
      // TMA: 16-byte aligned base and strides, dims in [1, 2^32].
      ok = ptr % 16 == 0;
      for (uint32_t d = 0; ok && d < spec.rank; ++d) {
        dims[d] = launch->slots[spec.slot + spec.rank - d];
        ok = dims[d] >= 1 && dims[d] <= (1ull << 32);
        if (d > 0) {
          strides[d - 1] = pitch;
          ok = ok && pitch % 16 == 0 && pitch < (1ull << 40);
        }
        pitch *= dims[d];
      }
      if (!ok)
        break;
      std::array<uint64_t, 7> key = {i,       ptr,     dims[0], dims[1],
                                     dims[2], dims[3], dims[4]};
      std::lock_guard<std::mutex> lock(kernel->mapMutex);
      auto found = kernel->mapCache.find(key);
      if (found == kernel->mapCache.end()) {
        CUtensorMap map;
        uint32_t elem[5] = {1, 1, 1, 1, 1};
        CUresult r = gCu.cuTensorMapEncodeTiled(
            &map, int(spec.dataType), spec.rank,
            reinterpret_cast<void *>(uintptr_t(ptr)), dims, strides, spec.box,
            elem, /*interleave*/ 0, int(spec.swizzle), int(spec.l2),
            /*oob fill zeros*/ 0);
        if (r != CUDA_SUCCESS) {
          ok = false;
          break;
        }
        if (kernel->mapCache.size() > 4096)
          kernel->mapCache.clear();
        found = kernel->mapCache.emplace(key, map).first;
      }
      maps[i] = found->second;
    }
    if (ok) {
      numMaps = kernel->maps.size();
    } else {
      tessera_plugin_kernel main = kernel;
      if (int rc = fallbackFor(main, kernel, err, errLen))
        return rc;
      block[0] = main->fallbackThreads;
      block[1] = block[2] = 1;
      shared = main->fallbackShared;
    }
  }
  if (int rc = checkParams(kernel, launch->num_slots, numMaps, err, errLen))
    return rc;

  // Above 48 KiB of dynamic shared memory the function must opt in, once per
  // new maximum (racing threads may both set it; that is harmless).
  if (shared > kernel->sharedLimit.load(std::memory_order_relaxed)) {
    CUresult r = gCu.cuFuncSetAttribute(
        kernel->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        int(shared));
    if (r != CUDA_SUCCESS)
      return cuFail(
          err, errLen, TESSERA_PLUGIN_ERROR_LAUNCH, r,
          "launch of '" + kernel->name +
              "': cannot raise dynamic "
              "shared memory to " +
              std::to_string(shared) + " bytes (device maximum " +
              std::to_string(kernel->device->info.max_shared_bytes_per_block) +
              "): cuFuncSetAttribute failed");
    uint32_t seen = kernel->sharedLimit.load(std::memory_order_relaxed);
    while (seen < shared &&
           !kernel->sharedLimit.compare_exchange_weak(seen, shared))
      ;
  }

  // Each slot is one parameter; the driver copies each parameter's own size
  // (4 or 8 bytes) from the slot's address, and slots are little-endian.
  // Tensor maps follow as 128-byte parameters (the driver copies each
  // parameter's own size from its address).
  void *inlineParams[36];
  std::vector<void *> heapParams;
  void **params = inlineParams;
  size_t numParams = launch->num_slots + numMaps;
  if (numParams > 36) {
    heapParams.resize(numParams);
    params = heapParams.data();
  }
  for (uint32_t i = 0; i < launch->num_slots; ++i)
    params[i] = const_cast<uint64_t *>(&launch->slots[i]);
  for (size_t i = 0; i < numMaps; ++i)
    params[launch->num_slots + i] = &maps[i];

  const uint32_t *g = launch->grid, *b = block;
  CUresult r = gCu.cuLaunchKernel(kernel->function, g[0], g[1], g[2], b[0],
                                  b[1], b[2], shared, streamOf(s),
                                  numParams ? params : nullptr, nullptr);
  if (r != CUDA_SUCCESS)
    return cuFail(err, errLen, TESSERA_PLUGIN_ERROR_LAUNCH, r,
                  "launch of '" + kernel->name + "' (grid " +
                      std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" +
                      std::to_string(g[2]) + ", block " + std::to_string(b[0]) +
                      "x" + std::to_string(b[1]) + "x" + std::to_string(b[2]) +
                      ", " + std::to_string(shared) +
                      " shared bytes): cuLaunchKernel failed");
  return TESSERA_PLUGIN_OK;
}

static const tessera_runtime_plugin kCudaPlugin = {
    TESSERA_RUNTIME_ABI_MAJOR,
    TESSERA_RUNTIME_ABI_MINOR,
    sizeof(tessera_runtime_plugin),
    "cuda",
    TESSERA_CUDA_PLUGIN_VERSION,
    cudaInitialize,
    cudaShutdown,
    cudaDeviceCount,
    cudaDeviceOpen,
    cudaDeviceClose,
    cudaDeviceInfo,
    cudaMemAlloc,
    cudaMemFree,
    cudaCopyToDevice,
    cudaCopyToHost,
    cudaCopyDevice,
    cudaMemSet,
    cudaStreamCreate,
    cudaStreamDestroy,
    cudaStreamSynchronize,
    cudaEventCreate,
    cudaEventDestroy,
    cudaEventRecord,
    cudaEventSynchronize,
    cudaEventElapsedMs,
    cudaModuleLoad,
    cudaModuleUnload,
    cudaKernelGet,
    cudaLaunch,
    cudaStreamWrap,
    cudaModuleAddOnDemandImage,
};

__attribute__((visibility("default"))) const tessera_runtime_plugin *
TESSERA_RUNTIME_PLUGIN_ENTRY(void) {
  return &kCudaPlugin;
}

__attribute__((visibility("default"))) int tessera_cuda_encode_tensor_map(
    void *tensor_map, uint32_t data_type, uint32_t rank,
    uint64_t global_address, const uint64_t *global_dim,
    const uint64_t *global_strides, const uint32_t *box_dim,
    const uint32_t *element_strides, uint32_t interleave, uint32_t swizzle,
    uint32_t l2_promotion, uint32_t oob_fill, char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!gCu.cuTensorMapEncodeTiled)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_UNAVAILABLE,
                "the CUDA driver has no cuTensorMapEncodeTiled (needs a "
                "CUDA 12 or newer driver)");
  if (!tensor_map || !global_dim || !box_dim || !element_strides ||
      (rank > 1 && !global_strides))
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "encode_tensor_map: NULL argument");
  CUtensorMap map; // aligned as the driver requires
  CUresult r = gCu.cuTensorMapEncodeTiled(
      &map, int(data_type), rank,
      reinterpret_cast<void *>(uintptr_t(global_address)), global_dim,
      global_strides, box_dim, element_strides, int(interleave), int(swizzle),
      int(l2_promotion), int(oob_fill));
  if (r != CUDA_SUCCESS)
    return cuFail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, r,
                  "encode_tensor_map: cuTensorMapEncodeTiled failed");
  static_assert(sizeof(CUtensorMap) == TESSERA_CUDA_TENSOR_MAP_BYTES, "");
  std::memcpy(tensor_map, &map, sizeof(map));
  return TESSERA_PLUGIN_OK;
}

} // extern "C"
