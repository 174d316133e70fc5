/*===- tessera/plugin/runtime_abi.h - runtime plugin C ABI --------*- C -*-===//
 *
 * The contract between libtessera_runtime and a backend's runtime plugin
 * (libtessera_<name>_runtime.so). Plain C so a vendor can build a plugin with
 * any compiler and no tessera sources.
 *
 * A plugin exports one symbol, TESSERA_RUNTIME_PLUGIN_ENTRY, returning a
 * pointer to a static tessera_runtime_plugin table. The host checks
 * abi_major == TESSERA_RUNTIME_ABI_MAJOR and refuses the plugin otherwise;
 * abi_minor grows when fields are appended at the end of the table (a newer
 * host reads only as many fields as struct_size says are present).
 *
 * Errors: every fallible function returns 0 on success and a non-zero
 * tessera_plugin_error code on failure, and writes a NUL-terminated message
 * into the caller's error buffer (err, err_len), which is never NULL and at
 * least 256 bytes long.
 *
 * Threading: the host serialises calls on one stream; calls on different
 * streams, and every other function, may come from any thread at once.
 *===----------------------------------------------------------------------===*/

#ifndef TESSERA_PLUGIN_RUNTIME_ABI_H
#define TESSERA_PLUGIN_RUNTIME_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TESSERA_RUNTIME_ABI_MAJOR 1
#define TESSERA_RUNTIME_ABI_MINOR 2
#define TESSERA_RUNTIME_PLUGIN_ENTRY tessera_runtime_plugin_entry
#define TESSERA_RUNTIME_PLUGIN_ENTRY_NAME "tessera_runtime_plugin_entry"

enum tessera_plugin_error {
  TESSERA_PLUGIN_OK = 0,
  TESSERA_PLUGIN_ERROR_UNAVAILABLE = 1, /* vendor library or device missing */
  TESSERA_PLUGIN_ERROR_INVALID = 2,     /* bad argument */
  TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY = 3,
  TESSERA_PLUGIN_ERROR_BAD_IMAGE = 4, /* module image rejected */
  TESSERA_PLUGIN_ERROR_NOT_FOUND = 5, /* kernel name not in module */
  TESSERA_PLUGIN_ERROR_LAUNCH = 6,    /* launch or execution failed */
  TESSERA_PLUGIN_ERROR_INTERNAL = 7
};

/* Opaque plugin-owned objects. */
typedef struct tessera_plugin_device_s *tessera_plugin_device;
typedef struct tessera_plugin_stream_s *tessera_plugin_stream;
typedef struct tessera_plugin_event_s *tessera_plugin_event;
typedef struct tessera_plugin_module_s *tessera_plugin_module;
typedef struct tessera_plugin_kernel_s *tessera_plugin_kernel;

/* A device address: a CUdeviceptr on CUDA, a host pointer on the CPU. */
typedef uint64_t tessera_device_ptr;

typedef struct tessera_plugin_device_info {
  char name[128];
  char triple[64];        /* e.g. "nvptx64-nvidia-cuda" */
  char chip[32];          /* e.g. "sm_90a", "x86-64-v3"; what images target */
  uint64_t total_memory;  /* bytes */
  uint32_t compute_units; /* SMs, CUs, or host threads */
  uint32_t max_threads_per_block;
  uint32_t max_shared_bytes_per_block; /* with opt-in where the API has it */
  uint32_t warp_size;
} tessera_plugin_device_info;

/* One launch: grid and block sizes, dynamic shared memory, and the kernel's
 * parameters as 8-byte slots in declaration order. A tensor argument takes
 * 1 + rank slots (device pointer, then each dimension as int64); a scalar
 * takes one slot, its value in the low bytes (little-endian). */
typedef struct tessera_plugin_launch {
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t shared_bytes;
  uint32_t num_slots;
  const uint64_t *slots;
} tessera_plugin_launch;

typedef struct tessera_runtime_plugin {
  uint32_t abi_major;
  uint32_t abi_minor;
  uint32_t struct_size; /* sizeof(tessera_runtime_plugin) when built */
  const char *name;     /* "cuda", "cpu", ... matches the manifest */
  const char *version;  /* the plugin's own version string */

  /* Initialises the vendor API. Returns TESSERA_PLUGIN_ERROR_UNAVAILABLE with
   * a reason ("libcuda not found") when it cannot run on this machine. May
   * be called more than once; later calls return the first result. */
  int (*initialize)(char *err, size_t err_len);
  void (*shutdown)(void);

  int (*device_count)(uint32_t *count, char *err, size_t err_len);
  int (*device_open)(uint32_t ordinal, tessera_plugin_device *device, char *err,
                     size_t err_len);
  void (*device_close)(tessera_plugin_device device);
  int (*device_info)(tessera_plugin_device device,
                     tessera_plugin_device_info *info, char *err,
                     size_t err_len);

  int (*mem_alloc)(tessera_plugin_device device, uint64_t bytes,
                   tessera_device_ptr *ptr, char *err, size_t err_len);
  void (*mem_free)(tessera_plugin_device device, tessera_device_ptr ptr);
  /* Copies; a NULL stream means synchronous. */
  int (*copy_to_device)(tessera_plugin_device device, tessera_plugin_stream s,
                        tessera_device_ptr dst, const void *src, uint64_t bytes,
                        char *err, size_t err_len);
  int (*copy_to_host)(tessera_plugin_device device, tessera_plugin_stream s,
                      void *dst, tessera_device_ptr src, uint64_t bytes,
                      char *err, size_t err_len);
  int (*copy_device)(tessera_plugin_device device, tessera_plugin_stream s,
                     tessera_device_ptr dst, tessera_device_ptr src,
                     uint64_t bytes, char *err, size_t err_len);
  int (*mem_set)(tessera_plugin_device device, tessera_plugin_stream s,
                 tessera_device_ptr dst, uint8_t value, uint64_t bytes,
                 char *err, size_t err_len);

  int (*stream_create)(tessera_plugin_device device, tessera_plugin_stream *s,
                       char *err, size_t err_len);
  void (*stream_destroy)(tessera_plugin_stream s);
  int (*stream_synchronize)(tessera_plugin_stream s, char *err, size_t err_len);

  int (*event_create)(tessera_plugin_device device, tessera_plugin_event *e,
                      char *err, size_t err_len);
  void (*event_destroy)(tessera_plugin_event e);
  int (*event_record)(tessera_plugin_event e, tessera_plugin_stream s,
                      char *err, size_t err_len);
  int (*event_synchronize)(tessera_plugin_event e, char *err, size_t err_len);
  /* Milliseconds between two recorded, completed events. */
  int (*event_elapsed_ms)(tessera_plugin_event start, tessera_plugin_event end,
                          float *ms, char *err, size_t err_len);

  /* Loads one image (the bytes of a bundle entry for this plugin's triple:
   * a cubin or PTX, a shared object, ...). The plugin copies what it keeps. */
  int (*module_load)(tessera_plugin_device device, const void *image,
                     uint64_t size, tessera_plugin_module *module, char *err,
                     size_t err_len);
  void (*module_unload)(tessera_plugin_module module);
  int (*kernel_get)(tessera_plugin_module module, const char *name,
                    tessera_plugin_kernel *kernel, char *err, size_t err_len);
  /* Enqueues a launch on s (NULL: the device's default stream). Raising the
   * kernel's dynamic shared memory limit above the default is the plugin's
   * job. */
  int (*launch)(tessera_plugin_kernel kernel, tessera_plugin_stream s,
                const tessera_plugin_launch *launch, char *err, size_t err_len);

  /* ABI 1.1 (a 1.0 plugin's table ends before it; NULL: unsupported). Wraps
   * a stream of the vendor API (a CUstream on CUDA) that the caller keeps
   * owning: work enqueued on the result runs on it, and stream_destroy of
   * the result releases only the wrapper. */
  int (*stream_wrap)(tessera_plugin_device device, void *native,
                     tessera_plugin_stream *s, char *err, size_t err_len);

  /* ABI 1.2 (NULL: unsupported). Gives a loaded module an on-demand image:
   * the bytes of a bundle image marked `tessera.on_demand` that follows the
   * module's image (same triple and chip). It holds kernels a launch needs
   * only in rare cases -- on CUDA the twins without TMA of TMA kernels
   * (`<kernel>__fallback`, as PTX), which launch where a tensor map cannot
   * describe a tensor. The plugin copies the bytes and loads them (JIT
   * compiling PTX) only when a launch first needs one of their kernels, so
   * a bad image is reported by that launch. Called after module_load and
   * before any kernel_get on the module. Without this entry the host drops
   * such images, and launches that need their kernels fail. */
  int (*module_add_on_demand_image)(tessera_plugin_module module,
                                    const void *image, uint64_t size, char *err,
                                    size_t err_len);
} tessera_runtime_plugin;

typedef const tessera_runtime_plugin *(*tessera_runtime_plugin_entry_fn)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_PLUGIN_RUNTIME_ABI_H */
