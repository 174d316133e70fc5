//===- CompilerLibrary.cpp - libtessera_compiler.so, loaded on demand -----===//

#include "CompilerLibrary.h"

#include "CompileKey.h"

#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <sys/stat.h>

using namespace tessera::tool;

/// <dir of this executable>/../lib/libtessera_compiler.so.
static std::string installedCompilerLibrary() {
  std::error_code ec;
  std::filesystem::path exe =
      std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec)
    return "libtessera_compiler.so";
  return (exe.parent_path() / ".." / "lib" / "libtessera_compiler.so")
      .lexically_normal()
      .string();
}

std::string tessera::tool::compilerLibraryPath() {
  if (const char *env = std::getenv("TESSERA_COMPILER_LIBRARY"); env && *env)
    return env;
  return installedCompilerLibrary();
}

std::string tessera::tool::compilerPluginDir() {
  // Beside the library this tessera installs, even when
  // TESSERA_COMPILER_LIBRARY names another: the plugins belong to the
  // install, and a cached compile must find them with no compiler at all.
  return defaultPluginDirBeside(installedCompilerLibrary());
}

const CompilerLibrary *tessera::tool::loadCompilerLibrary(std::string &error) {
  static CompilerLibrary library;
  static std::string loadError;
  static bool tried = false;
  if (tried) {
    error = loadError;
    return library.compile ? &library : nullptr;
  }
  tried = true;
  std::string path = compilerLibraryPath();
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    error = loadError = "this tessera has no compiler: libtessera_compiler.so "
                        "not found at " +
                        path;
    return nullptr;
  }
  void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = ::dlerror();
    error = loadError = "this tessera has no compiler: cannot load " + path +
                        ": " + (why ? why : "unknown error");
    return nullptr;
  }
  auto version = reinterpret_cast<tessera_compiler_entry_version_fn>(
      ::dlsym(handle, "tessera_compiler_entry_version"));
  if (!version || version() != TESSERA_COMPILER_ENTRY_VERSION) {
    error = loadError =
        "this tessera has no compiler: " + path +
        " is of another tessera (compiler entry version " +
        (version ? std::to_string(version()) : std::string("missing")) +
        ", expected " + std::to_string(TESSERA_COMPILER_ENTRY_VERSION) + ")";
    ::dlclose(handle);
    return nullptr;
  }
  CompilerLibrary l;
  l.compile = reinterpret_cast<tessera_compiler_compile_fn>(
      ::dlsym(handle, "tessera_compiler_compile"));
  l.freeResult = reinterpret_cast<tessera_compiler_free_result_fn>(
      ::dlsym(handle, "tessera_compiler_free_result"));
  l.reference = reinterpret_cast<tessera_compiler_reference_fn>(
      ::dlsym(handle, "tessera_compiler_reference"));
  if (!l.compile || !l.freeResult || !l.reference) {
    error = loadError = "this tessera has no compiler: " + path +
                        " lacks the tessera_compiler_* entry points";
    ::dlclose(handle);
    return nullptr;
  }
  // Never unloaded: MLIR registers process-wide state.
  library = l;
  return &library;
}
