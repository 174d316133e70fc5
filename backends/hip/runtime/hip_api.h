//===- hip_api.h - the few HIP runtime types and values we use --*- C++ -*-===//
//
// Our own declarations of the HIP module API's handles and of the enum
// values the plugin passes or tells apart, so that the plugin builds without
// ROCm's headers (none are on the build machines) and loads libamdhip64 only
// at run time. These are not AMD's headers: each value below was read from
// ROCm's public HIP headers (github.com/ROCm/HIP, include/hip/
// hip_runtime_api.h and driver_types.h) at the tags rocm-5.0.0, rocm-5.7.0,
// rocm-6.0.0, rocm-6.2.2 and amd-staging (2024), where they are the same.
// ROCm 4.x numbered hipDeviceAttribute_t differently; its libamdhip64 (.so.4)
// is not loaded.
//
// The stand-in library of the tests (tests/unit/hip_runtime) answers with the
// same values, so it cannot catch a wrong one: they were checked against the
// headers only.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_HIP_RUNTIME_HIP_API_H
#define TESSERA_BACKENDS_HIP_RUNTIME_HIP_API_H

#include <cstddef>
#include <cstdint>

namespace tessera::hip {

using hipError_t = int;
using hipDevice_t = int;
using hipDeviceAttribute_t = int;
using hipMemcpyKind = int;
using hipStream_t = struct ihipStream_t *;
using hipEvent_t = struct ihipEvent_t *;
using hipModule_t = struct ihipModule_t *;
using hipFunction_t = struct ihipModuleSymbol_t *;

// hipError_t values the plugin tells apart.
constexpr hipError_t hipSuccess = 0;
constexpr hipError_t hipErrorInvalidValue = 1;
constexpr hipError_t hipErrorOutOfMemory = 2;
constexpr hipError_t hipErrorNotInitialized = 3;
constexpr hipError_t hipErrorInvalidConfiguration = 9;
constexpr hipError_t hipErrorNoDevice = 100;
constexpr hipError_t hipErrorInvalidDevice = 101;
constexpr hipError_t hipErrorInvalidImage = 200;
constexpr hipError_t hipErrorNoBinaryForGpu = 209;
constexpr hipError_t hipErrorInvalidHandle = 400;
constexpr hipError_t hipErrorNotFound = 500;
constexpr hipError_t hipErrorNotReady = 600;
constexpr hipError_t hipErrorLaunchOutOfResources = 701;
constexpr hipError_t hipErrorLaunchFailure = 719;

// hipMemcpyKind
constexpr hipMemcpyKind hipMemcpyHostToDevice = 1;
constexpr hipMemcpyKind hipMemcpyDeviceToHost = 2;
constexpr hipMemcpyKind hipMemcpyDeviceToDevice = 3;

// hipDeviceAttribute_t, the CUDA-compatible range (ROCm 5.0 and later).
constexpr hipDeviceAttribute_t hipDeviceAttributeMaxThreadsPerBlock = 56;
constexpr hipDeviceAttribute_t hipDeviceAttributeMultiprocessorCount = 63;
constexpr hipDeviceAttribute_t hipDeviceAttributeMaxSharedMemoryPerBlock = 74;
constexpr hipDeviceAttribute_t hipDeviceAttributeWarpSize = 87;

// hipModuleLaunchKernel's `extra` array: {BUFFER_POINTER, args,
// BUFFER_SIZE, &size, END}. The values are ((void *)0x01), ((void *)0x02)
// and ((void *)0x03) in ROCm/HIP include/hip/amd_detail/hip_runtime_api.h
// (and today's include/hip/hip_runtime_api.h); ROCm/clr
// hipamd/src/hip_module.cpp (ihipLaunchKernelCommand) checks exactly this
// layout and reads each explicit argument at its kernarg offset from the
// buffer.
inline void *const HIP_LAUNCH_PARAM_BUFFER_POINTER =
    reinterpret_cast<void *>(uintptr_t(0x01));
inline void *const HIP_LAUNCH_PARAM_BUFFER_SIZE =
    reinterpret_cast<void *>(uintptr_t(0x02));
inline void *const HIP_LAUNCH_PARAM_END =
    reinterpret_cast<void *>(uintptr_t(0x03));

// hipDeviceProp_t is read for one field only, gcnArchName (char[256], e.g.
// "gfx942:sramecc+:xnack-"): no hipDeviceAttribute_t carries it. The struct
// is large and versioned, so the plugin passes a zeroed buffer at least as
// large as it and reads the field at its offset, which was computed with
// offsetof over the headers of the tags above:
//  - hipGetDevicePropertiesR0600 (ROCm 6.0 and later): hipDeviceProp_tR0600,
//    1472 bytes, gcnArchName at 1160;
//  - hipGetDeviceProperties: ROCm 5's hipDeviceProp_t, which ROCm 6 keeps
//    under that symbol as hipDeviceProp_tR0000: 792 bytes, gcnArchName at
//    396.
constexpr size_t kDevicePropR0600Bytes = 1472;
constexpr size_t kDevicePropR0600GcnArchName = 1160;
constexpr size_t kDevicePropR0000Bytes = 792;
constexpr size_t kDevicePropR0000GcnArchName = 396;
constexpr size_t kGcnArchNameBytes = 256;
/// What the plugin passes: larger than either struct.
constexpr size_t kDevicePropBufferBytes = 4096;

} // namespace tessera::hip

#endif
