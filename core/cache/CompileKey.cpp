//===- CompileKey.cpp - the compile cache key, computed without LLVM ------===//

#include "CompileKey.h"

#include "CompileCache.h"

#include "tessera/bundle/Bundle.h"
#include "tessera/plugin/Manifest.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <elf.h>
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

std::string tessera::libraryIdentity(const std::string &path) {
  // The GNU build id lld and ld write (a hash of the linked bytes): equal for
  // copies of one build wherever they are installed or carried, different
  // for any rebuild that changes the code.
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return "missing";
  auto readAt = [&](uint64_t off, void *dst, size_t n) {
    in.clear();
    in.seekg(std::streamoff(off));
    return bool(in.read(static_cast<char *>(dst), std::streamsize(n)));
  };
  Elf64_Ehdr eh;
  if (readAt(0, &eh, sizeof eh) &&
      std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
      eh.e_ident[EI_CLASS] == ELFCLASS64 &&
      eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum < 256) {
    for (unsigned i = 0; i < eh.e_phnum; ++i) {
      Elf64_Phdr ph;
      if (!readAt(eh.e_phoff + uint64_t(i) * sizeof ph, &ph, sizeof ph))
        break;
      if (ph.p_type != PT_NOTE || ph.p_filesz > (1u << 16))
        continue;
      std::string notes(ph.p_filesz, '\0');
      if (!readAt(ph.p_offset, notes.data(), notes.size()))
        break;
      size_t at = 0;
      while (at + sizeof(Elf64_Nhdr) <= notes.size()) {
        Elf64_Nhdr nh;
        std::memcpy(&nh, notes.data() + at, sizeof nh);
        size_t name = at + sizeof nh;
        size_t desc = name + ((uint64_t(nh.n_namesz) + 3) & ~uint64_t(3));
        size_t next = desc + ((uint64_t(nh.n_descsz) + 3) & ~uint64_t(3));
        if (next > notes.size() || desc > notes.size())
          break;
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
            std::memcmp(notes.data() + name, "GNU", 4) == 0 &&
            nh.n_descsz > 0 && desc + nh.n_descsz <= notes.size()) {
          static const char hex[] = "0123456789abcdef";
          std::string id = "build-id ";
          for (size_t k = 0; k < nh.n_descsz; ++k) {
            unsigned char c = notes[desc + k];
            id += hex[c >> 4];
            id += hex[c & 15];
          }
          return id;
        }
        at = next;
      }
    }
  }
  // No build id (a linker told not to write one): size and modification
  // time tell builds apart on this machine.
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return "missing";
  return std::to_string(st.st_size) + "@" +
         std::to_string(int64_t(st.st_mtim.tv_sec)) + "." +
         std::to_string(int64_t(st.st_mtim.tv_nsec));
}

std::string tessera::withoutLocations(const std::string &source) {
  // Drops every `loc(...)` (balanced parentheses, string literals skipped
  // whole) outside string literals: where a kernel's file lives changes
  // its diagnostics, never its code.
  std::string out;
  out.reserve(source.size());
  auto isIdent = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
           c == '.' || c == '$' || c == '#' || c == '!';
  };
  auto skipString = [&](size_t i) { // i at the opening quote; returns past it
    for (++i; i < source.size(); ++i) {
      if (source[i] == '\\')
        ++i;
      else if (source[i] == '"')
        return i + 1;
    }
    return source.size();
  };
  size_t i = 0;
  while (i < source.size()) {
    char c = source[i];
    if (c == '"') {
      size_t end = skipString(i);
      out.append(source, i, end - i);
      i = end;
      continue;
    }
    if (c == 'l' && source.compare(i, 4, "loc(") == 0 &&
        (i == 0 || !isIdent(source[i - 1]))) {
      size_t j = i + 4;
      int depth = 1;
      while (j < source.size() && depth > 0) {
        if (source[j] == '"') {
          j = skipString(j);
          continue;
        }
        depth += source[j] == '(' ? 1 : source[j] == ')' ? -1 : 0;
        ++j;
      }
      // Also the blank before it, so `op loc(..)` and `op` key alike.
      while (!out.empty() && out.back() == ' ')
        out.pop_back();
      i = j;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

CompilerPluginIndex::CompilerPluginIndex(std::vector<std::string> searchDirs)
    : dirs(std::move(searchDirs)) {
  // The core library the compiler plugins link (its passes decide the code
  // as much as theirs do) sits two folders above the default plugin folder
  // (<lib>/tessera/plugins beside <lib>/libtessera_compiler.so).
  for (const std::string &dir : dirs) {
    std::filesystem::path core =
        std::filesystem::path(dir) / ".." / ".." / "libtessera_compiler.so";
    std::error_code ec;
    if (std::filesystem::exists(core, ec)) {
      coreIdentity = libraryIdentity(core.lexically_normal().string());
      break;
    }
  }
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
  // version: the library's build id tells builds apart.
  return e->name + " " + e->version + " " + libraryIdentity(e->library);
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
      std::string("llvm ") + compileKeyLlvmVersion(),
      "core " + plugins.core(),
      withoutLocations(source),
      "O" + std::to_string(optLevel)};
  for (const TargetSpec &t : targets) {
    parts.push_back(t.triple + ":" + t.chip);
    parts.push_back(plugins.versionFor(t.triple));
  }
  // The compiler's switches (A/B settings, tools it runs, where targets
  // come from) decide the bytes too; each one set is part of the key, so a
  // bundle compiled with TESSERA_PTX_FAST=0 is never answered from one
  // compiled without it. Unset ones add nothing: default keys stay as they
  // were.
  for (const char *name : compilerSwitches())
    if (const char *v = std::getenv(name))
      parts.push_back(std::string("env ") + name + "=" + v);
  return CompileCache::key(parts);
}

const std::vector<const char *> &tessera::compilerSwitches() {
  static const std::vector<const char *> names = {
      "TESSERA_CLUSTERS",
      "TESSERA_COMPACT_TWINS",
      "TESSERA_CUDA_TWINS",
      "TESSERA_CUDA_WARP_SPECIALIZATION",
      "TESSERA_DEEPEN_KEYS",
      "TESSERA_DEFER_STORE_WAIT",
      "TESSERA_EARLY_BULK",
      "TESSERA_EARLY_COPIES",
      "TESSERA_EXP_FMA",
      "TESSERA_FMA_LAYOUT",
      "TESSERA_FMA_PREFETCH",
      "TESSERA_K_STEPS",
      "TESSERA_LD_LLD",
      "TESSERA_LONGEST_FIRST",
      "TESSERA_L2_KEEP",
      "TESSERA_MASK_VERSION",
      "TESSERA_MMA_OVERLAP",
      "TESSERA_MMA_ZERO_START",
      "TESSERA_PACKED_HALVES",
      "TESSERA_PERSISTENT",
      "TESSERA_PINGPONG",
      "TESSERA_PREFETCH_FRAGMENTS",
      "TESSERA_PREFETCH_UNROLL",
      "TESSERA_PTXAS",
      "TESSERA_PTX_FAST",
      "TESSERA_SPIRV_CARRY",
      "TESSERA_SPIRV_CONTINUE",
      "TESSERA_SPIRV_EARLY_LOADS",
      "TESSERA_SPIRV_LOOP_CONTROL",
      "TESSERA_SPIRV_READONLY",
      "TESSERA_SPIRV_REPACK",
      "TESSERA_SPIRV_SPLIT_REFILL",
      "TESSERA_SPIRV_STAGE_BUDGET",
      "TESSERA_SPIRV_STAGE_RESERVE",
      "TESSERA_SPIRV_STAGING_SPLIT",
      "TESSERA_SPIRV_WARPS2D",
      "TESSERA_SPLIT_THREADS",
      "TESSERA_STAGED_PIECE",
      "TESSERA_STAGE_FRAGMENTS",
      "TESSERA_STMATRIX",
      "TESSERA_TARGET_PATH",
      "TESSERA_TMA_STORE",
      "TESSERA_WAIT_FENCE",
      "TESSERA_WGMMA_DESC",
      "TESSERA_WGMMA_FENCE",
      "TESSERA_WIDEN",
      "TESSERA_ZIGZAG"};
  return names;
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
