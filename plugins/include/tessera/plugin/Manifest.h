//===- tessera/plugin/Manifest.h - plugin manifest files --------*- C++ -*-===//
//
// A plugin directory holds one `<name>.toml` manifest per plugin:
//
//   name = "cpu"
//   version = "0.1.0"
//   abi_version = "1.0"                            # runtime ABI major.minor
//   runtime_library = "libtessera_cpu_runtime.so"   # relative to the manifest
//   compiler_library = "libtessera_cpu_compiler.so" # optional
//   triples = ["x86_64-unknown-linux-gnu"]
//   [targets]                                       # optional
//   "x86-64-v3" = "targets/host.toml"
//
// Both the runtime (runtime_library) and the compiler (compiler_library,
// targets) read manifests through this parser. No MLIR, no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_PLUGIN_MANIFEST_H
#define TESSERA_PLUGIN_MANIFEST_H

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::plugin {

struct Manifest {
  /// The manifest file itself and its folder (absolute when the input was).
  std::string path;
  std::string directory;

  std::string name;
  std::string version;
  uint32_t abiMajor = 0;
  uint32_t abiMinor = 0;
  /// Library paths resolved against `directory`; compilerLibrary may be "".
  std::string runtimeLibrary;
  std::string compilerLibrary;
  std::vector<std::string> triples;
  /// chip -> target description file, resolved against `directory`.
  std::vector<std::pair<std::string, std::string>> targets;
};

/// Parses manifest text. \p path is used for messages and to resolve
/// relative library paths. Returns false and sets \p error, naming the file
/// and the line or key at fault.
bool parseManifest(std::string_view text, const std::string &path,
                   Manifest &out, std::string &error);

/// Reads and parses the manifest file at \p path.
bool readManifest(const std::string &path, Manifest &out, std::string &error);

/// Every `*.toml` file directly in \p directory, sorted by name. A missing
/// directory yields an empty list.
std::vector<std::string> listManifests(const std::string &directory);

/// The plugin directories to search, in order: each entry of
/// TESSERA_PLUGIN_PATH (colon-separated, empty entries skipped), then
/// \p defaultDirs. Duplicates are dropped.
std::vector<std::string>
pluginSearchPath(const std::vector<std::string> &defaultDirs);

/// Resolves \p file against \p directory unless it is absolute.
std::string resolvePath(const std::string &directory, const std::string &file);

} // namespace tessera::plugin

#endif // TESSERA_PLUGIN_MANIFEST_H
