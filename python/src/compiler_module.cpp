//===- compiler_module.cpp - tessera._compiler: tile IR text to a bundle --===//
//
// The Python frontend emits tile-dialect text whose ops carry the user's
// Python file:line:col as locations; this module hands it to the compile
// driver (compileBundle: parse, verify, passes, plugin, bundle, compile
// cache) and turns the driver's diagnostics into a Python exception whose
// message reads `file.py:12:9: error: ...`. Nothing is checked here: every
// rule lives in the dialect's verifiers and the passes.
//
//===----------------------------------------------------------------------===//

#include "BundleCompiler.h"
#include "Compile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdio>
#include <string>
#include <vector>

namespace nb = nanobind;
using namespace tessera;

namespace {

nb::object gCompileError;

/// Writes `source` to a unique temporary .mlir file (the driver reads
/// files; the cache key hashes the text, not the name) and removes it.
struct TempSource {
  llvm::SmallString<128> path;
  bool ok = false;
  std::string error;
  explicit TempSource(const std::string &source) {
    int fd = -1;
    if (auto ec = llvm::sys::fs::createTemporaryFile("tessera-py", "mlir", fd,
                                                     path)) {
      error = ec.message();
      return;
    }
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << source;
    os.close();
    ok = !os.has_error();
    if (!ok)
      error = os.error().message();
  }
  ~TempSource() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

/// Compiles tile IR text for `targets` ("triple[:chip]"; none: the host).
/// Returns (bundle bytes, cache state, cache key); raises CompileError with
/// every diagnostic the driver reported.
nb::tuple compile(const std::string &source,
                  const std::vector<std::string> &targets, int optLevel,
                  bool useCache) {
  std::string diagnostics;
  BundleResult out;
  bool failed = false;
  {
    nb::gil_scoped_release release;
    TempSource file(source);
    if (!file.ok) {
      diagnostics = "cannot write the tile source: " + file.error + "\n";
      failed = true;
    } else {
      BundleRequest request;
      request.sourcePath = std::string(file.path);
      request.targets = targets;
      request.options.optLevel = optLevel;
      mlir::DialectRegistry registry;
      registerTileModuleDialects(registry);
      mlir::MLIRContext ctx(registry);
      // The message and the Python line say it; the generic op dump that
      // MLIR attaches by default would only add noise.
      ctx.printOpOnDiagnostic(false);
      llvm::raw_string_ostream os(diagnostics);
      mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
        printCompilerDiagnostic(d, os);
        return mlir::success();
      });
      CompilerPluginRegistry plugins;
      CompileCache cache =
          useCache ? CompileCache() : CompileCache(std::string());
      failed = mlir::failed(compileBundle(request, ctx, plugins, cache, out));
    }
  }
  if (failed) {
    if (diagnostics.empty())
      diagnostics = "error: compilation failed without a diagnostic\n";
    PyErr_SetString(gCompileError.ptr(), diagnostics.c_str());
    throw nb::python_error();
  }
  return nb::make_tuple(nb::bytes(out.bytes.data(), out.bytes.size()),
                        out.cacheState, out.key);
}

} // namespace

NB_MODULE(_compiler, m) {
  m.doc() = "tessera compiler library: tile IR text to bundles";
  gCompileError = nb::borrow(PyExc_RuntimeError);
  m.def("set_error_type", [](nb::object type) { gCompileError = type; });
  m.def("compile", &compile, nb::arg("source"), nb::arg("targets"),
        nb::arg("opt_level") = 3, nb::arg("use_cache") = true);
  m.def("default_plugin_dir",
        [] { return CompilerPluginRegistry::defaultPluginDir(); });
}
