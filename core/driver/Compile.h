//===- Compile.h - tile module to per-target images -------------*- C++ -*-===//
#ifndef TESSERA_CORE_DRIVER_COMPILE_H
#define TESSERA_CORE_DRIVER_COMPILE_H

#include "CompilerPluginLoader.h"
#include "KernelInfo.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OwningOpRef.h"

#include <functional>

namespace tessera {

/// Parses "triple[:chip]", e.g. "nvptx64-nvidia-cuda:sm_90a".
llvm::Expected<CompileTarget> parseTargetSpec(llvm::StringRef spec);

/// Registers the dialects a tile module may contain.
void registerTileModuleDialects(mlir::DialectRegistry &registry);

/// Prints diagnostics as `file:line:col: error: message` (the form editors
/// and build tools understand), with notes indented below.
void installCompilerDiagnosticHandler(mlir::MLIRContext &ctx);

/// Prints one diagnostic (and its notes, indented) in that form; for
/// callers that collect diagnostics instead of printing them (the Python
/// bindings turn them into exceptions).
void printCompilerDiagnostic(mlir::Diagnostic &diag, llvm::raw_ostream &os);

/// Parses and verifies a tile module from a file ("-" for stdin); errors go
/// to the context's diagnostic handler with file:line:col.
mlir::OwningOpRef<mlir::ModuleOp> parseTileModule(llvm::StringRef path,
                                                  mlir::MLIRContext &ctx);

/// One image of a bundle.
struct TargetImage {
  CompileTarget target;
  CompiledImage image;
  std::vector<KernelInfo> kernels;
};

/// Finds the compiler plugin for a target (fills descriptionPath).
using PluginResolver =
    std::function<llvm::Expected<std::shared_ptr<LoadedCompilerPlugin>>(
        CompileTarget &target)>;

/// Compiles `module` for one target: reads the kernels' launch contracts,
/// then hands a clone of the module to the target's plugin.
mlir::LogicalResult compileForTarget(mlir::ModuleOp module,
                                     CompileTarget target,
                                     const CompileOptions &options,
                                     const PluginResolver &resolve,
                                     TargetImage &out);

} // namespace tessera

#endif
