//===- GemmFastPath.h - tensor-core kernels for canonical GEMMs -*- C++ -*-===//

#ifndef TESSERA_BACKENDS_CUDA_GEMMFASTPATH_H
#define TESSERA_BACKENDS_CUDA_GEMMFASTPATH_H

#include "tessera/plugin/compiler_plugin.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <utility>
#include <vector>

namespace tessera::cuda {

/// Replaces every tile.func of the canonical GEMM shape with a tensor-core
/// kernel (LLVM dialect) in the gpu.module; leaves the others for the SIMT
/// path. Records their dynamic shared memory in `sharedBytes`.
mlir::LogicalResult
lowerGemmFastPaths(mlir::ModuleOp module, const CompileTarget &target,
                   std::vector<std::pair<std::string, unsigned>> &sharedBytes);

} // namespace tessera::cuda

#endif
