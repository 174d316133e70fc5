/*===- tessera/runtime.h - the tessera runtime C API --------------*- C -*-===//
 *
 * Loads precompiled bundles and launches their kernels on any device a
 * runtime plugin provides. Links neither MLIR nor LLVM.
 *
 * Conventions
 *  - Every fallible call returns a tessera_status_t: NULL means success;
 *    otherwise the caller owns the status and frees it with
 *    tessera_status_free. Output parameters are written only on success.
 *  - Handles are opaque. Objects form a tree: runtime > device > (buffer,
 *    stream, event, module > kernel). Destroy children before their parent.
 *  - Thread-safety is stated on each function. "Thread-safe" means any thread
 *    may call it at any time, concurrently with other calls; "not
 *    thread-safe on X" means calls that use the same X must not overlap.
 *===----------------------------------------------------------------------===*/

#ifndef TESSERA_RUNTIME_H
#define TESSERA_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TESSERA_API __attribute__((visibility("default")))
#else
#define TESSERA_API
#endif

/*===-------------------------------- status ------------------------------===*/

typedef struct tessera_status_s *tessera_status_t;

typedef enum tessera_status_code {
  TESSERA_OK = 0,
  TESSERA_INVALID_ARGUMENT = 1, /* a bad parameter or launch argument */
  TESSERA_NOT_FOUND = 2,        /* no such file, kernel, device, image */
  TESSERA_UNAVAILABLE = 3,      /* a plugin or device cannot run here */
  TESSERA_OUT_OF_MEMORY = 4,
  TESSERA_BAD_BUNDLE = 5,   /* a corrupt or inconsistent bundle */
  TESSERA_INCOMPATIBLE = 6, /* nothing in the bundle fits the device */
  TESSERA_LAUNCH_FAILED = 7,
  TESSERA_INTERNAL = 8
} tessera_status_code_t;

/* The code of a status; TESSERA_OK for NULL. Thread-safe. */
TESSERA_API tessera_status_code_t tessera_status_code(tessera_status_t status);
/* The message of a status, valid until it is freed; "" for NULL.
 * Thread-safe. */
TESSERA_API const char *tessera_status_message(tessera_status_t status);
/* Frees a status; NULL is allowed. Not thread-safe on the status. */
TESSERA_API void tessera_status_free(tessera_status_t status);

/*===------------------------------- handles ------------------------------===*/

typedef struct tessera_runtime_s *tessera_runtime_t;
typedef struct tessera_device_s *tessera_device_t;
typedef struct tessera_buffer_s *tessera_buffer_t;
typedef struct tessera_stream_s *tessera_stream_t;
typedef struct tessera_event_s *tessera_event_t;
typedef struct tessera_module_s *tessera_module_t;
typedef struct tessera_kernel_s *tessera_kernel_t;

/*===------------------------------- runtime ------------------------------===*/

typedef struct tessera_runtime_options {
  /* Colon-separated plugin directories searched before the defaults; NULL:
   * none. TESSERA_PLUGIN_PATH is always searched first. */
  const char *plugin_path;
  /* Non-zero: do not search <dir of libtessera_runtime.so>/tessera/plugins. */
  int skip_default_plugin_dir;
} tessera_runtime_options;

/* Discovers and loads runtime plugins (TESSERA_PLUGIN_PATH, then
 * <dir of libtessera_runtime.so>/tessera/plugins) and opens every device
 * they offer. A broken plugin does not fail the call: it is listed by
 * tessera_runtime_plugin_info as refused or unavailable. Thread-safe. */
TESSERA_API tessera_status_t tessera_runtime_create(tessera_runtime_t *out);
/* As tessera_runtime_create; options may be NULL. Thread-safe. */
TESSERA_API tessera_status_t tessera_runtime_create_with_options(
    const tessera_runtime_options *options, tessera_runtime_t *out);
/* Closes devices and unloads plugins. Every object created from the runtime
 * must be destroyed first. Not thread-safe on the runtime. */
TESSERA_API void tessera_runtime_destroy(tessera_runtime_t runtime);

typedef enum tessera_plugin_state {
  TESSERA_PLUGIN_READY = 0,
  TESSERA_PLUGIN_UNAVAILABLE = 1, /* loaded; initialize() said it can't run */
  TESSERA_PLUGIN_REFUSED = 2      /* not loaded; see message */
} tessera_plugin_state_t;

typedef struct tessera_plugin_info {
  const char *name; /* "" when the manifest could not be read */
  const char *version;
  const char *manifest_path;
  const char *library_path;
  tessera_plugin_state_t state;
  const char *message; /* why refused/unavailable; "" when ready */
  uint32_t device_count;
  uint32_t abi_major, abi_minor; /* as the manifest declares */
} tessera_plugin_info;

/* Number of manifests found, whatever became of them. Thread-safe. */
TESSERA_API tessera_status_t
tessera_runtime_plugin_count(tessera_runtime_t runtime, uint32_t *count);
/* Describes plugin `index`; strings live as long as the runtime.
 * Thread-safe. */
TESSERA_API tessera_status_t tessera_runtime_plugin_info(
    tessera_runtime_t runtime, uint32_t index, tessera_plugin_info *info);

/* Devices across all ready plugins, in plugin order. Thread-safe. */
TESSERA_API tessera_status_t
tessera_runtime_device_count(tessera_runtime_t runtime, uint32_t *count);
/* The device at `index`, owned by the runtime. Thread-safe. */
TESSERA_API tessera_status_t tessera_runtime_device(tessera_runtime_t runtime,
                                                    uint32_t index,
                                                    tessera_device_t *device);

/*===------------------------------- devices ------------------------------===*/

typedef struct tessera_device_info {
  char name[128];
  char triple[64]; /* e.g. "nvptx64-nvidia-cuda" */
  char chip[32];   /* e.g. "sm_90a", "x86-64-v3" */
  char plugin[64]; /* the plugin's name, e.g. "cuda" */
  uint64_t total_memory;
  uint32_t compute_units;
  uint32_t max_threads_per_block;
  uint32_t max_shared_bytes_per_block;
  uint32_t warp_size;
} tessera_device_info;

/* Thread-safe. */
TESSERA_API tessera_status_t tessera_device_get_info(tessera_device_t device,
                                                     tessera_device_info *info);

/*===------------------------------- buffers ------------------------------===*/

/* Allocates device memory. Thread-safe. */
TESSERA_API tessera_status_t tessera_buffer_alloc(tessera_device_t device,
                                                  uint64_t bytes,
                                                  tessera_buffer_t *out);
/* Drops the caller's reference; memory is freed when no DLPack export still
 * holds it. NULL is allowed. Not thread-safe on the buffer's use: no
 * operation on it may be in flight. */
TESSERA_API void tessera_buffer_release(tessera_buffer_t buffer);
/* Size in bytes and device address. Thread-safe. */
TESSERA_API uint64_t tessera_buffer_size(tessera_buffer_t buffer);
TESSERA_API uint64_t tessera_buffer_device_address(tessera_buffer_t buffer);
TESSERA_API tessera_device_t tessera_buffer_device(tessera_buffer_t buffer);

/* Copies between host and buffer. stream NULL: synchronous; otherwise
 * enqueued on the stream and the host memory must stay valid until the
 * stream is synchronised. Ranges are checked. Thread-safe (calls on one
 * stream are ordered by the caller). */
TESSERA_API tessera_status_t tessera_buffer_write(tessera_buffer_t buffer,
                                                  tessera_stream_t stream,
                                                  uint64_t offset,
                                                  const void *src,
                                                  uint64_t bytes);
TESSERA_API tessera_status_t tessera_buffer_read(tessera_buffer_t buffer,
                                                 tessera_stream_t stream,
                                                 uint64_t offset, void *dst,
                                                 uint64_t bytes);
/* Device-to-device copy within one device. Thread-safe. */
TESSERA_API tessera_status_t tessera_buffer_copy(
    tessera_buffer_t dst, uint64_t dst_offset, tessera_buffer_t src,
    uint64_t src_offset, uint64_t bytes, tessera_stream_t stream);
/* Sets bytes to `value`. Thread-safe. */
TESSERA_API tessera_status_t tessera_buffer_fill(tessera_buffer_t buffer,
                                                 tessera_stream_t stream,
                                                 uint64_t offset, uint8_t value,
                                                 uint64_t bytes);

/*===--------------------------- streams, events --------------------------===*/

/* Thread-safe. */
TESSERA_API tessera_status_t tessera_stream_create(tessera_device_t device,
                                                   tessera_stream_t *out);
/* A stream over a native stream of the device's vendor API (a CUstream for
 * CUDA devices, e.g. torch.cuda.current_stream().cuda_stream) that the
 * caller keeps owning and must keep alive while the wrapper is used;
 * tessera_stream_destroy releases only the wrapper. A plugin without native
 * streams (the CPU's, or one built for runtime ABI 1.0) returns
 * TESSERA_UNAVAILABLE. Thread-safe. */
TESSERA_API tessera_status_t tessera_stream_wrap(tessera_device_t device,
                                                 void *native,
                                                 tessera_stream_t *out);
/* Not thread-safe on the stream. NULL is allowed. */
TESSERA_API void tessera_stream_destroy(tessera_stream_t stream);
/* Waits for all work on the stream. Thread-safe. */
TESSERA_API tessera_status_t
tessera_stream_synchronize(tessera_stream_t stream);

/* Thread-safe. */
TESSERA_API tessera_status_t tessera_event_create(tessera_device_t device,
                                                  tessera_event_t *out);
/* Not thread-safe on the event. NULL is allowed. */
TESSERA_API void tessera_event_destroy(tessera_event_t event);
/* Records the event on a stream (NULL: the default stream). Not thread-safe
 * on the event. */
TESSERA_API tessera_status_t tessera_event_record(tessera_event_t event,
                                                  tessera_stream_t stream);
/* Thread-safe. */
TESSERA_API tessera_status_t tessera_event_synchronize(tessera_event_t event);
/* Milliseconds between two completed events. Thread-safe. */
TESSERA_API tessera_status_t tessera_event_elapsed_ms(tessera_event_t start,
                                                      tessera_event_t end,
                                                      float *ms);

/*===--------------------------- modules, kernels -------------------------===*/

/* Loads the image of a bundle file that fits the device: its triple must
 * equal the device's, and its chip must equal the device's (for CPU triples
 * any chip fits; an exact chip is preferred). Without a fit, the error lists
 * what the bundle holds. Thread-safe. */
TESSERA_API tessera_status_t tessera_module_load_bundle_file(
    tessera_device_t device, const char *path, tessera_module_t *out);
/* As above, from bytes (copied; `name` is used in messages, may be NULL).
 * Thread-safe. */
TESSERA_API tessera_status_t tessera_module_load_bundle_memory(
    tessera_device_t device, const void *data, uint64_t size, const char *name,
    tessera_module_t *out);
/* Destroys the module and its kernels; no launch may be in flight. NULL is
 * allowed. Not thread-safe on the module. */
TESSERA_API void tessera_module_unload(tessera_module_t module);

/* Kernels in the loaded image. Thread-safe. */
TESSERA_API uint32_t tessera_module_kernel_count(tessera_module_t module);
TESSERA_API const char *tessera_module_kernel_name(tessera_module_t module,
                                                   uint32_t index);
/* Looks a kernel up by its tile.func name; the kernel is owned by the
 * module. Thread-safe. */
TESSERA_API tessera_status_t tessera_module_get_kernel(tessera_module_t module,
                                                       const char *name,
                                                       tessera_kernel_t *out);

/*===-------------------------------- launch ------------------------------===*/

/* Element types; the order is fixed (bundle metadata uses the same). */
typedef enum tessera_dtype {
  TESSERA_DTYPE_F16 = 0,
  TESSERA_DTYPE_BF16 = 1,
  TESSERA_DTYPE_F32 = 2,
  TESSERA_DTYPE_F64 = 3,
  TESSERA_DTYPE_F8E4M3 = 4,
  TESSERA_DTYPE_F8E5M2 = 5,
  TESSERA_DTYPE_I1 = 6,
  TESSERA_DTYPE_I8 = 7,
  TESSERA_DTYPE_I16 = 8,
  TESSERA_DTYPE_I32 = 9,
  TESSERA_DTYPE_I64 = 10,
  TESSERA_DTYPE_INDEX = 11
} tessera_dtype_t;

#define TESSERA_MAX_RANK 4

typedef enum tessera_arg_kind {
  TESSERA_ARG_TENSOR = 0,
  TESSERA_ARG_SCALAR = 1
} tessera_arg_kind_t;

/* A tensor: a dense row-major view of a buffer starting at byte_offset. */
typedef struct tessera_tensor_arg {
  tessera_buffer_t buffer;
  uint64_t byte_offset;
  tessera_dtype_t dtype;
  uint32_t rank;
  int64_t dims[TESSERA_MAX_RANK];
} tessera_tensor_arg;

/* A scalar. Integers (i1..index) use `i`, f32 uses `f32`, f64 uses `f64`;
 * f16, bf16 and f8 pass their bit pattern in `bits`. */
typedef struct tessera_scalar_arg {
  tessera_dtype_t dtype;
  union {
    int64_t i;
    float f32;
    double f64;
    uint64_t bits;
  } value;
} tessera_scalar_arg;

typedef struct tessera_arg {
  tessera_arg_kind_t kind;
  union {
    tessera_tensor_arg tensor;
    tessera_scalar_arg scalar;
  } u;
} tessera_arg;

/* The launch a set of arguments leads to. */
typedef struct tessera_launch_dims {
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t shared_bytes;
  uint32_t num_slots;
} tessera_launch_dims;

/* Checks `args` against the kernel's metadata (count, kinds, dtypes, ranks,
 * static dims, consistent symbolic dims, buffer bounds), evaluates the grid
 * formula and reports the launch without running it. Thread-safe. */
TESSERA_API tessera_status_t
tessera_kernel_prepare_launch(tessera_kernel_t kernel, const tessera_arg *args,
                              uint32_t num_args, tessera_launch_dims *out);
/* Checks as tessera_kernel_prepare_launch, packs the 8-byte parameter slots
 * and enqueues the kernel on `stream` (NULL: the device's default stream).
 * Thread-safe; launches on one stream run in call order. */
TESSERA_API tessera_status_t tessera_kernel_launch(tessera_kernel_t kernel,
                                                   tessera_stream_t stream,
                                                   const tessera_arg *args,
                                                   uint32_t num_args);

/* Helpers that fill a tessera_arg. */
TESSERA_API tessera_arg tessera_arg_tensor(tessera_buffer_t buffer,
                                           tessera_dtype_t dtype, uint32_t rank,
                                           const int64_t *dims);
TESSERA_API tessera_arg tessera_arg_i64(tessera_dtype_t dtype, int64_t value);
TESSERA_API tessera_arg tessera_arg_f32(float value);
TESSERA_API tessera_arg tessera_arg_f64(double value);

/* "f16", "bf16", ...; "<invalid>" otherwise. Thread-safe. */
TESSERA_API const char *tessera_dtype_name(tessera_dtype_t dtype);

/*===-------------------------------- DLPack ------------------------------===*/

struct DLManagedTensor;

/* Wraps a DLPack tensor living on `device` (kDLCPU for CPU devices,
 * kDLCUDA/kDLROCM with the matching device id for GPUs) as a buffer and a
 * tensor argument viewing it. The tensor must be compact row-major, rank
 * <= TESSERA_MAX_RANK, of a tessera dtype. On success the runtime owns
 * `tensor` and calls its deleter when the buffer is released; on failure
 * the caller keeps it. Thread-safe. */
TESSERA_API tessera_status_t tessera_buffer_from_dlpack(
    tessera_device_t device, struct DLManagedTensor *tensor,
    tessera_buffer_t *out_buffer, tessera_arg *out_arg);
/* Exports a tensor argument's view as a DLManagedTensor (DLPack 0.8). The
 * export holds a reference on the buffer until its deleter is called.
 * Thread-safe. */
TESSERA_API tessera_status_t tessera_buffer_to_dlpack(
    const tessera_tensor_arg *tensor, struct DLManagedTensor **out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_RUNTIME_H */
