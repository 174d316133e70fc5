//===- LowerTileToLoops.h - tile dialect to scf/memref for CPUs -*- C++ -*-===//
#ifndef TESSERA_BACKENDS_CPU_LOWERTILETOLOOPS_H
#define TESSERA_BACKENDS_CPU_LOWERTILETOLOOPS_H

#include "mlir/IR/BuiltinOps.h"

namespace tessera::cpu {

/// Symbol prefix of the kernel entry points a CPU image exports.
constexpr const char *kKernelSymbolPrefix = "tessera_kernel_";

/// Rewrites every tile.func into a func.func
///   void tessera_kernel_<name>(const uint64_t *slots, i64 bx, i64 by, i64 bz)
/// that runs one block: tiles become stack buffers, copies/gemms/reductions
/// become loop nests over them, tensors are read from the 8-byte argument
/// slots (pointer, then dims). A block runs on one host thread, so fragments
/// and shared tiles are the same thing here.
mlir::LogicalResult lowerTileToLoops(mlir::ModuleOp module);

} // namespace tessera::cpu

#endif
