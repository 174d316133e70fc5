//===- hip_symbol_table.h - HIP entry points loaded by dlopen ---*- C++ -*-===//
//
// Every HIP runtime function the plugin calls, in one X-macro list: the
// table's fields, their types and the dlsym names all come from it, so
// adding a call is one line. The plugin has no link-time ROCm dependency:
// libamdhip64 is dlopened ($TESSERA_HIP_LIBRARY, else libamdhip64.so, .so.6,
// .so.5) and this table is the only way in.
//
// Thread-safety: load() is called under the plugin's init lock; the filled
// table is read-only afterwards.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_HIP_RUNTIME_HIP_SYMBOL_TABLE_H
#define TESSERA_BACKENDS_HIP_RUNTIME_HIP_SYMBOL_TABLE_H

#include "hip_api.h"

#include <string>

namespace tessera::hip {

// X(name, parameter list): required; load() fails without them.
#define TESSERA_HIP_REQUIRED_SYMBOLS(X)                                        \
  X(hipInit, (unsigned int flags))                                             \
  X(hipGetDeviceCount, (int *count))                                           \
  X(hipDeviceGet, (hipDevice_t * device, int ordinal))                         \
  X(hipDeviceGetName, (char *name, int len, hipDevice_t device))               \
  X(hipDeviceGetAttribute,                                                     \
    (int *value, hipDeviceAttribute_t attr, int ordinal))                      \
  X(hipDeviceTotalMem, (size_t *bytes, hipDevice_t device))                    \
  X(hipGetDevice, (int *ordinal))                                              \
  X(hipSetDevice, (int ordinal))                                               \
  X(hipMalloc, (void **ptr, size_t bytes))                                     \
  X(hipFree, (void *ptr))                                                      \
  X(hipMemcpy, (void *dst, const void *src, size_t bytes, hipMemcpyKind kind)) \
  X(hipMemcpyAsync, (void *dst, const void *src, size_t bytes,                 \
                     hipMemcpyKind kind, hipStream_t stream))                  \
  X(hipMemsetAsync, (void *dst, int value, size_t bytes, hipStream_t stream))  \
  X(hipStreamCreate, (hipStream_t * stream))                                   \
  X(hipStreamDestroy, (hipStream_t stream))                                    \
  X(hipStreamSynchronize, (hipStream_t stream))                                \
  X(hipEventCreate, (hipEvent_t * event))                                      \
  X(hipEventRecord, (hipEvent_t event, hipStream_t stream))                    \
  X(hipEventSynchronize, (hipEvent_t event))                                   \
  X(hipEventElapsedTime, (float *ms, hipEvent_t start, hipEvent_t end))        \
  X(hipEventDestroy, (hipEvent_t event))                                       \
  X(hipModuleLoadData, (hipModule_t * module, const void *image))              \
  X(hipModuleGetFunction,                                                      \
    (hipFunction_t * function, hipModule_t module, const char *name))          \
  X(hipModuleUnload, (hipModule_t module))                                     \
  X(hipModuleLaunchKernel,                                                     \
    (hipFunction_t function, unsigned int grid_x, unsigned int grid_y,         \
     unsigned int grid_z, unsigned int block_x, unsigned int block_y,          \
     unsigned int block_z, unsigned int shared_bytes, hipStream_t stream,      \
     void **params, void **extra))

// X(name, parameter list): optional; null when the library lacks them.
// Device properties are read for gcnArchName only (hip_api.h); one of the
// two must be present.
#define TESSERA_HIP_OPTIONAL_SYMBOLS(X)                                        \
  X(hipGetDevicePropertiesR0600, (void *prop, int ordinal))                    \
  X(hipGetDeviceProperties, (void *prop, int ordinal))

struct HipSymbolTable {
#define TESSERA_HIP_DECLARE_FIELD(name, params)                                \
  hipError_t(*name) params = nullptr;
  TESSERA_HIP_REQUIRED_SYMBOLS(TESSERA_HIP_DECLARE_FIELD)
  TESSERA_HIP_OPTIONAL_SYMBOLS(TESSERA_HIP_DECLARE_FIELD)
#undef TESSERA_HIP_DECLARE_FIELD
  // Error texts: they return strings, not hipError_t. hipGetErrorName is
  // optional.
  const char *(*hipGetErrorString)(hipError_t error) = nullptr;
  const char *(*hipGetErrorName)(hipError_t error) = nullptr;

  /// dlopens `library` (RTLD_NOW | RTLD_LOCAL) and resolves every symbol.
  /// On failure returns false with a sentence in `error`:
  /// "libamdhip64 not found (dlopen <library>: <dlerror>)" or
  /// "libamdhip64 lacks hipXxx (<library> is not the HIP runtime, or too
  /// old)", and unloads what it loaded.
  bool load(const char *library, std::string &error);

  /// "hipErrorX (text)" for any result, even one the library cannot name.
  std::string describe(hipError_t result) const;

  void *handle = nullptr; // never dlclosed once loaded
};

} // namespace tessera::hip

#endif
