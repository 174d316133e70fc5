//===- CmdPlugins.cpp - `tessera plugins` ---------------------------------===//
//
// Lists every plugin manifest the runtime found, what became of it (ready,
// unavailable with the reason, refused with the reason) and its devices.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tessera/runtime.h"

#include <cstdio>
#include <vector>

namespace tessera::tool {

namespace {
const char *stateName(tessera_plugin_state_t state) {
  switch (state) {
  case TESSERA_PLUGIN_READY:
    return "ready";
  case TESSERA_PLUGIN_UNAVAILABLE:
    return "unavailable";
  case TESSERA_PLUGIN_REFUSED:
    return "refused";
  }
  return "unknown";
}
} // namespace

int runPlugins(int argc, char **argv) {
  if (argc > 1) {
    std::fprintf(stderr, "usage: tessera plugins\n");
    return 2;
  }
  tessera_runtime_t runtime;
  if (tessera_status_t status = tessera_runtime_create(&runtime)) {
    std::fprintf(stderr, "tessera: %s\n", tessera_status_message(status));
    tessera_status_free(status);
    return 1;
  }
  uint32_t plugins = 0, devices = 0;
  tessera_status_free(tessera_runtime_plugin_count(runtime, &plugins));
  tessera_status_free(tessera_runtime_device_count(runtime, &devices));
  if (plugins == 0)
    std::printf("no plugins found (searched TESSERA_PLUGIN_PATH and the "
                "runtime's lib/tessera/plugins)\n");

  // Devices are numbered across plugins in plugin order.
  uint32_t deviceIndex = 0;
  for (uint32_t i = 0; i < plugins; ++i) {
    tessera_plugin_info info;
    if (tessera_status_t status =
            tessera_runtime_plugin_info(runtime, i, &info)) {
      tessera_status_free(status);
      continue;
    }
    if (info.state == TESSERA_PLUGIN_REFUSED) {
      std::printf("%s: refused: %s\n", info.manifest_path, info.message);
      continue;
    }
    std::printf("%s %s (runtime ABI %u.%u): %s%s%s\n", info.name, info.version,
                info.abi_major, info.abi_minor, stateName(info.state),
                info.message[0] ? ": " : "", info.message);
    std::printf("  manifest %s\n  library  %s\n", info.manifest_path,
                info.library_path);
    for (uint32_t d = 0; d < info.device_count; ++d, ++deviceIndex) {
      tessera_device_t device;
      tessera_device_info dev;
      if (tessera_status_t status =
              tessera_runtime_device(runtime, deviceIndex, &device)) {
        tessera_status_free(status);
        continue;
      }
      tessera_status_free(tessera_device_get_info(device, &dev));
      std::printf("  device %u: %s (%s:%s), %u compute units, %.1f GiB, "
                  "warp %u, %u KiB shared per block\n",
                  deviceIndex, dev.name, dev.triple, dev.chip,
                  dev.compute_units,
                  static_cast<double>(dev.total_memory) / (1u << 30),
                  dev.warp_size, dev.max_shared_bytes_per_block / 1024);
    }
  }
  tessera_runtime_destroy(runtime);
  return 0;
}

} // namespace tessera::tool
