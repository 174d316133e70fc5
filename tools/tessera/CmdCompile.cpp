//===- CmdCompile.cpp - tessera compile -----------------------------------===//
//
//   tessera compile k.mlir [--target <triple>[:<chip>]]... [-o k.tsb]
//                  [-O0..-O3] [--print-ir-after-all] [--dump-dir <dir>]
//                  [--no-cache] [--time]
//
// A cached compile is answered here, without loading MLIR: the key comes
// from CompileKey.h, which the compiler library uses too. Anything else goes
// to libtessera_compiler.so, loaded on demand (CompilerLibrary.h).
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "CompilerLibrary.h"

#include "CompileCache.h"
#include "CompileKey.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

using namespace tessera;
using namespace tessera::tool;

namespace {

struct CompileArgs {
  std::string source, output, dumpDir;
  std::vector<std::string> targets;
  int optLevel = 3;
  bool printIRAfterAll = false, noCache = false, showTime = false;
};

/// Parses the arguments; returns 0 when done, else the exit code.
int parseArgs(int argc, char **argv, CompileArgs &args) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag) -> const char * {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "tessera compile: %s needs a value\n", flag);
        return nullptr;
      }
      return argv[++i];
    };
    if (a == "--target" || a == "-t") {
      const char *v = value("--target");
      if (!v)
        return 2;
      args.targets.push_back(v);
    } else if (a.rfind("--target=", 0) == 0) {
      args.targets.push_back(a.substr(9));
    } else if (a == "-o") {
      const char *v = value("-o");
      if (!v)
        return 2;
      args.output = v;
    } else if (a.size() == 3 && a[0] == '-' && a[1] == 'O' && a[2] >= '0' &&
               a[2] <= '3') {
      args.optLevel = a[2] - '0';
    } else if (a == "--print-ir-after-all") {
      args.printIRAfterAll = true;
    } else if (a == "--dump-dir") {
      const char *v = value("--dump-dir");
      if (!v)
        return 2;
      args.dumpDir = v;
    } else if (a == "--no-cache") {
      args.noCache = true;
    } else if (a == "--time") {
      args.showTime = true;
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      std::fprintf(stderr, "tessera compile: unknown option '%s'\n", a.c_str());
      return 2;
    } else if (args.source.empty()) {
      args.source = a;
    } else {
      std::fprintf(stderr, "tessera compile: more than one input file\n");
      return 2;
    }
  }
  if (args.source.empty()) {
    std::fprintf(stderr, "usage: tessera compile <kernel.mlir> [--target "
                         "<triple>[:<chip>]]... [-o out.tsb]\n");
    return 2;
  }
  if (args.output.empty())
    args.output = std::filesystem::path(args.source).stem().string() + ".tsb";
  return 0;
}

/// Writes the bundle atomically: a failed compile never clobbers the old one.
bool writeBundle(const std::string &output, const char *bytes, size_t size) {
  std::string tmp = output + ".tmp";
  {
    errno = 0;
    std::ofstream os(tmp, std::ios::binary);
    os.write(bytes, std::streamsize(size));
    if (!os) {
      int err = errno;
      std::fprintf(stderr, "tessera compile: cannot write '%s': %s\n",
                   tmp.c_str(), err ? std::strerror(err) : "write failed");
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), output.c_str()) != 0) {
    std::fprintf(stderr, "tessera compile: cannot write '%s': %s\n",
                 output.c_str(), std::strerror(errno));
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

} // namespace

int tessera::tool::runCompile(int argc, char **argv) {
  auto start = std::chrono::steady_clock::now();
  CompileArgs args;
  if (int rc = parseArgs(argc, argv, args))
    return rc;

  std::string pluginDir = compilerPluginDir();
  CompileCache cache =
      args.noCache ? CompileCache(std::string()) : CompileCache();
  bool useCache =
      cache.enabled() && !args.printIRAfterAll && args.dumpDir.empty();
  std::string cacheState = useCache ? "miss" : "off";
  bool written = false;
  if (useCache) {
    // The same key the compiler library would compute (CompileKey.h). When
    // it cannot be computed (unreadable source, bad target) the compiler
    // reports the error below.
    std::string key, keyError, bytes;
    if (compileCacheKeyForFile(args.source, args.targets, args.optLevel,
                               CompilerPluginIndex::fromSearchPath(pluginDir),
                               key, keyError) &&
        cache.get(key, bytes) == CompileCache::Lookup::Hit) {
      if (!writeBundle(args.output, bytes.data(), bytes.size()))
        return 1;
      cacheState = "hit";
      written = true;
    }
  }

  std::string phaseTimes;
  if (!written) {
    std::string error;
    auto loadStart = std::chrono::steady_clock::now();
    const CompilerLibrary *compiler = loadCompilerLibrary(error);
    double loadMs = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - loadStart)
                        .count();
    if (!compiler) {
      std::fprintf(stderr, "tessera compile: %s\n", error.c_str());
      return 1;
    }
    std::vector<const char *> targets;
    for (const std::string &t : args.targets)
      targets.push_back(t.c_str());
    tessera_compile_request request = {};
    request.source_path = args.source.c_str();
    request.targets = targets.data();
    request.num_targets = targets.size();
    request.opt_level = args.optLevel;
    request.print_ir_after_all = args.printIRAfterAll;
    if (!args.dumpDir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(args.dumpDir, ec);
      if (ec) {
        std::fprintf(stderr, "error: cannot create --dump-dir '%s': %s\n",
                     args.dumpDir.c_str(), ec.message().c_str());
        return 1;
      }
    }
    request.dump_dir = args.dumpDir.c_str();
    request.use_cache = !args.noCache;
    request.default_plugin_dir = pluginDir.c_str();
    tessera_compile_result result = {};
    if (compiler->compile(&request, &result) != 0)
      return 1;
    bool ok = writeBundle(args.output, result.bytes, result.size);
    cacheState = result.cache_state;
    if (result.phase_times) {
      char line[96];
      std::snprintf(line, sizeof line, "  %-44s %8.1f ms\n",
                    "load the compiler library", loadMs);
      phaseTimes = line + std::string(result.phase_times);
    }
    compiler->freeResult(&result);
    if (!ok)
      return 1;
  }

  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  if (args.showTime) {
    std::printf("compiled %s -> %s in %.1f ms (cache: %s)\n",
                args.source.c_str(), args.output.c_str(), ms,
                cacheState.c_str());
    // Where a real compile spent its time (PhaseTimes.h); phases on worker
    // threads overlap the others.
    std::fputs(phaseTimes.c_str(), stdout);
  }
  return 0;
}
