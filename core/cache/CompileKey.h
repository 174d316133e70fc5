//===- CompileKey.h - the compile cache key, computed without LLVM -*- C++
//-*-===//
//
// The one place that decides which compile cache entry a compile maps to.
// Both sides call it: the `tessera` tool (which must answer a cached compile
// without loading libMLIR/libLLVM) and libtessera_compiler (which stores the
// entry after a real compile), so their keys agree by construction.
//
// The key hashes the tessera version, the LLVM version the compiler was
// built against (TESSERA_LLVM_VERSION, from CMake's LLVM_PACKAGE_VERSION),
// the source text without its locations (`loc(...)`: moving a kernel's
// file changes its diagnostics, not its code), the optimization level, each
// target spec as written ("triple:chip"), the name + version + build id of
// the compiler plugin serving each triple (found in the plugin manifests on
// the search path) and the build id of the core compiler library beside
// them. Build ids, not file times: copies of one build carried to another
// machine share its cache entries, and any rebuild misses them.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_CORE_CACHE_COMPILEKEY_H
#define TESSERA_CORE_CACHE_COMPILEKEY_H

#include <string>
#include <vector>

namespace tessera {

/// "triple[:chip]" split at the first ':'. False (with `error`) when the
/// triple is not <arch>-<vendor>-<os>.
struct TargetSpec {
  std::string triple, chip;
};
bool splitTargetSpec(const std::string &spec, TargetSpec &out,
                     std::string &error);

/// The LLVM triple of the machine this code was built for, e.g.
/// x86_64-unknown-linux-gnu: the default target of `tessera compile`.
/// Derived from the compiler's predefined macros, so it needs no LLVM (and
/// matches LLVM's process triple with the vendor normalized to "unknown";
/// a unit test checks that).
std::string hostTriple();

/// The LLVM version the key records ("none" in a build without LLVM).
const char *compileKeyLlvmVersion();

/// "build-id <hex>" from the ELF's NT_GNU_BUILD_ID note, else
/// "<size>@<mtime>", else "missing".
std::string libraryIdentity(const std::string &path);

/// `source` with every MLIR location (`loc(...)`) removed, string literals
/// left alone: the text the key hashes.
std::string withoutLocations(const std::string &source);

/// <dir of `library`>/tessera/plugins: the default plugin folder of both the
/// compiler library and the tool (which passes the compiler library it would
/// load). Lexically normalized.
std::string defaultPluginDirBeside(const std::string &library);

/// The compiler plugins on a plugin search path, read from their manifests
/// (no plugin is loaded). The first manifest on the path serving a triple
/// wins.
class CompilerPluginIndex {
public:
  struct Entry {
    std::string name, version, library, manifestPath;
    std::vector<std::string> triples;
    /// chip -> target description file.
    std::vector<std::pair<std::string, std::string>> targets;
  };

  /// Reads every manifest in `dirs` (in order) that names a compiler library.
  explicit CompilerPluginIndex(std::vector<std::string> dirs);
  /// The search path from TESSERA_PLUGIN_PATH, then `defaultDir`.
  static CompilerPluginIndex fromSearchPath(const std::string &defaultDir);

  const Entry *find(const std::string &triple) const;
  /// "<name> <version> <libraryIdentity>" of the plugin serving
  /// `triple`, else "none".
  std::string versionFor(const std::string &triple) const;
  /// libraryIdentity of libtessera_compiler.so two folders above the first
  /// search dir that has it ("none" when no dir does).
  const std::string &core() const { return coreIdentity; }

  const std::vector<std::string> &searchPath() const { return dirs; }
  const std::vector<Entry> &entries() const { return list; }
  /// Manifests that failed to parse, as messages.
  const std::vector<std::string> &problems() const { return bad; }

private:
  std::vector<std::string> dirs;
  std::vector<Entry> list;
  std::vector<std::string> bad;
  std::string coreIdentity = "none";
};

/// The environment variables that change what the compiler emits (A/B
/// switches, the ptxas and ld.lld it runs, the target folder); each one set
/// is part of compileCacheKey. A compiler switch not listed here would let
/// the cache answer a compile made with another setting: list new ones.
const std::vector<const char *> &compilerSwitches();

/// The cache key of compiling `source` (the file's text) at `optLevel` for
/// `targets` (already defaulted: never empty), with the plugins of `plugins`.
std::string compileCacheKey(const std::string &source, int optLevel,
                            const std::vector<TargetSpec> &targets,
                            const CompilerPluginIndex &plugins);

/// The key of compiling the file at `sourcePath` as the compiler will:
/// reads it, defaults no targets to the host triple, splits the specs.
/// False (with `error`) when the file cannot be read or a spec is malformed;
/// the compiler then reports the error itself.
bool compileCacheKeyForFile(const std::string &sourcePath,
                            const std::vector<std::string> &targetSpecs,
                            int optLevel, const CompilerPluginIndex &plugins,
                            std::string &key, std::string &error);

} // namespace tessera

#endif
