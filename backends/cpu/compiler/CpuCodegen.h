//===- CpuCodegen.h - LLVM dialect to a host shared object ------*- C++ -*-===//
#ifndef TESSERA_BACKENDS_CPU_CPUCODEGEN_H
#define TESSERA_BACKENDS_CPU_CPUCODEGEN_H

#include "tessera/plugin/compiler_plugin.h"

namespace tessera::cpu {

/// Lowers the loop-level module (after lowerTileToLoops) to the LLVM dialect,
/// optimizes it for the target CPU and links a shared object in memory.
mlir::LogicalResult emitSharedObject(mlir::ModuleOp module,
                                     const CompileTarget &target,
                                     const CompileOptions &options,
                                     std::vector<char> &bytes);

} // namespace tessera::cpu

#endif
