//===- cuda_symbol_table.h - driver entry points loaded by dlopen -*- C++
//-*-===//
//
// Every driver function the plugin calls, in one X-macro list: the table's
// fields, their types and the dlsym names all come from it, so adding a call
// is one line. Names are the exported ABI names (cuMemAlloc_v2, not the
// cuda.h macro cuMemAlloc).
//
// Thread-safety: load() is called once under the plugin's init lock; the
// filled table is read-only afterwards.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_CUDA_RUNTIME_CUDA_SYMBOL_TABLE_H
#define TESSERA_BACKENDS_CUDA_RUNTIME_CUDA_SYMBOL_TABLE_H

#include "cuda_driver_types.h"

#include <string>

namespace tessera::cuda {

// X(name, parameter list): required; load() fails without them.
#define TESSERA_CUDA_REQUIRED_SYMBOLS(X)                                       \
  X(cuInit, (unsigned int flags))                                              \
  X(cuDriverGetVersion, (int *version))                                        \
  X(cuDeviceGet, (CUdevice * device, int ordinal))                             \
  X(cuDeviceGetCount, (int *count))                                            \
  X(cuDeviceGetName, (char *name, int len, CUdevice dev))                      \
  X(cuDeviceGetAttribute, (int *value, CUdevice_attribute attr, CUdevice dev)) \
  X(cuDeviceTotalMem_v2, (size_t *bytes, CUdevice dev))                        \
  X(cuDevicePrimaryCtxRetain, (CUcontext * ctx, CUdevice dev))                 \
  X(cuDevicePrimaryCtxRelease_v2, (CUdevice dev))                              \
  X(cuCtxSetCurrent, (CUcontext ctx))                                          \
  X(cuCtxGetCurrent, (CUcontext * ctx))                                        \
  X(cuMemAlloc_v2, (CUdeviceptr * ptr, size_t bytes))                          \
  X(cuMemFree_v2, (CUdeviceptr ptr))                                           \
  X(cuMemcpyHtoDAsync_v2,                                                      \
    (CUdeviceptr dst, const void *src, size_t bytes, CUstream stream))         \
  X(cuMemcpyDtoHAsync_v2,                                                      \
    (void *dst, CUdeviceptr src, size_t bytes, CUstream stream))               \
  X(cuMemcpyDtoDAsync_v2,                                                      \
    (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream))         \
  X(cuMemsetD8Async,                                                           \
    (CUdeviceptr dst, unsigned char value, size_t count, CUstream stream))     \
  X(cuStreamCreate, (CUstream * stream, unsigned int flags))                   \
  X(cuStreamDestroy_v2, (CUstream stream))                                     \
  X(cuStreamSynchronize, (CUstream stream))                                    \
  X(cuEventCreate, (CUevent * event, unsigned int flags))                      \
  X(cuEventRecord, (CUevent event, CUstream stream))                           \
  X(cuEventSynchronize, (CUevent event))                                       \
  X(cuEventDestroy_v2, (CUevent event))                                        \
  X(cuModuleLoadDataEx,                                                        \
    (CUmodule * module, const void *image, unsigned int num_options,           \
     CUjit_option *options, void **values))                                    \
  X(cuModuleUnload, (CUmodule module))                                         \
  X(cuModuleGetFunction,                                                       \
    (CUfunction * function, CUmodule module, const char *name))                \
  X(cuFuncSetAttribute,                                                        \
    (CUfunction function, CUfunction_attribute attr, int value))               \
  X(cuLaunchKernel,                                                            \
    (CUfunction function, unsigned int grid_x, unsigned int grid_y,            \
     unsigned int grid_z, unsigned int block_x, unsigned int block_y,          \
     unsigned int block_z, unsigned int shared_bytes, CUstream stream,         \
     void **params, void **extra))                                             \
  X(cuGetErrorName, (CUresult error, const char **name))                       \
  X(cuGetErrorString, (CUresult error, const char **text))

// X(name, parameter list): optional; null when the driver lacks them.
#define TESSERA_CUDA_OPTIONAL_SYMBOLS(X)                                       \
  /* CUDA 12.8 renamed the entry; older drivers only have the first. */        \
  X(cuEventElapsedTime_v2, (float *ms, CUevent start, CUevent end))            \
  X(cuEventElapsedTime, (float *ms, CUevent start, CUevent end))               \
  /* CUDA 12.4+: lets launch check slots against the kernel's parameters. */   \
  X(cuFuncGetParamInfo,                                                        \
    (CUfunction function, size_t index, size_t *offset, size_t *size))         \
  /* Tensor-map descriptors of sm_90a kernels (tessera_tma_<kernel>). */       \
  X(cuModuleGetGlobal_v2,                                                      \
    (CUdeviceptr * ptr, size_t *bytes, CUmodule module, const char *name))     \
  X(cuMemcpyDtoH_v2, (void *dst, CUdeviceptr src, size_t bytes))               \
  /* CUDA 12.0+, for TMA descriptors (tessera_cuda_encode_tensor_map). */      \
  X(cuTensorMapEncodeTiled,                                                    \
    (CUtensorMap * map, int data_type, uint32_t rank, void *address,           \
     const uint64_t *dims, const uint64_t *strides, const uint32_t *box,       \
     const uint32_t *element_strides, int interleave, int swizzle,             \
     int l2_promotion, int oob_fill))

struct CudaSymbolTable {
#define TESSERA_CUDA_DECLARE_FIELD(name, params)                               \
  CUresult(*name) params = nullptr;
  TESSERA_CUDA_REQUIRED_SYMBOLS(TESSERA_CUDA_DECLARE_FIELD)
  TESSERA_CUDA_OPTIONAL_SYMBOLS(TESSERA_CUDA_DECLARE_FIELD)
#undef TESSERA_CUDA_DECLARE_FIELD

  /// cuEventElapsedTime_v2 where present, else the original.
  CUresult (*eventElapsedTime)(float *, CUevent, CUevent) = nullptr;

  /// dlopens `library` (RTLD_NOW | RTLD_LOCAL) and resolves every symbol.
  /// On failure returns false with a sentence in `error`:
  /// "libcuda not found (dlopen <library>: <dlerror>)" or
  /// "<library> lacks cuXxx (driver too old?)".
  bool load(const char *library, std::string &error);

  /// "CUDA_ERROR_X (text)" for any result, even when the driver cannot name it.
  std::string describe(CUresult result) const;

  void *handle = nullptr; // never dlclosed: libcuda does not support unloading
};

} // namespace tessera::cuda

#endif
