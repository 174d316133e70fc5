//===- GemmFastPath.cpp - tensor-core kernels for canonical GEMMs ---------===//

#include "GemmFastPath.h"

mlir::LogicalResult tessera::cuda::lowerGemmFastPaths(
    mlir::ModuleOp, const CompileTarget &,
    std::vector<std::pair<std::string, unsigned>> &) {
  return mlir::success();
}
