//===- PluginUnderTest.h - a runtime plugin's table, dlopened by a test -*- C++
//-*-===//
//
// The runtime-plugin tests load their plugin directly (not through the
// loader) from the build tree's plugin folder, relative to the test binary so
// that a copied build tree still works.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TESTS_UNIT_COMMON_PLUGINUNDERTEST_H
#define TESSERA_TESTS_UNIT_COMMON_PLUGINUNDERTEST_H

#include "TestFiles.h"

#include "tessera/plugin/runtime_abi.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <string>

namespace tessera::test {

/// dlopens `dir`/`library` (`dir` relative to the test binary's folder);
/// null, with a test failure, when it does not load.
inline void *openTestPlugin(const std::string &dir,
                            const std::string &library) {
  std::string path = exeDir() + "/" + dir + "/" + library;
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    ADD_FAILURE() << "dlopen " << path << ": " << dlerror();
  return handle;
}

/// The plugin table `lib` exports, or null.
inline const tessera_runtime_plugin *pluginTable(void *lib) {
  if (!lib)
    return nullptr;
  auto entry = reinterpret_cast<tessera_runtime_plugin_entry_fn>(
      dlsym(lib, TESSERA_RUNTIME_PLUGIN_ENTRY_NAME));
  return entry ? entry() : nullptr;
}

} // namespace tessera::test

#endif
