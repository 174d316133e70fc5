//===- CompileKey.cpp - the compile cache key, computed without LLVM ------===//

#include "CompileKey.h"

#include "CompileCache.h"

#include "tessera/bundle/Bundle.h"
#include "tessera/plugin/Manifest.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#ifndef TESSERA_VERSION
#define TESSERA_VERSION "0.1.0"
#endif
#ifndef TESSERA_LLVM_VERSION
#define TESSERA_LLVM_VERSION "none"
#endif

// The same names LLVM gives the host, spelled as plugin manifests spell them
// (vendor "unknown"), as the CPU runtime plugin derives its own triple.
#if defined(__x86_64__)
#define TESSERA_HOST_ARCH "x86_64"
#elif defined(__aarch64__)
#define TESSERA_HOST_ARCH "aarch64"
#elif defined(__riscv) && __riscv_xlen == 64
#define TESSERA_HOST_ARCH "riscv64"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TESSERA_HOST_ARCH "powerpc64le"
#else
#error "unknown host architecture: add its LLVM triple name here"
#endif
#if defined(__linux__)
#define TESSERA_HOST_OS "unknown-linux-gnu"
#elif defined(__FreeBSD__)
#define TESSERA_HOST_OS "unknown-freebsd"
#else
#error "unknown host OS: add its LLVM triple name here"
#endif

using namespace tessera;

bool tessera::splitTargetSpec(const std::string &spec, TargetSpec &out,
                              std::string &error) {
  size_t colon = spec.find(':');
  std::string triple = spec.substr(0, colon);
  if (triple.empty() || std::count(triple.begin(), triple.end(), '-') < 2) {
    error = "bad target '" + spec +
            "': expected <arch>-<vendor>-<os>[:<chip>], e.g. "
            "nvptx64-nvidia-cuda:sm_90a or x86_64-unknown-linux-gnu";
    return false;
  }
  out.triple = triple;
  out.chip =
      colon == std::string::npos ? std::string() : spec.substr(colon + 1);
  return true;
}

std::string tessera::hostTriple() {
  return TESSERA_HOST_ARCH "-" TESSERA_HOST_OS;
}

const char *tessera::compileKeyLlvmVersion() { return TESSERA_LLVM_VERSION; }

std::string tessera::defaultPluginDirBeside(const std::string &library) {
  std::filesystem::path lib(library);
  std::filesystem::path dir = lib.parent_path() / "tessera" / "plugins";
  return dir.lexically_normal().string();
}

CompilerPluginIndex::CompilerPluginIndex(std::vector<std::string> searchDirs)
    : dirs(std::move(searchDirs)) {
  for (const std::string &dir : dirs) {
    for (const std::string &path : plugin::listManifests(dir)) {
      plugin::Manifest m;
      std::string error;
      if (!plugin::readManifest(path, m, error)) {
        bad.push_back(error);
        continue;
      }
      if (m.compilerLibrary.empty())
        continue;
      list.push_back(
          {m.name, m.version, m.compilerLibrary, m.path, m.triples, m.targets});
    }
  }
}

CompilerPluginIndex
CompilerPluginIndex::fromSearchPath(const std::string &defaultDir) {
  std::vector<std::string> defaults;
  if (!defaultDir.empty())
    defaults.push_back(defaultDir);
  return CompilerPluginIndex(plugin::pluginSearchPath(defaults));
}

const CompilerPluginIndex::Entry *
CompilerPluginIndex::find(const std::string &triple) const {
  for (const Entry &e : list)
    for (const std::string &t : e.triples)
      if (t == triple)
        return &e;
  return nullptr;
}

std::string CompilerPluginIndex::versionFor(const std::string &triple) const {
  const Entry *e = find(triple);
  if (!e)
    return "none";
  // The manifest's version alone misses a rebuilt plugin of the same
  // version: the library's size and modification time tell builds apart for
  // the price of one stat().
  std::string build = "missing";
  struct stat st;
  if (::stat(e->library.c_str(), &st) == 0)
    build = std::to_string(st.st_size) + "@" +
            std::to_string(int64_t(st.st_mtim.tv_sec)) + "." +
            std::to_string(int64_t(st.st_mtim.tv_nsec));
  return e->name + " " + e->version + " " + build;
}

std::string tessera::compileCacheKey(const std::string &source, int optLevel,
                                     const std::vector<TargetSpec> &targets,
                                     const CompilerPluginIndex &plugins) {
  // Everything that decides the bundle's bytes.
  // The bundle format is part of it: an entry written in an older format
  // would not load.
  std::vector<std::string> parts = {
      std::string("tessera ") + TESSERA_VERSION,
      "bundle format " + std::to_string(bundle::kBundleFormat),
      std::string("llvm ") + compileKeyLlvmVersion(), source,
      "O" + std::to_string(optLevel)};
  for (const TargetSpec &t : targets) {
    parts.push_back(t.triple + ":" + t.chip);
    parts.push_back(plugins.versionFor(t.triple));
  }
  return CompileCache::key(parts);
}

bool tessera::compileCacheKeyForFile(
    const std::string &sourcePath, const std::vector<std::string> &targetSpecs,
    int optLevel, const CompilerPluginIndex &plugins, std::string &key,
    std::string &error) {
  std::ifstream in(sourcePath, std::ios::binary);
  if (!in) {
    error = "cannot open '" + sourcePath + "'";
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    error = "cannot read '" + sourcePath + "'";
    return false;
  }
  std::vector<std::string> specs = targetSpecs;
  if (specs.empty())
    specs.push_back(hostTriple());
  std::vector<TargetSpec> targets;
  for (const std::string &spec : specs) {
    TargetSpec t;
    if (!splitTargetSpec(spec, t, error))
      return false;
    targets.push_back(t);
  }
  key = compileCacheKey(text.str(), optLevel, targets, plugins);
  return true;
}
