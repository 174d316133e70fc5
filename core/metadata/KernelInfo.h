//===- KernelInfo.h - what a bundle records about a kernel -----*- C++ -*-===//
#ifndef TESSERA_CORE_METADATA_KERNELINFO_H
#define TESSERA_CORE_METADATA_KERNELINFO_H

#include "tessera/Dialect/Tile/TileOps.h"

#include <string>
#include <vector>

namespace tessera {

struct KernelArgInfo {
  std::string name;
  std::string kind;  // "tensor" or "scalar"
  std::string dtype; // f16 bf16 f32 f64 f8e4m3 f8e5m2 i1 i8 i16 i32 i64 index
  std::vector<std::string> dims; // tensors: a symbol, "?" or a decimal size
};

struct KernelInfo {
  std::string name;
  std::string symbol;
  unsigned threads = 0;
  unsigned sharedBytes = 0;
  std::string grid[3] = {"1", "1", "1"};
  std::vector<KernelArgInfo> args;
};

/// The bundle's name for an element type, or "" when it has none.
std::string dtypeName(mlir::Type type);

/// Reads a kernel function's launch contract: arguments, threads, and the
/// grid as a formula over the arguments' dimension symbols. Emits an error at
/// the offending op when the grid is not computable from shapes alone.
mlir::FailureOr<KernelInfo> extractKernelInfo(tile::FuncOp func);

/// The `tessera.kernels` TOML text of a bundle image.
std::string kernelsToToml(const std::vector<KernelInfo> &kernels);

} // namespace tessera

#endif
