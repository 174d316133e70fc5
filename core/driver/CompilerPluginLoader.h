//===- CompilerPluginLoader.h - dlopen a backend's compile side -*- C++ -*-===//
#ifndef TESSERA_CORE_DRIVER_COMPILERPLUGINLOADER_H
#define TESSERA_CORE_DRIVER_COMPILERPLUGINLOADER_H

#include "tessera/plugin/compiler_plugin.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace tessera {

/// A loaded compiler plugin; unloading happens when the last owner goes.
struct LoadedCompilerPlugin {
  void *handle = nullptr;
  std::unique_ptr<CompilerPlugin> plugin;
  ~LoadedCompilerPlugin();
};

/// Loads `path` with RTLD_NOW | RTLD_LOCAL and checks that it was built
/// against this LLVM major version and compiler-plugin interface version.
llvm::Expected<std::shared_ptr<LoadedCompilerPlugin>>
loadCompilerPlugin(const std::string &path);

} // namespace tessera

#endif
