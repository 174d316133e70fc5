//===- CompilerLibrary.h - libtessera_compiler.so, loaded on demand -*- C++
//-*-===//
//
// The `tessera` tool links no MLIR or LLVM, so that a cached compile, `run`,
// `info` and `plugins` start fast and work on a machine without LLVM. It
// loads libtessera_compiler.so (RTLD_NOW | RTLD_LOCAL) only for a real
// compile or a host reference, and calls the C entry points of
// tessera/compiler_entry.h.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TOOLS_TESSERA_COMPILERLIBRARY_H
#define TESSERA_TOOLS_TESSERA_COMPILERLIBRARY_H

#include "tessera/compiler_entry.h"

#include <string>

namespace tessera::tool {

/// Where the compiler library is looked for: $TESSERA_COMPILER_LIBRARY, else
/// <dir of this executable>/../lib/libtessera_compiler.so (build/lib in a
/// build tree, <prefix>/lib once installed).
std::string compilerLibraryPath();

/// <dir of this executable>/../lib/tessera/plugins: the default plugin
/// folder (after TESSERA_PLUGIN_PATH) of the tool's cache keys, passed to
/// the compiler library so that its keys use the same one.
std::string compilerPluginDir();

struct CompilerLibrary {
  tessera_compiler_compile_fn compile = nullptr;
  tessera_compiler_free_result_fn freeResult = nullptr;
  tessera_compiler_reference_fn reference = nullptr;
};

/// Loads the library once per process. Returns null with `error` saying
/// why ("this tessera has no compiler: libtessera_compiler.so not found at
/// ...", or the loader's message).
const CompilerLibrary *loadCompilerLibrary(std::string &error);

} // namespace tessera::tool

#endif
