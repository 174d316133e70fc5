//===- CmdCompile.cpp - tessera compile -----------------------------------===//
//
//   tessera compile k.mlir [--target <triple>[:<chip>]]... [-o k.tsb]
//                  [-O0..-O3] [--print-ir-after-all] [--dump-dir <dir>]
//                  [--no-cache] [--time]
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "BundleCompiler.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <fstream>

using namespace tessera;

int tessera::tool::runCompile(int argc, char **argv) {
  BundleRequest request;
  std::string output;
  bool noCache = false, showTime = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag) -> const char * {
      if (i + 1 >= argc) {
        llvm::errs() << "tessera compile: " << flag << " needs a value\n";
        return nullptr;
      }
      return argv[++i];
    };
    if (a == "--target" || a == "-t") {
      const char *v = value("--target");
      if (!v)
        return 2;
      request.targets.push_back(v);
    } else if (a.rfind("--target=", 0) == 0) {
      request.targets.push_back(a.substr(9));
    } else if (a == "-o") {
      const char *v = value("-o");
      if (!v)
        return 2;
      output = v;
    } else if (a.size() == 3 && a[0] == '-' && a[1] == 'O' && a[2] >= '0' &&
               a[2] <= '3') {
      request.options.optLevel = a[2] - '0';
    } else if (a == "--print-ir-after-all") {
      request.options.printIRAfterAll = true;
    } else if (a == "--dump-dir") {
      const char *v = value("--dump-dir");
      if (!v)
        return 2;
      request.options.dumpDir = v;
    } else if (a == "--no-cache") {
      noCache = true;
    } else if (a == "--time") {
      showTime = true;
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      llvm::errs() << "tessera compile: unknown option '" << a << "'\n";
      return 2;
    } else if (request.sourcePath.empty()) {
      request.sourcePath = a;
    } else {
      llvm::errs() << "tessera compile: more than one input file\n";
      return 2;
    }
  }
  if (request.sourcePath.empty()) {
    llvm::errs() << "usage: tessera compile <kernel.mlir> [--target "
                    "<triple>[:<chip>]]... [-o out.tsb]\n";
    return 2;
  }
  if (output.empty())
    output = llvm::sys::path::stem(request.sourcePath).str() + ".tsb";

  auto start = std::chrono::steady_clock::now();
  mlir::DialectRegistry registry;
  registerTileModuleDialects(registry);
  mlir::MLIRContext ctx(registry);
  installCompilerDiagnosticHandler(ctx);
  CompilerPluginRegistry plugins;
  CompileCache cache = noCache ? CompileCache(std::string()) : CompileCache();
  BundleResult result;
  if (mlir::failed(compileBundle(request, ctx, plugins, cache, result)))
    return 1;

  // Write the bundle atomically: a failed compile never clobbers the old one.
  std::string tmp = output + ".tmp";
  {
    std::ofstream os(tmp, std::ios::binary);
    os.write(result.bytes.data(), result.bytes.size());
    if (!os) {
      llvm::errs() << "tessera compile: cannot write '" << tmp << "'\n";
      return 1;
    }
  }
  if (std::rename(tmp.c_str(), output.c_str()) != 0) {
    llvm::errs() << "tessera compile: cannot write '" << output
                 << "': " << std::strerror(errno) << "\n";
    std::remove(tmp.c_str());
    return 1;
  }
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  if (showTime)
    llvm::outs() << llvm::format("compiled %s -> %s in %.1f ms (cache: %s)\n",
                                 request.sourcePath.c_str(), output.c_str(), ms,
                                 result.cacheState.c_str());
  return 0;
}
