//===- cuda_driver_types.h - the few CUDA driver API types we use -*- C++
//-*-===//
//
// Our own declarations of the driver API's types and of the enum values the
// plugin passes, so the plugin builds without cuda.h (and without a CUDA
// toolkit at all). Values are the driver's ABI and never change; each was
// checked against cuda.h 13.0.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_CUDA_RUNTIME_CUDA_DRIVER_TYPES_H
#define TESSERA_BACKENDS_CUDA_RUNTIME_CUDA_DRIVER_TYPES_H

#include <cstddef>
#include <cstdint>

namespace tessera::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUjit_option = int;
using CUdevice_attribute = int;
using CUfunction_attribute = int;

// CUresult values the plugin distinguishes.
constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;

// CUdevice_attribute
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr CUdevice_attribute
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;

// CUfunction_attribute
constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES =
    8;

// CUjit_option
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

// Flags
constexpr unsigned CU_STREAM_DEFAULT = 0;
constexpr unsigned CU_EVENT_DEFAULT = 0; // timing enabled

/// Dynamic shared memory a kernel may use without opting in.
constexpr uint32_t kDefaultDynamicSharedLimit = 48 * 1024;

/// CUtensorMap: 128 opaque bytes, 64-byte aligned (128 since CUDA 13).
struct alignas(128) CUtensorMap {
  uint64_t opaque[16];
};

} // namespace tessera::cuda

#endif
