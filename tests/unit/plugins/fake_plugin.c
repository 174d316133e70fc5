/*===- fake_plugin.c - a host-memory runtime plugin for tests --------------===//
 *
 * Implements the runtime plugin ABI on host memory. Images are shared
 * objects exporting `void sym(const uint64_t *slots, int64_t bx, int64_t by,
 * int64_t bz)`, the CPU image convention, called once per block.
 *
 * Two devices: 0 is a CPU (x86_64-unknown-linux-gnu, chip "fakechip"), 1
 * pretends to be a GPU (nvptx64-nvidia-cuda, sm_80) so tests can exercise
 * exact chip matching; both run on the host.
 *
 * Built several times with different macros to make broken variants:
 *   FAKE_NAME         the name in the table (must match the manifest)
 *   FAKE_ABI_MAJOR    the ABI major the table claims
 *   FAKE_UNAVAILABLE  initialize() fails with a reason
 *===----------------------------------------------------------------------===*/

#include "tessera/plugin/runtime_abi.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef FAKE_NAME
#define FAKE_NAME "fake"
#endif
#ifndef FAKE_ABI_MAJOR
#define FAKE_ABI_MAJOR TESSERA_RUNTIME_ABI_MAJOR
#endif

#define EXPORT __attribute__((visibility("default")))

typedef void (*kernel_fn)(const uint64_t *, int64_t, int64_t, int64_t);

struct tessera_plugin_device_s {
  uint32_t ordinal;
};
struct tessera_plugin_stream_s {
  int unused;
};
struct tessera_plugin_event_s {
  double seconds;
};
struct tessera_plugin_kernel_s {
  kernel_fn fn;
  struct tessera_plugin_kernel_s *next;
};
struct tessera_plugin_module_s {
  void *handle;
  struct tessera_plugin_kernel_s *kernels;
};

static struct tessera_plugin_device_s devices[2] = {{0}, {1}};

/* What the last launch looked like, for tests that check slot packing. */
EXPORT uint64_t fake_last_slots[64];
EXPORT tessera_plugin_launch fake_last_launch;
EXPORT int fake_launch_count;
/* The on-demand images modules were given (ABI 1.2): how many, and the
 * first bytes and size of the last one. */
EXPORT int fake_on_demand_count;
EXPORT char fake_on_demand_head[64];
EXPORT uint64_t fake_on_demand_size;

static int fail(char *err, size_t len, int code, const char *message) {
  snprintf(err, len, "%s", message);
  return code;
}

static int initialize(char *err, size_t len) {
#ifdef FAKE_UNAVAILABLE
  return fail(err, len, TESSERA_PLUGIN_ERROR_UNAVAILABLE,
              "libfakevendor.so.1 not found");
#else
  (void)err, (void)len;
  return TESSERA_PLUGIN_OK;
#endif
}
static void shutdown_(void) {}

static int device_count(uint32_t *count, char *err, size_t len) {
  (void)err, (void)len;
  *count = 2;
  return TESSERA_PLUGIN_OK;
}
static int device_open(uint32_t ordinal, tessera_plugin_device *device,
                       char *err, size_t len) {
  if (ordinal >= 2)
    return fail(err, len, TESSERA_PLUGIN_ERROR_INVALID, "no such device");
  *device = &devices[ordinal];
  return TESSERA_PLUGIN_OK;
}
static void device_close(tessera_plugin_device device) { (void)device; }
static int device_info(tessera_plugin_device device,
                       tessera_plugin_device_info *info, char *err,
                       size_t len) {
  (void)err, (void)len;
  memset(info, 0, sizeof *info);
  snprintf(info->name, sizeof info->name, "fake device %u", device->ordinal);
  snprintf(info->triple, sizeof info->triple, "%s",
           device->ordinal ? "nvptx64-nvidia-cuda" : "x86_64-unknown-linux-gnu");
  snprintf(info->chip, sizeof info->chip, "%s",
           device->ordinal ? "sm_80" : "fakechip");
  info->total_memory = 1ull << 30;
  info->compute_units = 1;
  info->max_threads_per_block = 1024;
  info->max_shared_bytes_per_block = 48 * 1024;
  info->warp_size = device->ordinal ? 32 : 1;
  return TESSERA_PLUGIN_OK;
}

static int mem_alloc(tessera_plugin_device d, uint64_t bytes,
                     tessera_device_ptr *ptr, char *err, size_t len) {
  (void)d;
  void *p = malloc(bytes);
  if (!p)
    return fail(err, len, TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY, "out of memory");
  *ptr = (tessera_device_ptr)(uintptr_t)p;
  return TESSERA_PLUGIN_OK;
}
static void mem_free(tessera_plugin_device d, tessera_device_ptr ptr) {
  (void)d;
  free((void *)(uintptr_t)ptr);
}
static int copy_to_device(tessera_plugin_device d, tessera_plugin_stream s,
                          tessera_device_ptr dst, const void *src,
                          uint64_t bytes, char *err, size_t len) {
  (void)d, (void)s, (void)err, (void)len;
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return TESSERA_PLUGIN_OK;
}
static int copy_to_host(tessera_plugin_device d, tessera_plugin_stream s,
                        void *dst, tessera_device_ptr src, uint64_t bytes,
                        char *err, size_t len) {
  (void)d, (void)s, (void)err, (void)len;
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return TESSERA_PLUGIN_OK;
}
static int copy_device(tessera_plugin_device d, tessera_plugin_stream s,
                       tessera_device_ptr dst, tessera_device_ptr src,
                       uint64_t bytes, char *err, size_t len) {
  (void)d, (void)s, (void)err, (void)len;
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return TESSERA_PLUGIN_OK;
}
static int mem_set(tessera_plugin_device d, tessera_plugin_stream s,
                   tessera_device_ptr dst, uint8_t value, uint64_t bytes,
                   char *err, size_t len) {
  (void)d, (void)s, (void)err, (void)len;
  memset((void *)(uintptr_t)dst, value, bytes);
  return TESSERA_PLUGIN_OK;
}

/* Everything runs synchronously, so streams and events are trivial. */
static int stream_create(tessera_plugin_device d, tessera_plugin_stream *s,
                         char *err, size_t len) {
  (void)d;
  *s = calloc(1, sizeof **s);
  return *s ? TESSERA_PLUGIN_OK
            : fail(err, len, TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY, "oom");
}
static void stream_destroy(tessera_plugin_stream s) { free(s); }
static int stream_synchronize(tessera_plugin_stream s, char *err, size_t len) {
  (void)s, (void)err, (void)len;
  return TESSERA_PLUGIN_OK;
}
static int event_create(tessera_plugin_device d, tessera_plugin_event *e,
                        char *err, size_t len) {
  (void)d;
  *e = calloc(1, sizeof **e);
  return *e ? TESSERA_PLUGIN_OK
            : fail(err, len, TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY, "oom");
}
static void event_destroy(tessera_plugin_event e) { free(e); }
static int event_record(tessera_plugin_event e, tessera_plugin_stream s,
                        char *err, size_t len) {
  (void)s, (void)err, (void)len;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  e->seconds = (double)now.tv_sec + now.tv_nsec * 1e-9;
  return TESSERA_PLUGIN_OK;
}
static int event_synchronize(tessera_plugin_event e, char *err, size_t len) {
  (void)e, (void)err, (void)len;
  return TESSERA_PLUGIN_OK;
}
static int event_elapsed_ms(tessera_plugin_event start, tessera_plugin_event end,
                            float *ms, char *err, size_t len) {
  (void)err, (void)len;
  *ms = (float)((end->seconds - start->seconds) * 1e3);
  return TESSERA_PLUGIN_OK;
}

/* dlopen needs a file: write the image to a temp file, open, unlink. */
static int module_load(tessera_plugin_device d, const void *image,
                       uint64_t size, tessera_plugin_module *module, char *err,
                       size_t len) {
  (void)d;
  char path[] = "/tmp/tessera-fake-image-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0)
    return fail(err, len, TESSERA_PLUGIN_ERROR_INTERNAL, "mkstemp failed");
  ssize_t written = write(fd, image, size);
  close(fd);
  if (written != (ssize_t)size) {
    unlink(path);
    return fail(err, len, TESSERA_PLUGIN_ERROR_INTERNAL, "write failed");
  }
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  unlink(path);
  if (!handle)
    return fail(err, len, TESSERA_PLUGIN_ERROR_BAD_IMAGE, dlerror());
  struct tessera_plugin_module_s *m = calloc(1, sizeof *m);
  m->handle = handle;
  *module = m;
  return TESSERA_PLUGIN_OK;
}
static void module_unload(tessera_plugin_module m) {
  while (m->kernels) {
    struct tessera_plugin_kernel_s *next = m->kernels->next;
    free(m->kernels);
    m->kernels = next;
  }
  dlclose(m->handle);
  free(m);
}
static int kernel_get(tessera_plugin_module m, const char *name,
                      tessera_plugin_kernel *kernel, char *err, size_t len) {
  kernel_fn fn = (kernel_fn)dlsym(m->handle, name);
  if (!fn)
    return fail(err, len, TESSERA_PLUGIN_ERROR_NOT_FOUND, "no such symbol");
  struct tessera_plugin_kernel_s *k = calloc(1, sizeof *k);
  k->fn = fn;
  k->next = m->kernels;
  m->kernels = k;
  *kernel = k;
  return TESSERA_PLUGIN_OK;
}
static int launch(tessera_plugin_kernel k, tessera_plugin_stream s,
                  const tessera_plugin_launch *l, char *err, size_t len) {
  (void)s;
  if (l->num_slots > 64)
    return fail(err, len, TESSERA_PLUGIN_ERROR_LAUNCH, "too many slots");
  fake_last_launch = *l;
  memcpy(fake_last_slots, l->slots, l->num_slots * sizeof(uint64_t));
  ++fake_launch_count;
  for (uint32_t z = 0; z < l->grid[2]; ++z)
    for (uint32_t y = 0; y < l->grid[1]; ++y)
      for (uint32_t x = 0; x < l->grid[0]; ++x)
        k->fn(l->slots, x, y, z);
  return TESSERA_PLUGIN_OK;
}

static int module_add_on_demand_image(tessera_plugin_module m,
                                      const void *image, uint64_t size,
                                      char *err, size_t len) {
  (void)m;
  if (size >= 4 && memcmp(image, "BAD!", 4) == 0)
    return fail(err, len, TESSERA_PLUGIN_ERROR_BAD_IMAGE, "not for me");
  ++fake_on_demand_count;
  fake_on_demand_size = size;
  memset(fake_on_demand_head, 0, sizeof fake_on_demand_head);
  memcpy(fake_on_demand_head, image,
         size < sizeof fake_on_demand_head - 1
             ? size
             : sizeof fake_on_demand_head - 1);
  return TESSERA_PLUGIN_OK;
}

static const tessera_runtime_plugin table = {
    FAKE_ABI_MAJOR,
    TESSERA_RUNTIME_ABI_MINOR,
    sizeof(tessera_runtime_plugin),
    FAKE_NAME,
    "9.9.9",
    initialize,
    shutdown_,
    device_count,
    device_open,
    device_close,
    device_info,
    mem_alloc,
    mem_free,
    copy_to_device,
    copy_to_host,
    copy_device,
    mem_set,
    stream_create,
    stream_destroy,
    stream_synchronize,
    event_create,
    event_destroy,
    event_record,
    event_synchronize,
    event_elapsed_ms,
    module_load,
    module_unload,
    kernel_get,
    launch,
    NULL, /* stream_wrap */
    module_add_on_demand_image,
};

EXPORT const tessera_runtime_plugin *TESSERA_RUNTIME_PLUGIN_ENTRY(void) {
  return &table;
}
