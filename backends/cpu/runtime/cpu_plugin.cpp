//===- cpu_plugin.cpp - the cpu runtime plugin's ABI table ---------------===//
//
// Device 0 is the host. Memory is 64-byte aligned host memory, so a
// tessera_device_ptr is a plain pointer. A module is a shared object whose
// kernels are `void tessera_kernel_<name>(const uint64_t *slots, int64_t bx,
// int64_t by, int64_t bz)`, called once per block; a launch spreads the
// blocks over the plugin's ThreadPool.
//
// Streams: the NULL stream runs everything on the calling thread before
// returning; a created stream is a StreamQueue (its own in-order worker).
//
//===----------------------------------------------------------------------===//

#include "shared_object_image.h"
#include "stream_queue.h"
#include "thread_pool.h"

#include "tessera/plugin/runtime_abi.h"

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unistd.h>
#include <vector>

#ifndef TESSERA_CPU_PLUGIN_VERSION
#define TESSERA_CPU_PLUGIN_VERSION "0.1.0"
#endif

// The triple of the code this plugin was built as, which is the triple its
// module images must be built for.
#if defined(__x86_64__)
#define TESSERA_CPU_ARCH "x86_64"
#elif defined(__aarch64__)
#define TESSERA_CPU_ARCH "aarch64"
#elif defined(__riscv) && __riscv_xlen == 64
#define TESSERA_CPU_ARCH "riscv64"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TESSERA_CPU_ARCH "powerpc64le"
#else
#error "unknown host architecture: add its LLVM triple name here"
#endif
#if defined(__linux__)
#define TESSERA_CPU_OS "unknown-linux-gnu"
#elif defined(__FreeBSD__)
#define TESSERA_CPU_OS "unknown-freebsd"
#else
#error "unknown host OS: add its LLVM triple name here"
#endif

using namespace tessera::cpu;
using Clock = std::chrono::steady_clock;

namespace {

constexpr size_t kAlignment = 64;

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

struct PluginState {
  std::unique_ptr<ThreadPool> pool;
  tessera_plugin_device_info info{};
};

std::mutex gStateMutex;
PluginState *gState = nullptr; // set by initialize, cleared by shutdown

PluginState *state() {
  std::lock_guard<std::mutex> lock(gStateMutex);
  return gState;
}

#define REQUIRE_INIT(err, errLen)                                              \
  PluginState *st = state();                                                   \
  if (!st)                                                                     \
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,                     \
                "cpu plugin: initialize() has not been called");               \
  (void)st

std::string hostCpuName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        size_t start = line.find_first_not_of(" \t", colon + 1);
        if (start != std::string::npos)
          return line.substr(start);
      }
    }
  }
  return "host CPU";
}

void fillInfo(tessera_plugin_device_info &info, unsigned threads) {
  std::memset(&info, 0, sizeof(info));
  std::snprintf(info.name, sizeof(info.name), "%s", hostCpuName().c_str());
  std::snprintf(info.triple, sizeof(info.triple), "%s",
                TESSERA_CPU_ARCH "-" TESSERA_CPU_OS);
  std::snprintf(info.chip, sizeof(info.chip), "host");
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageSize = sysconf(_SC_PAGESIZE);
  info.total_memory =
      pages > 0 && pageSize > 0 ? uint64_t(pages) * uint64_t(pageSize) : 0;
  info.compute_units = threads;
  // A CPU block is one call of the kernel function; its "threads" are loop
  // iterations the compiler emits, and its shared memory lives on the worker
  // stack (see host_thread.h), so these limits are generous, not hardware.
  info.max_threads_per_block = 1024;
  info.max_shared_bytes_per_block = 1u << 20;
  info.warp_size = 1;
}

} // namespace

// One host device; handles point at this object.
struct tessera_plugin_device_s {
  int unused;
};
static tessera_plugin_device_s gHostDevice;

struct tessera_plugin_stream_s {
  StreamQueue queue;
};

// Events keep their state behind a shared_ptr so a record task still queued
// on a stream stays valid after event_destroy.
struct EventState {
  std::mutex mutex;
  std::condition_variable completed;
  uint64_t generation = 0; // bumped by each record
  bool recorded = false;
  bool complete = false;
  Clock::time_point time;
};
struct tessera_plugin_event_s {
  std::shared_ptr<EventState> state = std::make_shared<EventState>();
};

struct tessera_plugin_kernel_s {
  BlockFn fn;
  std::string name;
};

struct tessera_plugin_module_s {
  SharedObjectImage image;
  std::mutex mutex;
  // Kernels live as long as their module; kernel_get of the same name
  // returns the same handle.
  std::map<std::string, std::unique_ptr<tessera_plugin_kernel_s>> kernels;
};

extern "C" {

static int cpuInitialize(char *err, size_t errLen) {
  std::lock_guard<std::mutex> lock(gStateMutex);
  if (gState)
    return TESSERA_PLUGIN_OK;
  auto *st = new PluginState;
  st->pool = std::make_unique<ThreadPool>(defaultPoolThreads());
  fillInfo(st->info, st->pool->size());
  gState = st;
  return TESSERA_PLUGIN_OK;
}

// Streams, events and modules must be destroyed before shutdown; a later
// initialize starts afresh (and reads TESSERA_CPU_THREADS again).
static void cpuShutdown(void) {
  std::lock_guard<std::mutex> lock(gStateMutex);
  delete gState;
  gState = nullptr;
}

static int cpuDeviceCount(uint32_t *count, char *err, size_t errLen) {
  REQUIRE_INIT(err, errLen);
  if (!count)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "count is NULL");
  *count = 1;
  return TESSERA_PLUGIN_OK;
}

static int cpuDeviceOpen(uint32_t ordinal, tessera_plugin_device *device,
                         char *err, size_t errLen) {
  REQUIRE_INIT(err, errLen);
  if (!device)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "device is NULL");
  if (ordinal != 0)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "cpu device %u does not exist (the host is device 0)", ordinal);
  *device = &gHostDevice;
  return TESSERA_PLUGIN_OK;
}

static void cpuDeviceClose(tessera_plugin_device) {}

static int cpuDeviceInfo(tessera_plugin_device device,
                         tessera_plugin_device_info *info, char *err,
                         size_t errLen) {
  REQUIRE_INIT(err, errLen);
  if (!device || !info)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "device or info is NULL");
  *info = st->info;
  return TESSERA_PLUGIN_OK;
}

static int cpuMemAlloc(tessera_plugin_device device, uint64_t bytes,
                       tessera_device_ptr *ptr, char *err, size_t errLen) {
  if (!ptr)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "ptr is NULL");
  // Round up so vector loads of a whole 64-byte line never leave the block;
  // a zero-byte request still gets a unique pointer.
  uint64_t rounded = bytes == 0
                         ? kAlignment
                         : (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded < bytes)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY,
                "cannot allocate %llu bytes", (unsigned long long)bytes);
  void *p = nullptr;
  if (posix_memalign(&p, kAlignment, rounded) != 0 || !p)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY,
                "cannot allocate %llu bytes of host memory",
                (unsigned long long)bytes);
  *ptr = tessera_device_ptr(uintptr_t(p));
  return TESSERA_PLUGIN_OK;
}

static void cpuMemFree(tessera_plugin_device, tessera_device_ptr ptr) {
  std::free(reinterpret_cast<void *>(uintptr_t(ptr)));
}

static void *hostPtr(tessera_device_ptr p) {
  return reinterpret_cast<void *>(uintptr_t(p));
}

static int cpuCopyToDevice(tessera_plugin_device, tessera_plugin_stream s,
                           tessera_device_ptr dst, const void *src,
                           uint64_t bytes, char *err, size_t errLen) {
  if (bytes && (!dst || !src))
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "copy_to_device: NULL pointer");
  // The source is the caller's memory, which it may reuse as soon as we
  // return (as with pageable memory on GPUs): copy it now, after the work
  // already queued on s.
  if (s)
    s->queue.synchronize();
  if (bytes)
    std::memcpy(hostPtr(dst), src, bytes);
  return TESSERA_PLUGIN_OK;
}

static int cpuCopyToHost(tessera_plugin_device, tessera_plugin_stream s,
                         void *dst, tessera_device_ptr src, uint64_t bytes,
                         char *err, size_t errLen) {
  if (bytes && (!dst || !src))
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "copy_to_host: NULL pointer");
  if (!bytes)
    return TESSERA_PLUGIN_OK;
  void *from = hostPtr(src);
  if (s)
    s->queue.enqueue([=] { std::memcpy(dst, from, bytes); });
  else
    std::memcpy(dst, from, bytes);
  return TESSERA_PLUGIN_OK;
}

static int cpuCopyDevice(tessera_plugin_device, tessera_plugin_stream s,
                         tessera_device_ptr dst, tessera_device_ptr src,
                         uint64_t bytes, char *err, size_t errLen) {
  if (bytes && (!dst || !src))
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "copy_device: NULL pointer");
  if (!bytes)
    return TESSERA_PLUGIN_OK;
  void *to = hostPtr(dst), *from = hostPtr(src);
  if (s)
    s->queue.enqueue([=] { std::memmove(to, from, bytes); });
  else
    std::memmove(to, from, bytes);
  return TESSERA_PLUGIN_OK;
}

static int cpuMemSet(tessera_plugin_device, tessera_plugin_stream s,
                     tessera_device_ptr dst, uint8_t value, uint64_t bytes,
                     char *err, size_t errLen) {
  if (bytes && !dst)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "mem_set: NULL pointer");
  if (!bytes)
    return TESSERA_PLUGIN_OK;
  void *to = hostPtr(dst);
  if (s)
    s->queue.enqueue([=] { std::memset(to, value, bytes); });
  else
    std::memset(to, value, bytes);
  return TESSERA_PLUGIN_OK;
}

static int cpuStreamCreate(tessera_plugin_device device,
                           tessera_plugin_stream *s, char *err, size_t errLen) {
  REQUIRE_INIT(err, errLen);
  if (!s)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "stream is NULL");
  auto stream = std::make_unique<tessera_plugin_stream_s>();
  if (!stream->queue.start())
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INTERNAL,
                "cannot start the stream's worker thread");
  *s = stream.release();
  return TESSERA_PLUGIN_OK;
}

static void cpuStreamDestroy(tessera_plugin_stream s) { delete s; }

static int cpuStreamSynchronize(tessera_plugin_stream s, char *err,
                                size_t errLen) {
  if (s)
    s->queue.synchronize();
  return TESSERA_PLUGIN_OK;
}

static int cpuEventCreate(tessera_plugin_device, tessera_plugin_event *e,
                          char *err, size_t errLen) {
  if (!e)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "event is NULL");
  *e = new tessera_plugin_event_s;
  return TESSERA_PLUGIN_OK;
}

static void cpuEventDestroy(tessera_plugin_event e) { delete e; }

static int cpuEventRecord(tessera_plugin_event e, tessera_plugin_stream s,
                          char *err, size_t errLen) {
  if (!e)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "event is NULL");
  std::shared_ptr<EventState> ev = e->state;
  uint64_t generation;
  {
    std::lock_guard<std::mutex> lock(ev->mutex);
    generation = ++ev->generation;
    ev->recorded = true;
    ev->complete = false;
  }
  auto stamp = [ev, generation] {
    Clock::time_point now = Clock::now();
    std::lock_guard<std::mutex> lock(ev->mutex);
    if (ev->generation != generation)
      return; // re-recorded since; that record owns the event now
    ev->time = now;
    ev->complete = true;
    ev->completed.notify_all();
  };
  if (s)
    s->queue.enqueue(stamp);
  else
    stamp();
  return TESSERA_PLUGIN_OK;
}

static int cpuEventSynchronize(tessera_plugin_event e, char *err,
                               size_t errLen) {
  if (!e)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "event is NULL");
  EventState &ev = *e->state;
  std::unique_lock<std::mutex> lock(ev.mutex);
  if (!ev.recorded)
    return TESSERA_PLUGIN_OK; // like CUDA: nothing to wait for
  ev.completed.wait(lock, [&] { return ev.complete; });
  return TESSERA_PLUGIN_OK;
}

static int cpuEventElapsedMs(tessera_plugin_event start,
                             tessera_plugin_event end, float *ms, char *err,
                             size_t errLen) {
  if (!start || !end || !ms)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "event_elapsed_ms: NULL argument");
  Clock::time_point times[2];
  tessera_plugin_event events[2] = {start, end};
  for (int i = 0; i < 2; ++i) {
    EventState &ev = *events[i]->state;
    std::lock_guard<std::mutex> lock(ev.mutex);
    if (!ev.recorded)
      return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                  "event_elapsed_ms: the %s event was never recorded",
                  i == 0 ? "start" : "end");
    if (!ev.complete)
      return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                  "event_elapsed_ms: the %s event has not completed yet "
                  "(synchronize it first)",
                  i == 0 ? "start" : "end");
    times[i] = ev.time;
  }
  *ms = std::chrono::duration<float, std::milli>(times[1] - times[0]).count();
  return TESSERA_PLUGIN_OK;
}

static int cpuModuleLoad(tessera_plugin_device device, const void *image,
                         uint64_t size, tessera_plugin_module *module,
                         char *err, size_t errLen) {
  if (!module)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "module is NULL");
  auto m = std::make_unique<tessera_plugin_module_s>();
  std::string error;
  if (!m->image.load(image, size, error))
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_BAD_IMAGE, "%s",
                error.c_str());
  *module = m.release();
  return TESSERA_PLUGIN_OK;
}

static void cpuModuleUnload(tessera_plugin_module module) { delete module; }

static int cpuKernelGet(tessera_plugin_module module, const char *name,
                        tessera_plugin_kernel *kernel, char *err,
                        size_t errLen) {
  if (!module || !name || !kernel)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "kernel_get: NULL argument");
  std::lock_guard<std::mutex> lock(module->mutex);
  auto found = module->kernels.find(name);
  if (found != module->kernels.end()) {
    *kernel = found->second.get();
    return TESSERA_PLUGIN_OK;
  }
  // The caller passes the full symbol name; a bare kernel name is accepted
  // too, for hand-written callers.
  void *symbol = module->image.symbol(name);
  static const char kPrefix[] = "tessera_kernel_";
  if (!symbol && std::strncmp(name, kPrefix, sizeof(kPrefix) - 1) != 0)
    symbol = module->image.symbol((std::string(kPrefix) + name).c_str());
  if (!symbol)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_NOT_FOUND,
                "kernel '%s' not found in the cpu module", name);
  auto k = std::make_unique<tessera_plugin_kernel_s>();
  k->fn = reinterpret_cast<BlockFn>(symbol);
  k->name = name;
  *kernel = k.get();
  module->kernels.emplace(name, std::move(k));
  return TESSERA_PLUGIN_OK;
}

static int cpuLaunch(tessera_plugin_kernel kernel, tessera_plugin_stream s,
                     const tessera_plugin_launch *launch, char *err,
                     size_t errLen) {
  REQUIRE_INIT(err, errLen);
  if (!kernel || !launch)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "launch: NULL kernel or launch");
  const uint32_t *g = launch->grid;
  if (g[0] == 0 || g[1] == 0 || g[2] == 0)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "launch of '%s': empty grid %ux%ux%u", kernel->name.c_str(),
                g[0], g[1], g[2]);
  if (launch->num_slots && !launch->slots)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "launch of '%s': %u slots but slots is NULL",
                kernel->name.c_str(), launch->num_slots);
  ThreadPool *pool = st->pool.get();
  BlockFn fn = kernel->fn;
  if (!s) {
    pool->run(fn, launch->slots, g[0], g[1], g[2]);
    return TESSERA_PLUGIN_OK;
  }
  // The caller's slots may be gone by the time the stream runs the launch.
  std::vector<uint64_t> slots(launch->slots, launch->slots + launch->num_slots);
  uint32_t gx = g[0], gy = g[1], gz = g[2];
  s->queue.enqueue([pool, fn, slots = std::move(slots), gx, gy, gz] {
    pool->run(fn, slots.data(), gx, gy, gz);
  });
  return TESSERA_PLUGIN_OK;
}

static const tessera_runtime_plugin kCpuPlugin = {
    TESSERA_RUNTIME_ABI_MAJOR,
    TESSERA_RUNTIME_ABI_MINOR,
    sizeof(tessera_runtime_plugin),
    "cpu",
    TESSERA_CPU_PLUGIN_VERSION,
    cpuInitialize,
    cpuShutdown,
    cpuDeviceCount,
    cpuDeviceOpen,
    cpuDeviceClose,
    cpuDeviceInfo,
    cpuMemAlloc,
    cpuMemFree,
    cpuCopyToDevice,
    cpuCopyToHost,
    cpuCopyDevice,
    cpuMemSet,
    cpuStreamCreate,
    cpuStreamDestroy,
    cpuStreamSynchronize,
    cpuEventCreate,
    cpuEventDestroy,
    cpuEventRecord,
    cpuEventSynchronize,
    cpuEventElapsedMs,
    cpuModuleLoad,
    cpuModuleUnload,
    cpuKernelGet,
    cpuLaunch,
};

__attribute__((visibility("default"))) const tessera_runtime_plugin *
TESSERA_RUNTIME_PLUGIN_ENTRY(void) {
  return &kCpuPlugin;
}

} // extern "C"
