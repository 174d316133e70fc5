//===- PluginRegistry.h - find the compile side of a target ----*- C++ -*-===//
#ifndef TESSERA_CORE_DRIVER_PLUGINREGISTRY_H
#define TESSERA_CORE_DRIVER_PLUGINREGISTRY_H

#include "Compile.h"
#include "CompileKey.h"

#include <map>
#include <mutex>

namespace tessera {

/// Reads the plugin manifests on the search path (TESSERA_PLUGIN_PATH, then
/// the folder lib/tessera/plugins next to libtessera_compiler.so) and loads a
/// target's compiler plugin on first use.
class CompilerPluginRegistry {
public:
  CompilerPluginRegistry();
  /// Serves the plugins of `index` (tests, and the tool's own search path).
  explicit CompilerPluginRegistry(CompilerPluginIndex index);

  /// Loads the compiler plugin serving `target.triple` and fills in
  /// `target.descriptionPath` for its chip. Errors name what was searched.
  llvm::Expected<std::shared_ptr<LoadedCompilerPlugin>>
  resolve(CompileTarget &target);

  /// "<plugin name> <version>" of the plugin serving a triple (for cache keys).
  std::string versionFor(llvm::StringRef triple) const;

  /// The folders searched, in order.
  const std::vector<std::string> &searchPath() const {
    return index.searchPath();
  }
  /// The manifests read, which also decide the compile cache key.
  const CompilerPluginIndex &manifests() const { return index; }

  /// lib/tessera/plugins beside libtessera_compiler.so.
  static std::string defaultPluginDir();

private:
  CompilerPluginIndex index;
  std::map<std::string, std::shared_ptr<LoadedCompilerPlugin>> loaded;
  std::mutex mutex;
};

} // namespace tessera

#endif
