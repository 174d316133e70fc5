//===- hip_plugin.cpp - the hip runtime plugin (unavailable for now) ------===//
//
// The run side of the hip backend is not built yet: kernels compile to
// hsaco images (backends/hip/compiler), but nothing launches them. This
// plugin says so precisely instead of being absent (a manifest without its
// runtime library is a broken install): without libamdhip64 it is
// "unavailable: libamdhip64 not found (...)", with it "unavailable:
// libamdhip64 is present, but ...". Every other entry fails the same way;
// the host never calls them after a failed initialize.
//
//===----------------------------------------------------------------------===//

#include "tessera/plugin/runtime_abi.h"

#include <cstdio>
#include <dlfcn.h>
#include <mutex>
#include <string>

#ifndef TESSERA_HIP_PLUGIN_VERSION
#define TESSERA_HIP_PLUGIN_VERSION "0.1.0"
#endif

namespace {

std::once_flag gOnce;
std::string gMessage;

int unavailable(char *err, size_t errLen, const std::string &why) {
  if (err && errLen)
    std::snprintf(err, errLen, "%s", why.c_str());
  return TESSERA_PLUGIN_ERROR_UNAVAILABLE;
}

int hipInitialize(char *err, size_t errLen) {
  std::call_once(gOnce, [] {
    std::string tried;
    for (const char *name :
         {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"}) {
      if (void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) {
        dlclose(h);
        gMessage = std::string(name) +
                   " is present, but this build's hip runtime plugin does "
                   "not drive the HIP module API yet (docs/backends/hip.md)";
        return;
      }
      const char *e = dlerror();
      if (tried.empty())
        tried = std::string("dlopen ") + name + ": " + (e ? e : "?");
    }
    gMessage = "libamdhip64 not found (" + tried + ")";
  });
  return unavailable(err, errLen, gMessage);
}

void hipShutdown() {}

#define TESSERA_HIP_UNAVAILABLE                                                \
  return unavailable(err, errLen, "hip plugin is not initialized")

int deviceCount(uint32_t *, char *err, size_t errLen) {
  TESSERA_HIP_UNAVAILABLE;
}
int deviceOpen(uint32_t, tessera_plugin_device *, char *err, size_t errLen) {
  TESSERA_HIP_UNAVAILABLE;
}
void deviceClose(tessera_plugin_device) {}
int deviceInfo(tessera_plugin_device, tessera_plugin_device_info *, char *err,
               size_t errLen) {
  TESSERA_HIP_UNAVAILABLE;
}
int memAlloc(tessera_plugin_device, uint64_t, tessera_device_ptr *, char *err,
             size_t errLen) {
  TESSERA_HIP_UNAVAILABLE;
}
void memFree(tessera_plugin_device, tessera_device_ptr) {}
int copyToDevice(tessera_plugin_device, tessera_plugin_stream,
                 tessera_device_ptr, const void *, uint64_t, char *err,
                 size_t errLen) {
  TESSERA_HIP_UNAVAILABLE;
}
int copyToHost(tessera_plugin_device, tessera_plugin_stream, void *,
               tessera_device_ptr, uint64_t, char *err, size_t errLen) {
  TESSERA_HIP_UNAVAILABLE;
}
int copyDevice(tessera_plugin_device, tessera_plugin_stream, tessera_device_ptr,
               tessera_device_ptr, uint64_t, char *err, size_t errLen) {
  TESSERA_HIP_UNAVAILABLE;
}
int memSet(tessera_plugin_device, tessera_plugin_stream, tessera_device_ptr,
           uint8_t, uint64_t, char *err, size_t errLen) {
  TESSERA_HIP_UNAVAILABLE;
}
int streamCreate(tessera_plugin_device, tessera_plugin_stream *, char *err,
                 size_t errLen) {
  TESSERA_HIP_UNAVAILABLE;
}
void streamDestroy(tessera_plugin_stream) {}
int streamSynchronize(tessera_plugin_stream, char *err, size_t errLen) {
  TESSERA_HIP_UNAVAILABLE;
}
int eventCreate(tessera_plugin_device, tessera_plugin_event *, char *err,
                size_t errLen) {
  TESSERA_HIP_UNAVAILABLE;
}
void eventDestroy(tessera_plugin_event) {}
int eventRecord(tessera_plugin_event, tessera_plugin_stream, char *err,
                size_t errLen) {
  TESSERA_HIP_UNAVAILABLE;
}
int eventSynchronize(tessera_plugin_event, char *err, size_t errLen) {
  TESSERA_HIP_UNAVAILABLE;
}
int eventElapsedMs(tessera_plugin_event, tessera_plugin_event, float *,
                   char *err, size_t errLen) {
  TESSERA_HIP_UNAVAILABLE;
}
int moduleLoad(tessera_plugin_device, const void *, uint64_t,
               tessera_plugin_module *, char *err, size_t errLen) {
  TESSERA_HIP_UNAVAILABLE;
}
void moduleUnload(tessera_plugin_module) {}
int kernelGet(tessera_plugin_module, const char *, tessera_plugin_kernel *,
              char *err, size_t errLen) {
  TESSERA_HIP_UNAVAILABLE;
}
int launch(tessera_plugin_kernel, tessera_plugin_stream,
           const tessera_plugin_launch *, char *err, size_t errLen) {
  TESSERA_HIP_UNAVAILABLE;
}
int streamWrap(tessera_plugin_device, void *, tessera_plugin_stream *,
               char *err, size_t errLen) {
  TESSERA_HIP_UNAVAILABLE;
}

const tessera_runtime_plugin kHipPlugin = {
    TESSERA_RUNTIME_ABI_MAJOR,
    TESSERA_RUNTIME_ABI_MINOR,
    sizeof(tessera_runtime_plugin),
    "hip",
    TESSERA_HIP_PLUGIN_VERSION,
    hipInitialize,
    hipShutdown,
    deviceCount,
    deviceOpen,
    deviceClose,
    deviceInfo,
    memAlloc,
    memFree,
    copyToDevice,
    copyToHost,
    copyDevice,
    memSet,
    streamCreate,
    streamDestroy,
    streamSynchronize,
    eventCreate,
    eventDestroy,
    eventRecord,
    eventSynchronize,
    eventElapsedMs,
    moduleLoad,
    moduleUnload,
    kernelGet,
    launch,
    streamWrap,
};

} // namespace

extern "C" __attribute__((visibility("default"))) const tessera_runtime_plugin *
TESSERA_RUNTIME_PLUGIN_ENTRY(void) {
  return &kHipPlugin;
}
