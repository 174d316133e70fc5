//===- stand_in_hip.cpp - a stand-in for libamdhip64, for tests only ------===//
//
// An ABI test double of the HIP runtime (stand_in_hip.h): the hip* C
// functions the hip runtime plugin dlsyms, implemented on host memory for
// one (or a few) fake gfx942 devices. hipMalloc is malloc; copies and fills
// are memcpy/memset, checked against the live allocations as HIP checks
// its pointers; streams and events are counters; hipModuleLoadData checks
// that the image is an AMDGPU ELF (e_machine 224) and takes its kernel
// names from the symbol table's <kernel>.kd descriptors;
// hipModuleLaunchKernel runs nothing and records the call.
//
// It uses the plugin's own declarations of HIP's types and values
// (backends/hip/runtime/hip_api.h), so it cannot catch a wrong value there.
// Nothing that passes against it has run on AMD hardware.
//
// Built with TESSERA_STAND_IN_HIP_NO_LAUNCH it lacks hipModuleLaunchKernel
// (a library missing a symbol); with TESSERA_STAND_IN_HIP_ROCM5 it lacks
// hipGetDevicePropertiesR0600, as ROCm 5's libamdhip64.so.5 does.
//
//===----------------------------------------------------------------------===//

#include "stand_in_hip.h"

#include "hip_api.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

using namespace tessera::hip;

#define STAND_IN_API extern "C" __attribute__((visibility("default")))

namespace {

constexpr const char kArchName[] = "gfx942:sramecc+:xnack-";
constexpr int kWave = 64, kLdsPerBlock = 64 * 1024, kCus = 304;
constexpr int kMaxThreads = 1024;
constexpr size_t kTotalMemory = size_t(192) << 30;

struct Module;
struct Function {
  Module *module;
  std::string name;
};
struct Module {
  std::vector<std::unique_ptr<Function>> functions;
};
struct Stream {
  int device;
  uint64_t operations = 0;
};
struct Event {
  bool recorded = false;
  uint64_t stamp = 0;
};

struct State {
  std::mutex mutex;
  int deviceCount = 1;
  bool initialized = false;
  std::map<uintptr_t, size_t> allocations; // start -> bytes
  std::set<Stream *> streams;
  std::set<Event *> events;
  std::set<Module *> modules;
  std::vector<tessera_stand_in_hip_launch> launches;
  std::string failFunction;
  hipError_t failError = hipSuccess;
  uint64_t clock = 0;
};

State &state() {
  static State *s = new State; // outlives the plugin's calls at exit
  return *s;
}

thread_local int tCurrentDevice = 0;

/// The injected failure for `function`, once.
bool injected(State &s, const char *function, hipError_t &error) {
  if (s.failFunction != function)
    return false;
  error = s.failError;
  s.failFunction.clear();
  return true;
}

#define STAND_IN_ENTER(function)                                               \
  State &s = state();                                                          \
  std::lock_guard<std::mutex> lock(s.mutex);                                   \
  if (hipError_t injected_; injected(s, function, injected_))                  \
  return injected_

/// True when [p, p + bytes) lies inside one live allocation.
bool inAllocation(const State &s, const void *p, size_t bytes) {
  uintptr_t a = uintptr_t(p);
  auto it = s.allocations.upper_bound(a);
  if (it == s.allocations.begin())
    return false;
  --it;
  return a >= it->first && a - it->first <= it->second &&
         bytes <= it->second - (a - it->first);
}

bool liveStream(const State &s, hipStream_t stream) {
  return !stream || s.streams.count(reinterpret_cast<Stream *>(stream));
}

void touch(hipStream_t stream) {
  if (stream)
    ++reinterpret_cast<Stream *>(stream)->operations;
}

uint16_t rd16(const unsigned char *p) { return uint16_t(p[0] | p[1] << 8); }
uint32_t rd32(const unsigned char *p) {
  return uint32_t(rd16(p)) | uint32_t(rd16(p + 2)) << 16;
}
uint64_t rd64(const unsigned char *p) {
  return uint64_t(rd32(p)) | uint64_t(rd32(p + 4)) << 32;
}

/// The kernels of an AMDGPU code object: the names of its STT_OBJECT
/// symbols "<kernel>.kd" (the kernel descriptors HIP looks kernels up by).
/// Like HIP, it is given no size and trusts the ELF header's offsets.
bool readKernelNames(const unsigned char *p, std::vector<std::string> &names) {
  if (std::memcmp(p,
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      p[4] != 2 || p[5] != 1 || rd16(p + 18) != 224)
    return false;
  uint64_t shoff = rd64(p + 40);
  uint16_t shnum = rd16(p + 60), shentsize = rd16(p + 58);
  if (shentsize != 64 || shnum == 0 || shoff > (uint64_t(1) << 30))
    return false;
  for (uint16_t i = 0; i < shnum; ++i) {
    const unsigned char *sh = p + shoff + 64 * size_t(i);
    uint32_t type = rd32(sh + 4);
    if (type != 2 && type != 11) // SHT_SYMTAB, SHT_DYNSYM
      continue;
    uint32_t link = rd32(sh + 40);
    if (link >= shnum)
      return false;
    const unsigned char *strtab = p + shoff + 64 * size_t(link);
    const char *strings = reinterpret_cast<const char *>(p + rd64(strtab + 24));
    uint64_t stringBytes = rd64(strtab + 32);
    uint64_t offset = rd64(sh + 24), bytes = rd64(sh + 32);
    for (uint64_t at = 0; at + 24 <= bytes; at += 24) {
      const unsigned char *sym = p + offset + at;
      uint32_t name = rd32(sym);
      if ((sym[4] & 0xf) != 1 || name >= stringBytes) // STT_OBJECT
        continue;
      std::string n(strings + name,
                    strnlen(strings + name, stringBytes - name));
      if (n.size() > 3 && n.compare(n.size() - 3, 3, ".kd") == 0) {
        n.resize(n.size() - 3);
        bool seen = false;
        for (const std::string &k : names)
          seen |= k == n;
        if (!seen)
          names.push_back(n);
      }
    }
  }
  return true;
}

const char *errorName(hipError_t e) {
  switch (e) {
  case hipSuccess:
    return "hipSuccess";
  case hipErrorInvalidValue:
    return "hipErrorInvalidValue";
  case hipErrorOutOfMemory:
    return "hipErrorOutOfMemory";
  case hipErrorNotInitialized:
    return "hipErrorNotInitialized";
  case hipErrorInvalidConfiguration:
    return "hipErrorInvalidConfiguration";
  case hipErrorNoDevice:
    return "hipErrorNoDevice";
  case hipErrorInvalidDevice:
    return "hipErrorInvalidDevice";
  case hipErrorInvalidImage:
    return "hipErrorInvalidImage";
  case hipErrorInvalidHandle:
    return "hipErrorInvalidHandle";
  case hipErrorNotFound:
    return "hipErrorNotFound";
  case hipErrorNotReady:
    return "hipErrorNotReady";
  case hipErrorLaunchFailure:
    return "hipErrorLaunchFailure";
  default:
    return "hipErrorUnknown";
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// The test-only query API (stand_in_hip.h)
//===----------------------------------------------------------------------===//

STAND_IN_API int
tessera_stand_in_hip_launch_at(int index, tessera_stand_in_hip_launch *out) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!out || index < 0 || size_t(index) >= s.launches.size())
    return -1;
  *out = s.launches[size_t(index)];
  return 0;
}

STAND_IN_API void
tessera_stand_in_hip_counts_get(tessera_stand_in_hip_counts *out) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  out->allocations = int(s.allocations.size());
  out->streams = int(s.streams.size());
  out->events = int(s.events.size());
  out->modules = int(s.modules.size());
  out->launches = int(s.launches.size());
}

STAND_IN_API void tessera_stand_in_hip_reset(void) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.launches.clear();
  s.failFunction.clear();
}

STAND_IN_API void tessera_stand_in_hip_set_device_count(int count) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.deviceCount = count;
}

STAND_IN_API void tessera_stand_in_hip_fail_next(const char *function,
                                                 int error) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.failFunction = function ? function : "";
  s.failError = error;
}

//===----------------------------------------------------------------------===//
// The HIP runtime functions
//===----------------------------------------------------------------------===//

STAND_IN_API hipError_t hipInit(unsigned int flags) {
  STAND_IN_ENTER("hipInit");
  if (flags != 0)
    return hipErrorInvalidValue;
  s.initialized = true;
  return hipSuccess;
}

STAND_IN_API hipError_t hipGetDeviceCount(int *count) {
  STAND_IN_ENTER("hipGetDeviceCount");
  if (!count)
    return hipErrorInvalidValue;
  *count = s.deviceCount;
  return s.deviceCount > 0 ? hipSuccess : hipErrorNoDevice;
}

STAND_IN_API hipError_t hipDeviceGet(hipDevice_t *device, int ordinal) {
  STAND_IN_ENTER("hipDeviceGet");
  if (!device)
    return hipErrorInvalidValue;
  if (ordinal < 0 || ordinal >= s.deviceCount)
    return hipErrorInvalidDevice;
  *device = ordinal;
  return hipSuccess;
}

STAND_IN_API hipError_t hipDeviceGetName(char *name, int len,
                                         hipDevice_t device) {
  STAND_IN_ENTER("hipDeviceGetName");
  if (!name || len <= 0)
    return hipErrorInvalidValue;
  if (device < 0 || device >= s.deviceCount)
    return hipErrorInvalidDevice;
  std::snprintf(name, size_t(len),
                "tessera stand-in HIP device %d (%s, not "
                "hardware)",
                device, "gfx942");
  return hipSuccess;
}

STAND_IN_API hipError_t hipDeviceGetAttribute(int *value,
                                              hipDeviceAttribute_t attr,
                                              int ordinal) {
  STAND_IN_ENTER("hipDeviceGetAttribute");
  if (!value)
    return hipErrorInvalidValue;
  if (ordinal < 0 || ordinal >= s.deviceCount)
    return hipErrorInvalidDevice;
  switch (attr) {
  case hipDeviceAttributeMaxThreadsPerBlock:
    *value = kMaxThreads;
    return hipSuccess;
  case hipDeviceAttributeMultiprocessorCount:
    *value = kCus;
    return hipSuccess;
  case hipDeviceAttributeMaxSharedMemoryPerBlock:
    *value = kLdsPerBlock;
    return hipSuccess;
  case hipDeviceAttributeWarpSize:
    *value = kWave;
    return hipSuccess;
  default:
    return hipErrorInvalidValue;
  }
}

STAND_IN_API hipError_t hipDeviceTotalMem(size_t *bytes, hipDevice_t device) {
  STAND_IN_ENTER("hipDeviceTotalMem");
  if (!bytes)
    return hipErrorInvalidValue;
  if (device < 0 || device >= s.deviceCount)
    return hipErrorInvalidDevice;
  *bytes = kTotalMemory;
  return hipSuccess;
}

namespace {
hipError_t writeProps(State &s, void *prop, int ordinal, size_t bytes,
                      size_t archAt) {
  if (!prop)
    return hipErrorInvalidValue;
  if (ordinal < 0 || ordinal >= s.deviceCount)
    return hipErrorInvalidDevice;
  // Only as many bytes as the real struct has: a plugin passing less
  // would be overrun here too (AddressSanitizer would say so).
  std::memset(prop, 0, bytes);
  std::snprintf(static_cast<char *>(prop), 256, "tessera stand-in");
  std::memcpy(static_cast<char *>(prop) + archAt, kArchName, sizeof(kArchName));
  return hipSuccess;
}
} // namespace

#ifndef TESSERA_STAND_IN_HIP_ROCM5
STAND_IN_API hipError_t hipGetDevicePropertiesR0600(void *prop, int ordinal) {
  STAND_IN_ENTER("hipGetDevicePropertiesR0600");
  return writeProps(s, prop, ordinal, kDevicePropR0600Bytes,
                    kDevicePropR0600GcnArchName);
}
#endif

STAND_IN_API hipError_t hipGetDeviceProperties(void *prop, int ordinal) {
  STAND_IN_ENTER("hipGetDeviceProperties");
  return writeProps(s, prop, ordinal, kDevicePropR0000Bytes,
                    kDevicePropR0000GcnArchName);
}

STAND_IN_API hipError_t hipGetDevice(int *ordinal) {
  STAND_IN_ENTER("hipGetDevice");
  if (!ordinal)
    return hipErrorInvalidValue;
  *ordinal = tCurrentDevice;
  return hipSuccess;
}

STAND_IN_API hipError_t hipSetDevice(int ordinal) {
  STAND_IN_ENTER("hipSetDevice");
  if (ordinal < 0 || ordinal >= s.deviceCount)
    return hipErrorInvalidDevice;
  tCurrentDevice = ordinal;
  return hipSuccess;
}

STAND_IN_API hipError_t hipMalloc(void **ptr, size_t bytes) {
  STAND_IN_ENTER("hipMalloc");
  if (!ptr)
    return hipErrorInvalidValue;
  if (bytes == 0) {
    *ptr = nullptr;
    return hipSuccess;
  }
  if (bytes > kTotalMemory)
    return hipErrorOutOfMemory;
  void *p = std::malloc(bytes);
  if (!p)
    return hipErrorOutOfMemory;
  s.allocations[uintptr_t(p)] = bytes;
  *ptr = p;
  return hipSuccess;
}

STAND_IN_API hipError_t hipFree(void *ptr) {
  STAND_IN_ENTER("hipFree");
  if (!ptr)
    return hipSuccess;
  auto it = s.allocations.find(uintptr_t(ptr));
  if (it == s.allocations.end())
    return hipErrorInvalidValue;
  s.allocations.erase(it);
  std::free(ptr);
  return hipSuccess;
}

namespace {
hipError_t copy(State &s, void *dst, const void *src, size_t bytes,
                hipMemcpyKind kind, hipStream_t stream) {
  if (!liveStream(s, stream))
    return hipErrorInvalidHandle;
  if (!bytes)
    return hipSuccess;
  if (!dst || !src)
    return hipErrorInvalidValue;
  bool dstDevice =
      kind == hipMemcpyHostToDevice || kind == hipMemcpyDeviceToDevice;
  bool srcDevice =
      kind == hipMemcpyDeviceToHost || kind == hipMemcpyDeviceToDevice;
  if (!dstDevice && !srcDevice)
    return hipErrorInvalidValue; // host to host is not what the plugin does
  if ((dstDevice && !inAllocation(s, dst, bytes)) ||
      (srcDevice && !inAllocation(s, src, bytes)))
    return hipErrorInvalidValue;
  std::memmove(dst, src, bytes);
  touch(stream);
  return hipSuccess;
}
} // namespace

STAND_IN_API hipError_t hipMemcpy(void *dst, const void *src, size_t bytes,
                                  hipMemcpyKind kind) {
  STAND_IN_ENTER("hipMemcpy");
  return copy(s, dst, src, bytes, kind, nullptr);
}

STAND_IN_API hipError_t hipMemcpyAsync(void *dst, const void *src, size_t bytes,
                                       hipMemcpyKind kind, hipStream_t stream) {
  STAND_IN_ENTER("hipMemcpyAsync");
  return copy(s, dst, src, bytes, kind, stream);
}

STAND_IN_API hipError_t hipMemsetAsync(void *dst, int value, size_t bytes,
                                       hipStream_t stream) {
  STAND_IN_ENTER("hipMemsetAsync");
  if (!liveStream(s, stream))
    return hipErrorInvalidHandle;
  if (!bytes)
    return hipSuccess;
  if (!inAllocation(s, dst, bytes))
    return hipErrorInvalidValue;
  std::memset(dst, value, bytes);
  touch(stream);
  return hipSuccess;
}

STAND_IN_API hipError_t hipStreamCreate(hipStream_t *stream) {
  STAND_IN_ENTER("hipStreamCreate");
  if (!stream)
    return hipErrorInvalidValue;
  auto *created = new Stream{tCurrentDevice};
  s.streams.insert(created);
  *stream = reinterpret_cast<hipStream_t>(created);
  return hipSuccess;
}

STAND_IN_API hipError_t hipStreamDestroy(hipStream_t stream) {
  STAND_IN_ENTER("hipStreamDestroy");
  auto *st = reinterpret_cast<Stream *>(stream);
  if (!stream || !s.streams.erase(st))
    return hipErrorInvalidHandle;
  delete st;
  return hipSuccess;
}

STAND_IN_API hipError_t hipStreamSynchronize(hipStream_t stream) {
  STAND_IN_ENTER("hipStreamSynchronize");
  return liveStream(s, stream) ? hipSuccess : hipErrorInvalidHandle;
}

STAND_IN_API hipError_t hipEventCreate(hipEvent_t *event) {
  STAND_IN_ENTER("hipEventCreate");
  if (!event)
    return hipErrorInvalidValue;
  auto *created = new Event;
  s.events.insert(created);
  *event = reinterpret_cast<hipEvent_t>(created);
  return hipSuccess;
}

STAND_IN_API hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
  STAND_IN_ENTER("hipEventRecord");
  auto *e = reinterpret_cast<Event *>(event);
  if (!s.events.count(e) || !liveStream(s, stream))
    return hipErrorInvalidHandle;
  e->recorded = true;
  e->stamp = ++s.clock;
  touch(stream);
  return hipSuccess;
}

STAND_IN_API hipError_t hipEventSynchronize(hipEvent_t event) {
  STAND_IN_ENTER("hipEventSynchronize");
  return s.events.count(reinterpret_cast<Event *>(event))
             ? hipSuccess
             : hipErrorInvalidHandle;
}

STAND_IN_API hipError_t hipEventElapsedTime(float *ms, hipEvent_t start,
                                            hipEvent_t end) {
  STAND_IN_ENTER("hipEventElapsedTime");
  auto *a = reinterpret_cast<Event *>(start);
  auto *b = reinterpret_cast<Event *>(end);
  if (!ms)
    return hipErrorInvalidValue;
  if (!s.events.count(a) || !s.events.count(b))
    return hipErrorInvalidHandle;
  if (!a->recorded || !b->recorded)
    return hipErrorInvalidHandle; // as HIP says of never-recorded events
  // A quarter of a millisecond per operation recorded in between.
  *ms = 0.25f * float(b->stamp - a->stamp);
  return hipSuccess;
}

STAND_IN_API hipError_t hipEventDestroy(hipEvent_t event) {
  STAND_IN_ENTER("hipEventDestroy");
  auto *e = reinterpret_cast<Event *>(event);
  if (!s.events.erase(e))
    return hipErrorInvalidHandle;
  delete e;
  return hipSuccess;
}

STAND_IN_API hipError_t hipModuleLoadData(hipModule_t *module,
                                          const void *image) {
  STAND_IN_ENTER("hipModuleLoadData");
  if (!module || !image)
    return hipErrorInvalidValue;
  std::vector<std::string> names;
  if (!readKernelNames(static_cast<const unsigned char *>(image), names))
    return hipErrorInvalidImage;
  auto *m = new Module;
  for (const std::string &n : names)
    m->functions.push_back(std::make_unique<Function>(Function{m, n}));
  s.modules.insert(m);
  *module = reinterpret_cast<hipModule_t>(m);
  return hipSuccess;
}

STAND_IN_API hipError_t hipModuleGetFunction(hipFunction_t *function,
                                             hipModule_t module,
                                             const char *name) {
  STAND_IN_ENTER("hipModuleGetFunction");
  auto *m = reinterpret_cast<Module *>(module);
  if (!function || !name || !*name)
    return hipErrorInvalidValue;
  if (!s.modules.count(m))
    return hipErrorInvalidHandle;
  for (auto &f : m->functions)
    if (f->name == name) {
      *function = reinterpret_cast<hipFunction_t>(f.get());
      return hipSuccess;
    }
  return hipErrorNotFound;
}

STAND_IN_API hipError_t hipModuleUnload(hipModule_t module) {
  STAND_IN_ENTER("hipModuleUnload");
  auto *m = reinterpret_cast<Module *>(module);
  if (!s.modules.erase(m))
    return hipErrorInvalidHandle;
  delete m;
  return hipSuccess;
}

#ifndef TESSERA_STAND_IN_HIP_NO_LAUNCH
STAND_IN_API hipError_t hipModuleLaunchKernel(
    hipFunction_t function, unsigned int gridX, unsigned int gridY,
    unsigned int gridZ, unsigned int blockX, unsigned int blockY,
    unsigned int blockZ, unsigned int sharedBytes, hipStream_t stream,
    void **kernelParams, void **extra) {
  STAND_IN_ENTER("hipModuleLaunchKernel");
  auto *f = reinterpret_cast<Function *>(function);
  bool live = false;
  for (Module *m : s.modules)
    for (auto &candidate : m->functions)
      live |= candidate.get() == f;
  if (!live || !liveStream(s, stream))
    return hipErrorInvalidHandle;
  if ((kernelParams != nullptr) == (extra != nullptr))
    return hipErrorInvalidValue;
  if (!gridX || !gridY || !gridZ)
    return hipErrorInvalidValue;
  if (!blockX || !blockY || !blockZ)
    return hipErrorInvalidConfiguration;
  if (uint64_t(blockX) * blockY * blockZ > uint64_t(kMaxThreads) ||
      sharedBytes > uint32_t(kLdsPerBlock))
    return hipErrorInvalidValue;
  tessera_stand_in_hip_launch rec;
  std::memset(&rec, 0, sizeof(rec));
  std::snprintf(rec.function, sizeof(rec.function), "%s", f->name.c_str());
  rec.grid[0] = gridX;
  rec.grid[1] = gridY;
  rec.grid[2] = gridZ;
  rec.block[0] = blockX;
  rec.block[1] = blockY;
  rec.block[2] = blockZ;
  rec.shared_bytes = sharedBytes;
  rec.stream = stream;
  rec.device = tCurrentDevice;
  if (extra) {
    // {BUFFER_POINTER, args, BUFFER_SIZE, &size, END}, as ROCm's HIP reads
    // it.
    if (extra[0] != HIP_LAUNCH_PARAM_BUFFER_POINTER ||
        extra[2] != HIP_LAUNCH_PARAM_BUFFER_SIZE ||
        extra[4] != HIP_LAUNCH_PARAM_END || !extra[3])
      return hipErrorInvalidValue;
    size_t bytes = *static_cast<const size_t *>(extra[3]);
    if (bytes > TESSERA_STAND_IN_HIP_MAX_KERNARG || (bytes && !extra[1]))
      return hipErrorInvalidValue;
    rec.used_extra = 1;
    rec.kernarg_size = bytes;
    if (bytes)
      std::memcpy(rec.kernarg, extra[1], bytes);
  }
  touch(stream);
  s.launches.push_back(rec);
  return hipSuccess;
}
#endif

STAND_IN_API const char *hipGetErrorName(hipError_t error) {
  return errorName(error);
}

STAND_IN_API const char *hipGetErrorString(hipError_t error) {
  switch (error) {
  case hipSuccess:
    return "no error";
  case hipErrorInvalidValue:
    return "invalid argument";
  case hipErrorOutOfMemory:
    return "out of memory";
  case hipErrorNoDevice:
    return "no ROCm-capable device is detected";
  case hipErrorInvalidImage:
    return "device kernel image is invalid";
  case hipErrorNotFound:
    return "named symbol not found";
  case hipErrorLaunchFailure:
    return "unspecified launch failure";
  default:
    return "stand-in error";
  }
}
