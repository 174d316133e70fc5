//===- Internal.h - the runtime's objects behind the C handles -*- C++ -*-===//

#ifndef TESSERA_RUNTIME_LIB_INTERNAL_H
#define TESSERA_RUNTIME_LIB_INTERNAL_H

#include "tessera/bundle/KernelMetadata.h"
#include "tessera/plugin/Loader.h"
#include "tessera/runtime.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

struct DLManagedTensor;

struct tessera_status_s {
  tessera_status_code_t code;
  std::string message;
};

struct tessera_device_s {
  tessera_runtime_s *runtime = nullptr;
  const tessera::plugin::RuntimePlugin *plugin = nullptr;
  const tessera_runtime_plugin *api = nullptr;
  tessera_plugin_device handle = nullptr;
  uint32_t ordinal = 0; // within its plugin
  tessera_plugin_device_info info = {};
  /// The plugin ABI wants calls on one stream serialised; this guards the
  /// default (NULL) stream.
  std::mutex defaultStreamMutex;
};

struct tessera_runtime_s {
  std::vector<std::unique_ptr<tessera::plugin::RuntimePlugin>> plugins;
  std::vector<uint32_t> devicesPerPlugin;
  std::vector<std::unique_ptr<tessera_device_s>> devices;
  ~tessera_runtime_s();
};

struct tessera_buffer_s {
  tessera_device_s *device = nullptr;
  tessera_device_ptr address = 0;
  uint64_t size = 0;
  std::atomic<int> references{1};
  /// Set for a DLPack import: the memory is the tensor's, not ours.
  DLManagedTensor *imported = nullptr;
};

struct tessera_stream_s {
  tessera_device_s *device = nullptr;
  tessera_plugin_stream handle = nullptr;
  std::mutex mutex;
};

struct tessera_event_s {
  tessera_device_s *device = nullptr;
  tessera_plugin_event handle = nullptr;
};

namespace tessera::runtime {

/// A kernel's argument checks and grid, prepared from its metadata when the
/// kernel is loaded (prepareLaunchPlan), so that a launch compares integers:
/// it neither parses static dims nor matches symbol names, and a grid of
/// constant formulas is never evaluated again.
struct LaunchPlan {
  enum class DimKind : uint8_t { Any, Static, Symbol };
  struct Dim {
    DimKind kind;
    uint32_t symbol; // DimKind::Symbol: index into `symbols`
    int64_t value;   // DimKind::Static: the size (-1: a non-canonical decimal
                     // that no size matches, as "007")
  };
  /// Per argument, its dims (scalars: none): offsets into `dims`.
  std::vector<uint32_t> firstDim;
  std::vector<Dim> dims;
  /// Symbol names by index, in order of first appearance.
  std::vector<std::string> symbols;
  /// The grid when its formulas name no symbol and no dim.
  bool constantGrid = false;
  uint32_t grid[3] = {0, 0, 0};
  /// Unique per kernel in the process: the key of the grid memo (an address
  /// can be reused by a kernel loaded later).
  uint64_t serial = 0;
};

} // namespace tessera::runtime

struct tessera_kernel_s {
  tessera_module_s *module = nullptr;
  tessera::bundle::KernelInfo info;
  tessera_plugin_kernel handle = nullptr;
  tessera::runtime::LaunchPlan plan;
};

struct tessera_module_s {
  tessera_device_s *device = nullptr;
  tessera_plugin_module handle = nullptr;
  std::string name; // the bundle's file name, for messages
  std::vector<std::unique_ptr<tessera_kernel_s>> kernels;
};

namespace tessera::runtime {

/// A heap status, or nullptr for TESSERA_OK.
tessera_status_t makeStatus(tessera_status_code_t code, std::string message);
/// Maps a plugin error code and message to a status; nullptr when ok == 0.
tessera_status_t pluginStatus(int code, const char *message,
                              const std::string &context);

/// The error buffer handed to plugin calls.
struct PluginError {
  // Only the first byte is cleared: plugins write a terminated message on
  // failure, and this sits on the launch path.
  PluginError() { text[0] = 0; }
  char text[512];
  char *data() { return text; }
  size_t size() const { return sizeof text; }
};

/// Locks the mutex that serialises calls on \p stream (NULL: the device's
/// default stream).
std::unique_lock<std::mutex> lockStream(tessera_device_s *device,
                                        tessera_stream_s *stream);

void retainBuffer(tessera_buffer_s *buffer);

/// Fills kernel.plan from kernel.info (Launch.cpp).
void prepareLaunchPlan(tessera_kernel_s &kernel);

} // namespace tessera::runtime

#define TESSERA_CHECK_ARG(cond, what)                                          \
  do {                                                                         \
    if (!(cond))                                                               \
      return ::tessera::runtime::makeStatus(TESSERA_INVALID_ARGUMENT, what);   \
  } while (0)

#endif // TESSERA_RUNTIME_LIB_INTERNAL_H
