//===- SpirvCompilerPlugin.cpp - the spirv backend's compile side ---------===//

#include "LowerTileToSpirv.h"

#include "tessera/plugin/compiler_plugin.h"

namespace {

class SpirvCompilerPlugin final : public tessera::CompilerPlugin {
public:
  llvm::StringRef name() const override { return "spirv"; }

  mlir::LogicalResult compile(mlir::ModuleOp module,
                              const tessera::CompileTarget &target,
                              const tessera::CompileOptions &options,
                              tessera::CompiledImage &image) override {
    std::vector<tessera::spirv::KernelRecord> kernels;
    if (mlir::failed(tessera::spirv::lowerTileToSpirvGpu(module, target,
                                                         options, kernels)))
      return mlir::failure();
    if (mlir::failed(tessera::spirv::emitSpirvImage(module, target, options,
                                                    kernels, image.bytes)))
      return mlir::failure();
    image.imageKind = "spirv";
    // Workgroup memory is declared in the module, not passed at launch.
    // The threads the core passes chose (tessera-split-threads may have
    // given the block more than the program wrote): the LocalSize the
    // launch must match.
    for (const auto &k : kernels) {
      image.sharedBytes.emplace_back(k.name, 0u);
      image.threads.emplace_back(k.name, k.threads);
    }
    return mlir::success();
  }
};

} // namespace

TESSERA_DEFINE_COMPILER_PLUGIN(SpirvCompilerPlugin)
