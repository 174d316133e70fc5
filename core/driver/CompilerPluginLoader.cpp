//===- CompilerPluginLoader.cpp - dlopen a backend's compile side ---------===//

#include "CompilerPluginLoader.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FormatVariadic.h"

#include <dlfcn.h>

using namespace tessera;

LoadedCompilerPlugin::~LoadedCompilerPlugin() {
  plugin.reset();
  // Keep the library mapped: MLIR may hold TypeIDs and pass registrations
  // that point into it until the context dies.
}

static llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Expected<std::shared_ptr<LoadedCompilerPlugin>>
tessera::loadCompilerPlugin(const std::string &path) {
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return fail(llvm::formatv("cannot load compiler plugin '{0}': {1}", path,
                              dlerror()));
  auto version = reinterpret_cast<CompilerPluginVersionFn>(
      dlsym(handle, "tessera_compiler_plugin_llvm_version"));
  auto abi = reinterpret_cast<CompilerPluginAbiFn>(
      dlsym(handle, "tessera_compiler_plugin_abi_version"));
  auto create = reinterpret_cast<CompilerPluginCreateFn>(
      dlsym(handle, "tessera_compiler_plugin_create"));
  if (!version || !abi || !create) {
    dlclose(handle);
    return fail(
        llvm::formatv("'{0}' is not a tessera compiler plugin: it lacks the "
                      "tessera_compiler_plugin_* entry points",
                      path));
  }
  llvm::StringRef theirs = version();
  llvm::StringRef ourMajor =
      llvm::StringRef(LLVM_VERSION_STRING).split('.').first;
  if (theirs.split('.').first != ourMajor) {
    dlclose(handle);
    return fail(llvm::formatv("compiler plugin '{0}' was built with LLVM {1}, "
                              "this compiler uses LLVM {2}",
                              path, theirs, LLVM_VERSION_STRING));
  }
  if (abi() != kCompilerPluginAbiVersion) {
    dlclose(handle);
    return fail(llvm::formatv("compiler plugin '{0}' implements interface "
                              "version {1}, this compiler expects {2}",
                              path, abi(), kCompilerPluginAbiVersion));
  }
  auto loaded = std::make_shared<LoadedCompilerPlugin>();
  loaded->handle = handle;
  loaded->plugin.reset(create());
  if (!loaded->plugin)
    return fail(
        llvm::formatv("compiler plugin '{0}' failed to initialize", path));
  return loaded;
}
