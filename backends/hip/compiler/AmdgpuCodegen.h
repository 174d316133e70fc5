//===- AmdgpuCodegen.h - gpu.module to an AMD code object -------*- C++ -*-===//

#ifndef TESSERA_BACKENDS_HIP_AMDGPUCODEGEN_H
#define TESSERA_BACKENDS_HIP_AMDGPUCODEGEN_H

#include "tessera/plugin/compiler_plugin.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <utility>
#include <vector>

namespace tessera::hip {

/// Lowers the gpu.module produced by lowerTileToGpu to ROCDL/LLVM (math to
/// LLVM intrinsics: no ROCm device libraries), compiles it with LLVM's
/// AMDGPU backend for `target.chip` into a relocatable object, links that
/// with ld.lld into an hsaco (code object v5) and checks every kernel's
/// descriptor against the chip's LDS and register budgets. `sharedBytes`
/// (dynamic LDS by tile.func name) counts toward the LDS budget.
mlir::LogicalResult
emitHsaco(mlir::ModuleOp module, const CompileTarget &target,
          const CompileOptions &options,
          const std::vector<std::pair<std::string, unsigned>> &sharedBytes,
          std::vector<char> &bytes);

} // namespace tessera::hip

#endif
