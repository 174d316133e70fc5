//===- tessera/plugin/Loader.h - discover and load runtime plugins -*- C++
//-*-===//
//
// Finds manifests along the search path and dlopens each runtime plugin with
// RTLD_NOW | RTLD_LOCAL. A defective plugin is refused with a message naming
// its file; the others keep working. A plugin whose initialize() fails stays
// listed as "unavailable: <reason>".
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_PLUGIN_LOADER_H
#define TESSERA_PLUGIN_LOADER_H

#include "tessera/plugin/Manifest.h"
#include "tessera/plugin/runtime_abi.h"

#include <memory>
#include <string>
#include <vector>

namespace tessera::plugin {

enum class PluginState {
  Ready,       // loaded and initialised
  Unavailable, // loaded, but initialize() reported it cannot run here
  Refused,     // not loaded: bad manifest, library, entry point or ABI
};

const char *pluginStateName(PluginState state);

/// One manifest found on the search path and what became of it.
class RuntimePlugin {
public:
  RuntimePlugin() = default;
  RuntimePlugin(const RuntimePlugin &) = delete;
  RuntimePlugin &operator=(const RuntimePlugin &) = delete;
  /// Calls shutdown() when initialised and dlcloses the library.
  ~RuntimePlugin();

  PluginState state = PluginState::Refused;
  /// Why it is refused or unavailable; "" when ready.
  std::string message;
  /// Valid as far as it could be parsed; path is always set.
  Manifest manifest;
  /// Set when state != Refused.
  const tessera_runtime_plugin *table = nullptr;
  void *handle = nullptr;
};

/// Loads every runtime plugin whose manifest is in one of \p dirs. A plugin
/// name seen twice is refused the second time (the first dir wins, so
/// TESSERA_PLUGIN_PATH overrides the installed plugins).
std::vector<std::unique_ptr<RuntimePlugin>>
loadRuntimePlugins(const std::vector<std::string> &dirs);

/// Loads the runtime plugin described by one manifest file.
std::unique_ptr<RuntimePlugin>
loadRuntimePlugin(const std::string &manifestPath);

} // namespace tessera::plugin

#endif // TESSERA_PLUGIN_LOADER_H
