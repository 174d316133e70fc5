//===- hip_plugin.cpp - the hip runtime plugin's ABI table ----------------===//
//
// Runs hsaco images (backends/hip/compiler) through the HIP module API,
// reached only through HipSymbolTable: libamdhip64 is dlopened
// ($TESSERA_HIP_LIBRARY, else libamdhip64.so, .so.6, .so.5), so the plugin
// has no link-time ROCm dependency and loads on machines without it, where
// initialize reports TESSERA_PLUGIN_ERROR_UNAVAILABLE and the rest of
// tessera runs on.
//
// Devices are HIP device ordinals; every call makes its device current on
// the calling thread first (hipGetDevice is cheap; hipSetDevice only when it
// differs), since the host may call from any thread.
//
// Handles are checked: every handle the plugin returns is recorded until it
// is destroyed, and a call with a handle it does not know (NULL, freed, or
// never ours) fails with TESSERA_PLUGIN_ERROR_INVALID instead of following
// the pointer. Images are read (hsaco_reader.h) before HIP sees them.
//
// Launches pass the kernarg segment through hipModuleLaunchKernel's `extra`
// buffer (HIP_LAUNCH_PARAM_BUFFER_POINTER/SIZE/END) rather than
// `kernelParams`. The plugin lays the segment out itself from the code
// object's metadata, the same .args it checks the launch against: each
// explicit argument's .size low bytes of its slot (slots are little-endian)
// at its .offset, zeros elsewhere, .kernarg_segment_size bytes in all.
// HIP copies each explicit argument from the buffer at its offset and
// writes the hidden arguments (block counts, dynamic LDS size, ...) itself
// (ROCm/clr hipamd/src/hip_module.cpp, ihipLaunchKernelCommand). So what
// the kernel reads is exactly what the plugin wrote and can be checked byte
// for byte (the tests' stand-in library records it), and HIP never walks a
// pointer array whose length it cannot know: with kernelParams it reads one
// pointer per parameter of its own signature.
//
// Dynamic LDS is sharedMemBytes; AMD GPUs need no opt-in above a default
// (there is no 48 KiB split as on NVIDIA): the limit is the device's LDS per
// block, checked here together with the kernel's static LDS.
//
//===----------------------------------------------------------------------===//

#include "hip_api.h"
#include "hip_symbol_table.h"
#include "hsaco_reader.h"

#include "tessera/plugin/runtime_abi.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#ifndef TESSERA_HIP_PLUGIN_VERSION
#define TESSERA_HIP_PLUGIN_VERSION "0.1.0"
#endif

using namespace tessera::hip;

namespace {

HipSymbolTable gHip;

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

/// "<what>: hipErrorX (text)".
int hipFail(char *err, size_t errLen, int code, hipError_t result,
            const std::string &what) {
  return fail(err, errLen, code, "%s: %s", what.c_str(),
              gHip.describe(result).c_str());
}

/// The plugin code for a failed HIP call whose caller has no better idea.
int codeFor(hipError_t result, int fallback) {
  switch (result) {
  case hipErrorOutOfMemory:
    return TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY;
  case hipErrorInvalidValue:
  case hipErrorInvalidHandle:
    return TESSERA_PLUGIN_ERROR_INVALID;
  case hipErrorNoDevice:
  case hipErrorInvalidDevice:
    return TESSERA_PLUGIN_ERROR_UNAVAILABLE;
  default:
    return fallback;
  }
}

#define REQUIRE_READY(err, errLen)                                             \
  if (!gReady.load(std::memory_order_acquire))                                 \
  return fail(err, errLen, TESSERA_PLUGIN_ERROR_UNAVAILABLE,                   \
              "hip plugin is not initialized (or initialize failed)")

// Calls a HIP function; on failure returns from the enclosing function with
// `code` (refined by codeFor) and "<context>: <name> failed: <error>".
#define HIP_CHECK(call, code, context)                                         \
  do {                                                                         \
    hipError_t hipResult_ = gHip.call;                                         \
    if (hipResult_ != hipSuccess)                                              \
      return hipFail(                                                          \
          err, errLen, codeFor(hipResult_, code), hipResult_,                  \
          std::string(context) + ": " +                                        \
              std::string(#call).substr(0, std::string(#call).find('(')) +     \
              " failed");                                                      \
  } while (0)

/// The handles the plugin has handed out and not yet destroyed, by kind: a
/// call checks its handles here before following them.
enum class HandleKind { Device, Stream, Event, Module, Kernel };

class HandleRegistry {
public:
  void add(const void *handle, HandleKind kind) {
    std::unique_lock<std::shared_mutex> lock(mutex);
    live[handle] = kind;
  }
  void remove(const void *handle) {
    std::unique_lock<std::shared_mutex> lock(mutex);
    live.erase(handle);
  }
  bool has(const void *handle, HandleKind kind) const {
    if (!handle)
      return false;
    std::shared_lock<std::shared_mutex> lock(mutex);
    auto it = live.find(handle);
    return it != live.end() && it->second == kind;
  }

private:
  mutable std::shared_mutex mutex;
  std::unordered_map<const void *, HandleKind> live;
};

HandleRegistry &handles() {
  static HandleRegistry registry;
  return registry;
}

} // namespace

// The ABI's opaque types. A device keeps track of what was created on it, so
// that closing it frees whatever the host left behind.
struct tessera_plugin_device_s {
  uint32_t ordinal = 0;
  hipDevice_t device = 0;
  tessera_plugin_device_info info;
  std::string targetId; // gcnArchName, e.g. gfx942:sramecc+:xnack-
  std::vector<std::string> features;
  std::mutex childrenMutex;
  std::set<tessera_plugin_stream> streams;
  std::set<tessera_plugin_event> events;
  std::set<tessera_plugin_module> modules;
};

struct tessera_plugin_stream_s {
  tessera_plugin_device device = nullptr;
  hipStream_t stream = nullptr;
  bool owned = true; // false: a wrapped stream its creator destroys
};

struct tessera_plugin_event_s {
  tessera_plugin_device device = nullptr;
  hipEvent_t event = nullptr;
};

struct tessera_plugin_kernel_s {
  tessera_plugin_module module = nullptr;
  tessera_plugin_device device = nullptr;
  hipFunction_t function = nullptr;
  KernelDescriptor desc;
  std::vector<KernelArgument> args; // the explicit ones: one per slot
};

struct tessera_plugin_module_s {
  tessera_plugin_device device = nullptr;
  hipModule_t module = nullptr;
  // HIP may read the image after hipModuleLoadData returns (its code
  // objects load lazily): the module keeps its own copy, 8-byte aligned.
  std::vector<uint64_t> image;
  CodeObject code;
  std::mutex mutex;
  // Kernels live as long as their module; kernel_get of the same name
  // returns the same handle.
  std::map<std::string, std::unique_ptr<tessera_plugin_kernel_s>> kernels;
};

namespace {

/// Makes `device` current on this thread.
hipError_t bindDevice(tessera_plugin_device device) {
  int current = -1;
  if (gHip.hipGetDevice(&current) == hipSuccess &&
      current == int(device->ordinal))
    return hipSuccess;
  return gHip.hipSetDevice(int(device->ordinal));
}

#define BIND(device, what)                                                     \
  do {                                                                         \
    hipError_t bindResult_ = bindDevice(device);                               \
    if (bindResult_ != hipSuccess)                                             \
      return hipFail(                                                          \
          err, errLen, codeFor(bindResult_, TESSERA_PLUGIN_ERROR_INTERNAL),    \
          bindResult_, std::string(what) + ": hipSetDevice failed");           \
  } while (0)

#define REQUIRE_HANDLE(handle, kind, what)                                     \
  if (!handles().has(handle, HandleKind::kind))                                \
  return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "%s: %s is %s", what, \
              #handle, (handle) ? "not a live hip plugin handle" : "NULL")

/// INVALID unless `s` is NULL or a live stream of `device`.
int checkStream(tessera_plugin_device device, tessera_plugin_stream s,
                const char *what, char *err, size_t errLen) {
  if (!s)
    return TESSERA_PLUGIN_OK;
  if (!handles().has(s, HandleKind::Stream))
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "%s: the stream is not a live hip stream handle", what);
  if (s->device != device)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "%s: the stream belongs to hip device %u, not %u", what,
                s->device->ordinal, device->ordinal);
  return TESSERA_PLUGIN_OK;
}

hipStream_t streamOf(tessera_plugin_stream s) {
  return s ? s->stream : nullptr;
}

void destroyStream(tessera_plugin_stream s) {
  handles().remove(s);
  if (s->owned && gReady.load(std::memory_order_acquire) &&
      bindDevice(s->device) == hipSuccess)
    gHip.hipStreamDestroy(s->stream);
  delete s;
}

void destroyEvent(tessera_plugin_event e) {
  handles().remove(e);
  if (gReady.load(std::memory_order_acquire) &&
      bindDevice(e->device) == hipSuccess)
    gHip.hipEventDestroy(e->event);
  delete e;
}

void destroyModule(tessera_plugin_module m) {
  for (auto &[name, kernel] : m->kernels)
    handles().remove(kernel.get());
  handles().remove(m);
  if (gReady.load(std::memory_order_acquire) &&
      bindDevice(m->device) == hipSuccess)
    gHip.hipModuleUnload(m->module);
  delete m;
}

/// Loads the library: $TESSERA_HIP_LIBRARY when set, else the usual names
/// of libamdhip64 in turn.
bool loadLibrary(std::string &message) {
  const char *override = std::getenv("TESSERA_HIP_LIBRARY");
  if (override && *override)
    return gHip.load(override, message);
  std::string first;
  for (const char *name :
       {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"}) {
    std::string error;
    if (gHip.load(name, error))
      return true;
    // A library that loads but is not usable says so; do not hide it
    // behind a later name that is simply absent.
    if (error.rfind("libamdhip64 not found", 0) != 0) {
      message = error;
      return false;
    }
    if (first.empty())
      first = error;
  }
  // "libamdhip64 not found (dlopen libamdhip64.so: ...)"
  message = first.substr(0, first.size() - 1) +
            "; also tried libamdhip64.so.6 and libamdhip64.so.5)";
  return false;
}

} // namespace

namespace {

int initializePlugin(char *err, size_t errLen) {
  std::lock_guard<std::mutex> lock(gInitMutex);
  if (!gInitDone) {
    gInitDone = true;
    gInitCode = TESSERA_PLUGIN_OK;
    gInitMessage.clear();
    std::string error;
    hipError_t result;
    int count = 0;
    if (!loadLibrary(error)) {
      gInitCode = TESSERA_PLUGIN_ERROR_UNAVAILABLE;
      gInitMessage = error;
    } else if ((result = gHip.hipInit(0)) != hipSuccess) {
      gInitCode = TESSERA_PLUGIN_ERROR_UNAVAILABLE;
      gInitMessage = "no HIP device: hipInit failed: " + gHip.describe(result);
    } else if ((result = gHip.hipGetDeviceCount(&count)) != hipSuccess ||
               count <= 0) {
      gInitCode = TESSERA_PLUGIN_ERROR_UNAVAILABLE;
      gInitMessage = result == hipSuccess || result == hipErrorNoDevice
                         ? "no HIP device"
                         : "no HIP device: hipGetDeviceCount failed: " +
                               gHip.describe(result);
    }
    gReady.store(gInitCode == TESSERA_PLUGIN_OK, std::memory_order_release);
  }
  if (gInitCode != TESSERA_PLUGIN_OK)
    return fail(err, errLen, gInitCode, "%s", gInitMessage.c_str());
  return TESSERA_PLUGIN_OK;
}

// Objects must be released before shutdown. libamdhip64 stays loaded (HIP
// does not expect to be unloaded); a later initialize starts over, reading
// $TESSERA_HIP_LIBRARY again.
void shutdownPlugin(void) {
  std::lock_guard<std::mutex> lock(gInitMutex);
  gReady.store(false, std::memory_order_release);
  gInitDone = false;
}

int deviceCount(uint32_t *count, char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!count)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "count is NULL");
  int n = 0;
  HIP_CHECK(hipGetDeviceCount(&n), TESSERA_PLUGIN_ERROR_INTERNAL,
            "device_count");
  *count = n > 0 ? uint32_t(n) : 0;
  return TESSERA_PLUGIN_OK;
}

int deviceOpen(uint32_t ordinal, tessera_plugin_device *out, char *err,
               size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!out)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "device is NULL");
  int count = 0;
  HIP_CHECK(hipGetDeviceCount(&count), TESSERA_PLUGIN_ERROR_INTERNAL,
            "device_open");
  if (count < 0 || ordinal >= uint32_t(count))
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "hip device %u does not exist (%d present)", ordinal, count);
  auto d = std::make_unique<tessera_plugin_device_s>();
  d->ordinal = ordinal;
  const int o = int(ordinal);
  HIP_CHECK(hipDeviceGet(&d->device, o), TESSERA_PLUGIN_ERROR_INTERNAL,
            "device_open");

  tessera_plugin_device_info &info = d->info;
  std::memset(&info, 0, sizeof(info));
  HIP_CHECK(hipDeviceGetName(info.name, int(sizeof(info.name)) - 1, d->device),
            TESSERA_PLUGIN_ERROR_INTERNAL, "device_open");
  info.name[sizeof(info.name) - 1] = '\0';
  std::snprintf(info.triple, sizeof(info.triple), "amdgcn-amd-amdhsa");
  int cus = 0, threads = 0, lds = 0, wave = 0;
  size_t total = 0;
  HIP_CHECK(
      hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, o),
      TESSERA_PLUGIN_ERROR_INTERNAL, "device_open");
  HIP_CHECK(
      hipDeviceGetAttribute(&threads, hipDeviceAttributeMaxThreadsPerBlock, o),
      TESSERA_PLUGIN_ERROR_INTERNAL, "device_open");
  HIP_CHECK(
      hipDeviceGetAttribute(&lds, hipDeviceAttributeMaxSharedMemoryPerBlock, o),
      TESSERA_PLUGIN_ERROR_INTERNAL, "device_open");
  HIP_CHECK(hipDeviceGetAttribute(&wave, hipDeviceAttributeWarpSize, o),
            TESSERA_PLUGIN_ERROR_INTERNAL, "device_open");
  HIP_CHECK(hipDeviceTotalMem(&total, d->device), TESSERA_PLUGIN_ERROR_INTERNAL,
            "device_open");
  info.total_memory = total;
  info.compute_units = cus > 0 ? uint32_t(cus) : 0;
  info.max_threads_per_block = threads > 0 ? uint32_t(threads) : 0;
  info.max_shared_bytes_per_block = lds > 0 ? uint32_t(lds) : 0;
  info.warp_size = wave > 0 ? uint32_t(wave) : 0;

  // The chip: gcnArchName, from the device properties (hip_api.h).
  std::vector<unsigned char> props(kDevicePropBufferBytes, 0);
  size_t nameAt = kDevicePropR0600GcnArchName;
  hipError_t r;
  const char *call = "hipGetDevicePropertiesR0600";
  if (gHip.hipGetDevicePropertiesR0600) {
    r = gHip.hipGetDevicePropertiesR0600(props.data(), o);
  } else {
    nameAt = kDevicePropR0000GcnArchName;
    call = "hipGetDeviceProperties";
    r = gHip.hipGetDeviceProperties(props.data(), o);
  }
  if (r != hipSuccess)
    return hipFail(err, errLen, codeFor(r, TESSERA_PLUGIN_ERROR_INTERNAL), r,
                   std::string("device_open: ") + call + " failed");
  const char *arch = reinterpret_cast<const char *>(props.data() + nameAt);
  d->targetId.assign(arch, strnlen(arch, kGcnArchNameBytes));
  std::string chip;
  splitTargetId(d->targetId, chip, d->features);
  if (chip.rfind("gfx", 0) != 0 || chip.size() >= sizeof(info.chip))
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_UNAVAILABLE,
                "hip device %u reports no gfx target (gcnArchName '%.64s')",
                ordinal, d->targetId.c_str());
  std::snprintf(info.chip, sizeof(info.chip), "%s", chip.c_str());

  *out = d.release();
  handles().add(*out, HandleKind::Device);
  return TESSERA_PLUGIN_OK;
}

void deviceClose(tessera_plugin_device device) {
  if (!handles().has(device, HandleKind::Device))
    return;
  handles().remove(device);
  // What the host left behind: modules (and their kernels), events,
  // streams.
  for (tessera_plugin_module m : device->modules)
    destroyModule(m);
  for (tessera_plugin_event e : device->events)
    destroyEvent(e);
  for (tessera_plugin_stream s : device->streams)
    destroyStream(s);
  delete device;
}

int deviceInfo(tessera_plugin_device device, tessera_plugin_device_info *info,
               char *err, size_t errLen) {
  REQUIRE_HANDLE(device, Device, "device_info");
  if (!info)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "device_info: info is NULL");
  *info = device->info;
  return TESSERA_PLUGIN_OK;
}

int memAlloc(tessera_plugin_device device, uint64_t bytes,
             tessera_device_ptr *ptr, char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  REQUIRE_HANDLE(device, Device, "mem_alloc");
  if (!ptr)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "mem_alloc: ptr is NULL");
  BIND(device, "mem_alloc");
  void *p = nullptr;
  // A zero-byte buffer still gets an address.
  hipError_t result = gHip.hipMalloc(&p, bytes ? size_t(bytes) : 1);
  if (result != hipSuccess)
    return hipFail(err, errLen,
                   codeFor(result, TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY), result,
                   "mem_alloc of " + std::to_string(bytes) +
                       " bytes on hip device " +
                       std::to_string(device->ordinal) + ": hipMalloc failed");
  *ptr = tessera_device_ptr(uintptr_t(p));
  return TESSERA_PLUGIN_OK;
}

void memFree(tessera_plugin_device device, tessera_device_ptr ptr) {
  if (!ptr || !gReady.load(std::memory_order_acquire) ||
      !handles().has(device, HandleKind::Device))
    return;
  if (bindDevice(device) == hipSuccess)
    gHip.hipFree(reinterpret_cast<void *>(uintptr_t(ptr)));
}

/// Checks a copy's or fill's device, stream and pointers.
#define COPY_PROLOGUE(what, dstNull, srcNull)                                  \
  REQUIRE_READY(err, errLen);                                                  \
  REQUIRE_HANDLE(device, Device, what);                                        \
  if (int rc_ = checkStream(device, s, what, err, errLen))                     \
    return rc_;                                                                \
  if (!bytes)                                                                  \
    return TESSERA_PLUGIN_OK;                                                  \
  if ((dstNull) || (srcNull))                                                  \
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,                     \
                "%s of %llu bytes: NULL %s", what, (unsigned long long)bytes,  \
                (dstNull) ? "destination" : "source");                         \
  BIND(device, what)

// With a NULL stream the operation runs on the null stream and is waited for.
#define FINISH_IF_SYNC(s, context)                                             \
  if (!(s))                                                                    \
  HIP_CHECK(hipStreamSynchronize(nullptr), TESSERA_PLUGIN_ERROR_LAUNCH, context)

int copyToDevice(tessera_plugin_device device, tessera_plugin_stream s,
                 tessera_device_ptr dst, const void *src, uint64_t bytes,
                 char *err, size_t errLen) {
  COPY_PROLOGUE("copy_to_device", !dst, !src);
  void *d = reinterpret_cast<void *>(uintptr_t(dst));
  if (s)
    HIP_CHECK(
        hipMemcpyAsync(d, src, size_t(bytes), hipMemcpyHostToDevice, s->stream),
        TESSERA_PLUGIN_ERROR_INVALID, "copy_to_device");
  else
    HIP_CHECK(hipMemcpy(d, src, size_t(bytes), hipMemcpyHostToDevice),
              TESSERA_PLUGIN_ERROR_INVALID, "copy_to_device");
  return TESSERA_PLUGIN_OK;
}

int copyToHost(tessera_plugin_device device, tessera_plugin_stream s, void *dst,
               tessera_device_ptr src, uint64_t bytes, char *err,
               size_t errLen) {
  COPY_PROLOGUE("copy_to_host", !dst, !src);
  const void *from = reinterpret_cast<const void *>(uintptr_t(src));
  if (s)
    HIP_CHECK(hipMemcpyAsync(dst, from, size_t(bytes), hipMemcpyDeviceToHost,
                             s->stream),
              TESSERA_PLUGIN_ERROR_INVALID, "copy_to_host");
  else
    HIP_CHECK(hipMemcpy(dst, from, size_t(bytes), hipMemcpyDeviceToHost),
              TESSERA_PLUGIN_ERROR_INVALID, "copy_to_host");
  return TESSERA_PLUGIN_OK;
}

int copyDevice(tessera_plugin_device device, tessera_plugin_stream s,
               tessera_device_ptr dst, tessera_device_ptr src, uint64_t bytes,
               char *err, size_t errLen) {
  COPY_PROLOGUE("copy_device", !dst, !src);
  // hipMemcpy between device buffers may return before the copy ends: the
  // NULL stream's copy is waited for explicitly.
  HIP_CHECK(hipMemcpyAsync(reinterpret_cast<void *>(uintptr_t(dst)),
                           reinterpret_cast<const void *>(uintptr_t(src)),
                           size_t(bytes), hipMemcpyDeviceToDevice, streamOf(s)),
            TESSERA_PLUGIN_ERROR_INVALID, "copy_device");
  FINISH_IF_SYNC(s, "copy_device");
  return TESSERA_PLUGIN_OK;
}

int memSet(tessera_plugin_device device, tessera_plugin_stream s,
           tessera_device_ptr dst, uint8_t value, uint64_t bytes, char *err,
           size_t errLen) {
  COPY_PROLOGUE("mem_set", !dst, false);
  HIP_CHECK(hipMemsetAsync(reinterpret_cast<void *>(uintptr_t(dst)), int(value),
                           size_t(bytes), streamOf(s)),
            TESSERA_PLUGIN_ERROR_INVALID, "mem_set");
  FINISH_IF_SYNC(s, "mem_set");
  return TESSERA_PLUGIN_OK;
}

int streamCreate(tessera_plugin_device device, tessera_plugin_stream *s,
                 char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  REQUIRE_HANDLE(device, Device, "stream_create");
  if (!s)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "stream_create: s is NULL");
  BIND(device, "stream_create");
  hipStream_t stream = nullptr;
  HIP_CHECK(hipStreamCreate(&stream), TESSERA_PLUGIN_ERROR_INTERNAL,
            "stream_create");
  auto *created = new tessera_plugin_stream_s{device, stream, /*owned=*/true};
  {
    std::lock_guard<std::mutex> lock(device->childrenMutex);
    device->streams.insert(created);
  }
  handles().add(created, HandleKind::Stream);
  *s = created;
  return TESSERA_PLUGIN_OK;
}

void streamDestroy(tessera_plugin_stream s) {
  if (!handles().has(s, HandleKind::Stream))
    return;
  {
    std::lock_guard<std::mutex> lock(s->device->childrenMutex);
    s->device->streams.erase(s);
  }
  destroyStream(s);
}

int streamWrap(tessera_plugin_device device, void *native,
               tessera_plugin_stream *s, char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  REQUIRE_HANDLE(device, Device, "stream_wrap");
  if (!native || !s)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "stream_wrap: NULL %s", native ? "s" : "native stream");
  auto *created = new tessera_plugin_stream_s{
      device, static_cast<hipStream_t>(native), /*owned=*/false};
  {
    std::lock_guard<std::mutex> lock(device->childrenMutex);
    device->streams.insert(created);
  }
  handles().add(created, HandleKind::Stream);
  *s = created;
  return TESSERA_PLUGIN_OK;
}

int streamSynchronize(tessera_plugin_stream s, char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  // NULL: the null stream of the device current on this thread (the one
  // this thread used last).
  if (s) {
    REQUIRE_HANDLE(s, Stream, "stream_synchronize");
    BIND(s->device, "stream_synchronize");
  }
  HIP_CHECK(hipStreamSynchronize(streamOf(s)), TESSERA_PLUGIN_ERROR_LAUNCH,
            "stream_synchronize");
  return TESSERA_PLUGIN_OK;
}

int eventCreate(tessera_plugin_device device, tessera_plugin_event *e,
                char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  REQUIRE_HANDLE(device, Device, "event_create");
  if (!e)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "event_create: e is NULL");
  BIND(device, "event_create");
  hipEvent_t event = nullptr;
  HIP_CHECK(hipEventCreate(&event), TESSERA_PLUGIN_ERROR_INTERNAL,
            "event_create");
  auto *created = new tessera_plugin_event_s{device, event};
  {
    std::lock_guard<std::mutex> lock(device->childrenMutex);
    device->events.insert(created);
  }
  handles().add(created, HandleKind::Event);
  *e = created;
  return TESSERA_PLUGIN_OK;
}

void eventDestroy(tessera_plugin_event e) {
  if (!handles().has(e, HandleKind::Event))
    return;
  {
    std::lock_guard<std::mutex> lock(e->device->childrenMutex);
    e->device->events.erase(e);
  }
  destroyEvent(e);
}

int eventRecord(tessera_plugin_event e, tessera_plugin_stream s, char *err,
                size_t errLen) {
  REQUIRE_READY(err, errLen);
  REQUIRE_HANDLE(e, Event, "event_record");
  if (int rc = checkStream(e->device, s, "event_record", err, errLen))
    return rc;
  BIND(e->device, "event_record");
  HIP_CHECK(hipEventRecord(e->event, streamOf(s)), TESSERA_PLUGIN_ERROR_INVALID,
            "event_record");
  return TESSERA_PLUGIN_OK;
}

int eventSynchronize(tessera_plugin_event e, char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  REQUIRE_HANDLE(e, Event, "event_synchronize");
  BIND(e->device, "event_synchronize");
  HIP_CHECK(hipEventSynchronize(e->event), TESSERA_PLUGIN_ERROR_LAUNCH,
            "event_synchronize");
  return TESSERA_PLUGIN_OK;
}

int eventElapsedMs(tessera_plugin_event start, tessera_plugin_event end,
                   float *ms, char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  REQUIRE_HANDLE(start, Event, "event_elapsed_ms");
  REQUIRE_HANDLE(end, Event, "event_elapsed_ms");
  if (!ms)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "event_elapsed_ms: ms is NULL");
  BIND(start->device, "event_elapsed_ms");
  hipError_t result = gHip.hipEventElapsedTime(ms, start->event, end->event);
  if (result == hipErrorNotReady)
    return hipFail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, result,
                   "event_elapsed_ms: an event has not completed yet "
                   "(synchronize it first)");
  if (result != hipSuccess)
    return hipFail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, result,
                   "event_elapsed_ms: hipEventElapsedTime failed (were both "
                   "events recorded?)");
  return TESSERA_PLUGIN_OK;
}

int moduleLoad(tessera_plugin_device device, const void *image, uint64_t size,
               tessera_plugin_module *module, char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  REQUIRE_HANDLE(device, Device, "module_load");
  if (!module)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "module_load: module is NULL");
  const char *chip = device->info.chip;
  auto m = std::make_unique<tessera_plugin_module_s>();
  std::string why;
  if (!readCodeObject(image, size_t(size), m->code, why))
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_BAD_IMAGE,
                "hip module image (%llu bytes) %s", (unsigned long long)size,
                why.c_str());
  if (m->code.chip != chip)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_BAD_IMAGE,
                "hip module image is a code object for %s (amdhsa.target "
                "%s); hip device %u is %s",
                m->code.chip.c_str(), m->code.target.c_str(), device->ordinal,
                chip);
  why = featureMismatch(m->code.features, device->features);
  if (!why.empty())
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_BAD_IMAGE,
                "hip module image for %s was %s (gcnArchName %s)", chip,
                why.c_str(), device->targetId.c_str());
  m->image.assign((size_t(size) + 7) / 8, 0);
  std::memcpy(m->image.data(), image, size_t(size));
  m->device = device;

  BIND(device, "module_load");
  hipError_t result = gHip.hipModuleLoadData(&m->module, m->image.data());
  if (result != hipSuccess)
    return hipFail(err, errLen, TESSERA_PLUGIN_ERROR_BAD_IMAGE, result,
                   std::string("cannot load the code object for ") + chip +
                       " (" + std::to_string(m->code.kernels.size()) +
                       " kernels): hipModuleLoadData failed");
  tessera_plugin_module created = m.release();
  {
    std::lock_guard<std::mutex> lock(device->childrenMutex);
    device->modules.insert(created);
  }
  handles().add(created, HandleKind::Module);
  *module = created;
  return TESSERA_PLUGIN_OK;
}

void moduleUnload(tessera_plugin_module module) {
  if (!handles().has(module, HandleKind::Module))
    return;
  {
    std::lock_guard<std::mutex> lock(module->device->childrenMutex);
    module->device->modules.erase(module);
  }
  destroyModule(module);
}

int kernelGet(tessera_plugin_module module, const char *name,
              tessera_plugin_kernel *kernel, char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  REQUIRE_HANDLE(module, Module, "kernel_get");
  if (!name || !kernel)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "kernel_get: NULL %s", name ? "kernel" : "name");
  std::lock_guard<std::mutex> lock(module->mutex);
  auto found = module->kernels.find(name);
  if (found != module->kernels.end()) {
    *kernel = found->second.get();
    return TESSERA_PLUGIN_OK;
  }
  const KernelDescriptor *desc = module->code.find(name);
  if (!desc) {
    std::string names;
    for (const KernelDescriptor &k : module->code.kernels)
      names += (names.empty() ? "" : ", ") + k.name;
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_NOT_FOUND,
                "kernel '%s' not found in the hip module (its code object "
                "has: %s)",
                name, names.empty() ? "no kernels" : names.c_str());
  }
  auto k = std::make_unique<tessera_plugin_kernel_s>();
  k->module = module;
  k->device = module->device;
  k->desc = *desc;
  k->args = desc->explicitArgs();
  // Every explicit argument is one slot: a pointer or a value of at most 8
  // bytes.
  for (size_t i = 0; i < k->args.size(); ++i) {
    const KernelArgument &a = k->args[i];
    if ((a.valueKind != "by_value" && a.valueKind != "global_buffer") ||
        a.size == 0 || a.size > sizeof(uint64_t))
      return fail(err, errLen, TESSERA_PLUGIN_ERROR_BAD_IMAGE,
                  "kernel '%s': argument %zu is a %u-byte %s; the hip plugin "
                  "passes only pointers and values of at most 8 bytes "
                  "(tessera's slots)",
                  name, i, a.size, a.valueKind.c_str());
  }
  BIND(module->device, "kernel_get");
  hipError_t result =
      gHip.hipModuleGetFunction(&k->function, module->module, name);
  if (result == hipErrorNotFound)
    return hipFail(err, errLen, TESSERA_PLUGIN_ERROR_NOT_FOUND, result,
                   std::string("kernel '") + name +
                       "' is in the code object's metadata but "
                       "hipModuleGetFunction did not find it");
  if (result != hipSuccess)
    return hipFail(err, errLen, TESSERA_PLUGIN_ERROR_INTERNAL, result,
                   std::string("kernel_get '") + name +
                       "': hipModuleGetFunction failed");
  tessera_plugin_kernel created = k.get();
  module->kernels.emplace(name, std::move(k));
  handles().add(created, HandleKind::Kernel);
  *kernel = created;
  return TESSERA_PLUGIN_OK;
}

int launch(tessera_plugin_kernel kernel, tessera_plugin_stream s,
           const tessera_plugin_launch *launch, char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  REQUIRE_HANDLE(kernel, Kernel, "launch");
  const char *name = kernel->desc.name.c_str();
  if (!launch)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "launch of '%s': launch is NULL", name);
  if (int rc = checkStream(kernel->device, s, "launch", err, errLen))
    return rc;
  const KernelDescriptor &desc = kernel->desc;
  const tessera_plugin_device_info &info = kernel->device->info;
  const uint32_t *g = launch->grid, *b = launch->block;

  if (launch->num_slots != kernel->args.size())
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "launch of '%s': the kernel takes %zu arguments (the .args of "
                "its code object) but the launch has %u slots",
                name, kernel->args.size(), launch->num_slots);
  if (launch->num_slots && !launch->slots)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "launch of '%s': %u slots but slots is NULL", name,
                launch->num_slots);
  uint64_t threads = uint64_t(b[0]) * b[1] * b[2];
  if (!g[0] || !g[1] || !g[2] || !threads)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "launch of '%s': grid %ux%ux%u of blocks %ux%ux%u has an "
                "empty dimension",
                name, g[0], g[1], g[2], b[0], b[1], b[2]);
  const uint32_t *reqd = desc.reqdWorkgroupSize;
  if (reqd[0] && (b[0] != reqd[0] || b[1] != reqd[1] || b[2] != reqd[2]))
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "launch of '%s': blocks of %ux%ux%u threads, but the kernel "
                "was compiled for %ux%ux%u (.reqd_workgroup_size)",
                name, b[0], b[1], b[2], reqd[0], reqd[1], reqd[2]);
  if (desc.maxFlatWorkgroupSize && threads > desc.maxFlatWorkgroupSize)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "launch of '%s': blocks of %llu threads, more than the "
                "kernel's %u (.max_flat_workgroup_size)",
                name, (unsigned long long)threads, desc.maxFlatWorkgroupSize);
  if (info.max_threads_per_block && threads > info.max_threads_per_block)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "launch of '%s': blocks of %llu threads, more than the %u "
                "of %s",
                name, (unsigned long long)threads, info.max_threads_per_block,
                info.chip);
  // HSA dispatches count work-items per dimension in 32 bits.
  for (int d = 0; d < 3; ++d)
    if (uint64_t(g[d]) * b[d] > 0xffffffffull)
      return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                  "launch of '%s': %u blocks of %u threads in dimension %d "
                  "exceed 2^32 - 1 work-items",
                  name, g[d], b[d], d);
  uint64_t lds = uint64_t(desc.groupSegmentFixedSize) + launch->shared_bytes;
  if (info.max_shared_bytes_per_block && lds > info.max_shared_bytes_per_block)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "launch of '%s': %u bytes of dynamic LDS and the kernel's %u "
                "bytes of static LDS exceed the %u bytes a block may use on %s",
                name, launch->shared_bytes, desc.groupSegmentFixedSize,
                info.max_shared_bytes_per_block, info.chip);

  // The kernarg segment (see the top of this file).
  alignas(16) unsigned char inlineArgs[512];
  std::vector<uint64_t> heapArgs;
  unsigned char *args = inlineArgs;
  size_t argBytes = desc.kernargSegmentSize;
  if (argBytes > sizeof(inlineArgs)) {
    heapArgs.resize((argBytes + 7) / 8);
    args = reinterpret_cast<unsigned char *>(heapArgs.data());
  }
  std::memset(args, 0, argBytes ? argBytes : 1);
  for (size_t i = 0; i < kernel->args.size(); ++i) {
    const KernelArgument &a = kernel->args[i];
    uint64_t slot = launch->slots[i];
    std::memcpy(args + a.offset, &slot, a.size); // the low bytes
  }
  void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, args,
                   HIP_LAUNCH_PARAM_BUFFER_SIZE, &argBytes,
                   HIP_LAUNCH_PARAM_END};

  BIND(kernel->device, "launch");
  hipError_t r = gHip.hipModuleLaunchKernel(
      kernel->function, g[0], g[1], g[2], b[0], b[1], b[2],
      launch->shared_bytes, streamOf(s), nullptr, extra);
  if (r != hipSuccess)
    return hipFail(
        err, errLen, TESSERA_PLUGIN_ERROR_LAUNCH, r,
        "launch of '" + desc.name + "' (grid " + std::to_string(g[0]) + "x" +
            std::to_string(g[1]) + "x" + std::to_string(g[2]) + ", block " +
            std::to_string(b[0]) + "x" + std::to_string(b[1]) + "x" +
            std::to_string(b[2]) + ", " + std::to_string(launch->shared_bytes) +
            " bytes of dynamic LDS): hipModuleLaunchKernel failed");
  return TESSERA_PLUGIN_OK;
}

const tessera_runtime_plugin kHipPlugin = {
    TESSERA_RUNTIME_ABI_MAJOR,
    TESSERA_RUNTIME_ABI_MINOR,
    sizeof(tessera_runtime_plugin),
    "hip",
    TESSERA_HIP_PLUGIN_VERSION,
    initializePlugin,
    shutdownPlugin,
    deviceCount,
    deviceOpen,
    deviceClose,
    deviceInfo,
    memAlloc,
    memFree,
    copyToDevice,
    copyToHost,
    copyDevice,
    memSet,
    streamCreate,
    streamDestroy,
    streamSynchronize,
    eventCreate,
    eventDestroy,
    eventRecord,
    eventSynchronize,
    eventElapsedMs,
    moduleLoad,
    moduleUnload,
    kernelGet,
    launch,
    streamWrap,
};

} // namespace

extern "C" __attribute__((visibility("default"))) const tessera_runtime_plugin *
TESSERA_RUNTIME_PLUGIN_ENTRY(void) {
  return &kHipPlugin;
}
