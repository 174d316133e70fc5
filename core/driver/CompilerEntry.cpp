//===- CompilerEntry.cpp - the C entry points the `tessera` tool dlopens
//---===//
//
// See tessera/compiler_entry.h. These wrap the C++ driver (compileBundle)
// and the reference interpreter for a caller that links no MLIR.
//
//===----------------------------------------------------------------------===//

#include "tessera/compiler_entry.h"

#include "BundleCompiler.h"
#include "Compile.h"
#include "PhaseTimes.h"
#include "TileInterpreter.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <cstdlib>
#include <cstring>

using namespace tessera;

#define TESSERA_ENTRY extern "C" __attribute__((visibility("default")))

namespace {

void copyString(char *dst, size_t size, const std::string &src) {
  if (!dst || !size)
    return;
  size_t n = std::min(size - 1, src.size());
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

} // namespace

TESSERA_ENTRY int tessera_compiler_entry_version(void) {
  return TESSERA_COMPILER_ENTRY_VERSION;
}

TESSERA_ENTRY int tessera_compiler_compile(const tessera_compile_request *req,
                                           tessera_compile_result *result) {
  if (!req || !result || !req->source_path)
    return 1;
  std::memset(result, 0, sizeof(*result));
  BundleRequest request;
  request.sourcePath = req->source_path;
  for (size_t i = 0; i < req->num_targets; ++i)
    request.targets.push_back(req->targets[i]);
  request.options.optLevel = req->opt_level;
  request.options.printIRAfterAll = req->print_ir_after_all != 0;
  if (req->dump_dir)
    request.options.dumpDir = req->dump_dir;

  mlir::DialectRegistry registry;
  registerTileModuleDialects(registry);
  mlir::MLIRContext ctx(registry);
  installCompilerDiagnosticHandler(ctx);
  std::string pluginDir = req->default_plugin_dir && *req->default_plugin_dir
                              ? std::string(req->default_plugin_dir)
                              : CompilerPluginRegistry::defaultPluginDir();
  CompilerPluginRegistry plugins(
      CompilerPluginIndex::fromSearchPath(pluginDir));
  CompileCache cache =
      req->use_cache ? CompileCache() : CompileCache(std::string());
  BundleResult out;
  clearPhaseTimes();
  if (mlir::failed(compileBundle(request, ctx, plugins, cache, out)))
    return 1;
  if (out.cacheState != "hit") {
    std::string times = formatPhaseTimes();
    result->phase_times = static_cast<char *>(std::malloc(times.size() + 1));
    if (result->phase_times)
      std::memcpy(result->phase_times, times.c_str(), times.size() + 1);
  }
  result->bytes = static_cast<char *>(std::malloc(out.bytes.size() + 1));
  if (!result->bytes)
    return 1;
  std::memcpy(result->bytes, out.bytes.data(), out.bytes.size());
  result->size = out.bytes.size();
  copyString(result->cache_state, sizeof(result->cache_state), out.cacheState);
  copyString(result->key, sizeof(result->key), out.key);
  return 0;
}

TESSERA_ENTRY void
tessera_compiler_free_result(tessera_compile_result *result) {
  if (!result)
    return;
  std::free(result->bytes);
  result->bytes = nullptr;
  std::free(result->phase_times);
  result->phase_times = nullptr;
  result->size = 0;
}

TESSERA_ENTRY int tessera_compiler_reference(
    const char *source, size_t sourceSize, const char *kernel,
    tessera_reference_tensor *tensors, size_t numTensors, const double *scalars,
    size_t numScalars, char *whyOut, size_t whySize) {
  auto fail = [&](const std::string &why) {
    copyString(whyOut, whySize, why);
    return 1;
  };
  if (!source || !sourceSize)
    return fail("the bundle carries no tile source");
  if (!kernel)
    return fail("no kernel named");
  mlir::DialectRegistry registry;
  registerTileModuleDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
  if (tile::findDenseIndexArray(llvm::StringRef(source, sourceSize)) ||
      tile::findDeepNesting(llvm::StringRef(source, sourceSize)))
    return fail("the bundle's tile source does not parse");
  auto module = mlir::parseSourceString<mlir::ModuleOp>(
      llvm::StringRef(source, sourceSize), &ctx);
  if (!module)
    return fail("the bundle's tile source does not parse");
  tile::FuncOp func;
  for (auto f : module->getOps<tile::FuncOp>())
    if (f.getSymName() == kernel)
      func = f;
  if (!func)
    return fail(std::string("the bundle's source has no tile.func @") + kernel);

  std::vector<reference::Arg> args;
  size_t t = 0, s = 0;
  for (mlir::Type type : func.getArgumentTypes()) {
    reference::Arg a;
    if (mlir::isa<tile::GlobalTensorType>(type)) {
      if (t >= numTensors)
        return fail("the kernel takes more tensors than were given");
      const tessera_reference_tensor &h = tensors[t++];
      a.isTensor = true;
      a.dims.assign(h.dims, h.dims + h.rank);
      int64_t n = 1;
      for (int64_t d : a.dims)
        n *= d;
      a.data.assign(h.data, h.data + n);
    } else {
      if (s >= numScalars)
        return fail("the kernel takes more scalars than were given");
      a.scalar = scalars[s++];
    }
    args.push_back(std::move(a));
  }
  std::string why;
  if (!reference::interpret(func, args, why))
    return fail(why);
  t = 0;
  for (reference::Arg &a : args)
    if (a.isTensor) {
      tessera_reference_tensor &h = tensors[t++];
      std::copy(a.data.begin(), a.data.end(), h.data);
    }
  return 0;
}
