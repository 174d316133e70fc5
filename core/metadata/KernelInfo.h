//===- KernelInfo.h - what a bundle records about a kernel -----*- C++ -*-===//
#ifndef TESSERA_CORE_METADATA_KERNELINFO_H
#define TESSERA_CORE_METADATA_KERNELINFO_H

#include "tessera/Dialect/Tile/TileOps.h"
#include "tessera/bundle/KernelMetadata.h"

#include <string>
#include <vector>

namespace tessera {

using KernelInfo = bundle::KernelInfo;
using KernelArgInfo = bundle::KernelArg;

/// The bundle's dtype of an element type, if it has one.
std::optional<bundle::DType> dtypeOf(mlir::Type type);

/// Reads a kernel function's launch contract: arguments, threads, and the
/// grid as a formula over the arguments' dimension symbols. Emits an error at
/// the offending op when the grid is not computable from shapes alone.
mlir::FailureOr<KernelInfo> extractKernelInfo(tile::FuncOp func);

} // namespace tessera

#endif
