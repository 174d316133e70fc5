//===- CudaCompilerPlugin.cpp - the cuda backend's compile side -----------===//

#include "LowerTileToGpu.h"
#include "NvptxCodegen.h"

#include "tessera/Dialect/Tile/TileOps.h"
#include "tessera/plugin/compiler_plugin.h"

#include <map>

namespace {

class CudaCompilerPlugin final : public tessera::CompilerPlugin {
public:
  llvm::StringRef name() const override { return "cuda"; }

  mlir::LogicalResult compile(mlir::ModuleOp module,
                              const tessera::CompileTarget &target,
                              const tessera::CompileOptions &options,
                              tessera::CompiledImage &image) override {
    std::vector<std::pair<std::string, unsigned>> shared;
    if (mlir::failed(tessera::cuda::lowerTileToGpu(
            module, target, options, shared, &image.threads, &image.grids)))
      return mlir::failure();
    if (mlir::failed(tessera::cuda::emitCubin(module, target, options, image)))
      return mlir::failure();
    image.sharedBytes = std::move(shared);
    return mlir::success();
  }
};

} // namespace

TESSERA_DEFINE_COMPILER_PLUGIN(CudaCompilerPlugin)
