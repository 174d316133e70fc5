//===- LowerTileToGpu.h - tile dialect to gpu functions for AMD -*- C++ -*-===//
//
// Every tile.func becomes a gpu.func kernel `tessera_kernel_<name>` inside
// one gpu.module, whose parameters are the runtime's slots (a tensor: pointer
// then one i64 per dim; a scalar: its own type). Its tile.kernel runs the
// core passes with the atoms the hip hooks accept and is distributed through
// HipTargetHooks; shared tiles live in dynamic LDS.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_HIP_LOWERTILETOGPU_H
#define TESSERA_BACKENDS_HIP_LOWERTILETOGPU_H

#include "tessera/plugin/compiler_plugin.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <utility>
#include <vector>

namespace tessera::hip {

inline constexpr llvm::StringLiteral kKernelSymbolPrefix = "tessera_kernel_";
inline constexpr llvm::StringLiteral kGpuModuleName = "tessera_kernels";
/// gpu.func attribute: the block's threads, for the flat work-group size.
inline constexpr llvm::StringLiteral kThreadsAttr = "tessera.threads";

/// Lowers every tile.func of `module` into a gpu.func of the gpu.module
/// `kGpuModuleName`. `sharedBytes` receives the dynamic LDS each kernel
/// needs, by tile.func name, and `threads` the threads of kernels the core
/// passes gave other than the program's (tessera-split-threads).
mlir::LogicalResult lowerTileToGpu(
    mlir::ModuleOp module, const tessera::CompileTarget &target,
    const tessera::CompileOptions &options,
    std::vector<std::pair<std::string, unsigned>> &sharedBytes,
    std::vector<std::pair<std::string, unsigned>> *threads = nullptr);

} // namespace tessera::hip

#endif
