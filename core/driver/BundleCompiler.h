//===- BundleCompiler.h - a tile source file to a .tsb bundle ---*- C++ -*-===//
#ifndef TESSERA_CORE_DRIVER_BUNDLECOMPILER_H
#define TESSERA_CORE_DRIVER_BUNDLECOMPILER_H

#include "CompileCache.h"
#include "PluginRegistry.h"

namespace tessera {

struct BundleRequest {
  std::string sourcePath;
  /// "triple[:chip]" each; empty means the host CPU.
  std::vector<std::string> targets;
  CompileOptions options;
};

struct BundleResult {
  std::string bytes;
  /// "hit", "miss", "corrupt" (recompiled) or "off".
  std::string cacheState = "off";
  /// The compile cache key of the request (CompileKey.h).
  std::string key;
};

// hostTriple() (the default target) comes from CompileKey.h, which the
// tool shares.

/// Compiles a source file for every requested target into one bundle,
/// through the compile cache when it is enabled. Diagnostics go to the
/// context's handler; returns failure after reporting.
mlir::LogicalResult compileBundle(const BundleRequest &request,
                                  mlir::MLIRContext &ctx,
                                  CompilerPluginRegistry &plugins,
                                  const CompileCache &cache,
                                  BundleResult &result);

} // namespace tessera

#endif
