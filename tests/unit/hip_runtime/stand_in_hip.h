/*===- stand_in_hip.h - the test-only query API of the HIP stand-in -*- C
 * -*-===//
 *
 * libtessera_test_stand_in_hip.so is an ABI test double of libamdhip64: it
 * exports the hip* functions the hip runtime plugin calls and implements
 * them on host memory with one fake gfx942 device. It runs no kernel:
 * hipModuleLaunchKernel records the call (function, grid, block, dynamic
 * LDS, stream and the raw kernarg bytes), which is what the tests check
 * against the code object's metadata. A test passing against the stand-in
 * says that the plugin drives the HIP module API as documented; it does not
 * count as running on AMD hardware.
 *
 * The tests reach these functions through dlsym on the same library the
 * plugin loads ($TESSERA_HIP_LIBRARY), so both see one state. Built in
 * tests/unit/hip_runtime, never installed.
 *===----------------------------------------------------------------------===*/

#ifndef TESSERA_TESTS_UNIT_HIP_RUNTIME_STAND_IN_HIP_H
#define TESSERA_TESTS_UNIT_HIP_RUNTIME_STAND_IN_HIP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TESSERA_STAND_IN_HIP_MAX_KERNARG 4096

/* One recorded hipModuleLaunchKernel call. */
typedef struct tessera_stand_in_hip_launch {
  char function[256]; /* the name hipModuleGetFunction was given */
  uint32_t grid[3];   /* blocks */
  uint32_t block[3];  /* threads */
  uint32_t shared_bytes;
  void *stream;   /* the hipStream_t passed (NULL: the null stream) */
  int device;     /* the device current on the launching thread */
  int used_extra; /* 1: `extra` (BUFFER_POINTER/SIZE/END); 0: kernelParams */
  uint64_t kernarg_size; /* *HIP_LAUNCH_PARAM_BUFFER_SIZE */
  unsigned char kernarg[TESSERA_STAND_IN_HIP_MAX_KERNARG];
} tessera_stand_in_hip_launch;

/* Live objects, to check that the plugin frees what it creates. */
typedef struct tessera_stand_in_hip_counts {
  int allocations, streams, events, modules;
  int launches; /* recorded since the last reset */
} tessera_stand_in_hip_counts;

/* Launch `index` (0: the first since the last reset); 0 on success, -1 when
 * there is no such launch. */
int tessera_stand_in_hip_launch_at(int index, tessera_stand_in_hip_launch *out);
void tessera_stand_in_hip_counts_get(tessera_stand_in_hip_counts *out);
/* Forgets the recorded launches. */
void tessera_stand_in_hip_reset(void);
/* Devices hipGetDeviceCount reports from now on (default 1; 0 models a
 * machine with ROCm but no GPU). */
void tessera_stand_in_hip_set_device_count(int count);
/* The next call of `function` (e.g. "hipModuleLaunchKernel") returns
 * `error` instead of running; "" clears. */
void tessera_stand_in_hip_fail_next(const char *function, int error);

typedef int (*tessera_stand_in_hip_launch_at_fn)(int,
                                                 tessera_stand_in_hip_launch *);
typedef void (*tessera_stand_in_hip_counts_get_fn)(
    tessera_stand_in_hip_counts *);
typedef void (*tessera_stand_in_hip_reset_fn)(void);
typedef void (*tessera_stand_in_hip_set_device_count_fn)(int);
typedef void (*tessera_stand_in_hip_fail_next_fn)(const char *, int);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
