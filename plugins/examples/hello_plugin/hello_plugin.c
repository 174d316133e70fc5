/* hello_plugin.c - the smallest complete tessera runtime plugin.
 *
 * One device backed by host memory. It loads no images (module_load says
 * so), which is enough to show the shape of a plugin: a static function
 * table returned by tessera_runtime_plugin_entry. */

#include <tessera/plugin/runtime_abi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tessera_plugin_device_s {
  int unused;
};
static struct tessera_plugin_device_s the_device;

static int say(char *err, size_t len, int code, const char *message) {
  snprintf(err, len, "%s", message);
  return code;
}

static int initialize(char *err, size_t len) { (void)err, (void)len; return 0; }
static void shutdown_(void) {}
static int device_count(uint32_t *count, char *err, size_t len) {
  (void)err, (void)len;
  *count = 1;
  return 0;
}
static int device_open(uint32_t i, tessera_plugin_device *d, char *err,
                       size_t len) {
  if (i != 0)
    return say(err, len, TESSERA_PLUGIN_ERROR_INVALID, "no such device");
  *d = &the_device;
  return 0;
}
static void device_close(tessera_plugin_device d) { (void)d; }
static int device_info(tessera_plugin_device d, tessera_plugin_device_info *info,
                       char *err, size_t len) {
  (void)d, (void)err, (void)len;
  memset(info, 0, sizeof *info);
  snprintf(info->name, sizeof info->name, "hello device");
  snprintf(info->triple, sizeof info->triple, "x86_64-unknown-linux-gnu");
  snprintf(info->chip, sizeof info->chip, "hello");
  info->compute_units = 1;
  info->max_threads_per_block = 1;
  info->warp_size = 1;
  return 0;
}
static int mem_alloc(tessera_plugin_device d, uint64_t bytes,
                     tessera_device_ptr *ptr, char *err, size_t len) {
  (void)d;
  void *p = malloc(bytes);
  if (!p)
    return say(err, len, TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY, "out of memory");
  *ptr = (tessera_device_ptr)(uintptr_t)p;
  return 0;
}
static void mem_free(tessera_plugin_device d, tessera_device_ptr p) {
  (void)d;
  free((void *)(uintptr_t)p);
}
static int to_device(tessera_plugin_device d, tessera_plugin_stream s,
                     tessera_device_ptr dst, const void *src, uint64_t n,
                     char *err, size_t len) {
  (void)d, (void)s, (void)err, (void)len;
  memcpy((void *)(uintptr_t)dst, src, n);
  return 0;
}
static int to_host(tessera_plugin_device d, tessera_plugin_stream s, void *dst,
                   tessera_device_ptr src, uint64_t n, char *err, size_t len) {
  (void)d, (void)s, (void)err, (void)len;
  memcpy(dst, (const void *)(uintptr_t)src, n);
  return 0;
}
static int on_device(tessera_plugin_device d, tessera_plugin_stream s,
                     tessera_device_ptr dst, tessera_device_ptr src, uint64_t n,
                     char *err, size_t len) {
  (void)d, (void)s, (void)err, (void)len;
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  return 0;
}
static int mem_set(tessera_plugin_device d, tessera_plugin_stream s,
                   tessera_device_ptr dst, uint8_t v, uint64_t n, char *err,
                   size_t len) {
  (void)d, (void)s, (void)err, (void)len;
  memset((void *)(uintptr_t)dst, v, n);
  return 0;
}
/* Work runs synchronously, so streams and events need no state. */
static int stream_create(tessera_plugin_device d, tessera_plugin_stream *s,
                         char *err, size_t len) {
  (void)d, (void)err, (void)len;
  *s = (tessera_plugin_stream)&the_device;
  return 0;
}
static void stream_destroy(tessera_plugin_stream s) { (void)s; }
static int stream_sync(tessera_plugin_stream s, char *err, size_t len) {
  (void)s, (void)err, (void)len;
  return 0;
}
static int event_create(tessera_plugin_device d, tessera_plugin_event *e,
                        char *err, size_t len) {
  (void)d, (void)err, (void)len;
  *e = (tessera_plugin_event)&the_device;
  return 0;
}
static void event_destroy(tessera_plugin_event e) { (void)e; }
static int event_record(tessera_plugin_event e, tessera_plugin_stream s,
                        char *err, size_t len) {
  (void)e, (void)s, (void)err, (void)len;
  return 0;
}
static int event_sync(tessera_plugin_event e, char *err, size_t len) {
  (void)e, (void)err, (void)len;
  return 0;
}
static int event_elapsed(tessera_plugin_event a, tessera_plugin_event b,
                         float *ms, char *err, size_t len) {
  (void)a, (void)b, (void)err, (void)len;
  *ms = 0;
  return 0;
}
static int module_load(tessera_plugin_device d, const void *image, uint64_t size,
                       tessera_plugin_module *m, char *err, size_t len) {
  (void)d, (void)image, (void)size, (void)m;
  return say(err, len, TESSERA_PLUGIN_ERROR_BAD_IMAGE,
             "the hello plugin runs no kernels");
}
static void module_unload(tessera_plugin_module m) { (void)m; }
static int kernel_get(tessera_plugin_module m, const char *name,
                      tessera_plugin_kernel *k, char *err, size_t len) {
  (void)m, (void)name, (void)k;
  return say(err, len, TESSERA_PLUGIN_ERROR_NOT_FOUND, "no kernels");
}
static int launch(tessera_plugin_kernel k, tessera_plugin_stream s,
                  const tessera_plugin_launch *l, char *err, size_t len) {
  (void)k, (void)s, (void)l;
  return say(err, len, TESSERA_PLUGIN_ERROR_LAUNCH, "no kernels");
}

static const tessera_runtime_plugin table = {
    TESSERA_RUNTIME_ABI_MAJOR, TESSERA_RUNTIME_ABI_MINOR,
    sizeof(tessera_runtime_plugin), "hello", "0.1.0",
    initialize, shutdown_, device_count, device_open, device_close,
    device_info, mem_alloc, mem_free, to_device, to_host, on_device, mem_set,
    stream_create, stream_destroy, stream_sync, event_create, event_destroy,
    event_record, event_sync, event_elapsed, module_load, module_unload,
    kernel_get, launch};

__attribute__((visibility("default"))) const tessera_runtime_plugin *
TESSERA_RUNTIME_PLUGIN_ENTRY(void) {
  return &table;
}
