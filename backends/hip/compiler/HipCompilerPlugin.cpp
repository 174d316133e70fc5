//===- HipCompilerPlugin.cpp - the hip backend's compile side -------------===//

#include "AmdgpuCodegen.h"
#include "LowerTileToGpu.h"

#include "tessera/plugin/compiler_plugin.h"

namespace {

class HipCompilerPlugin final : public tessera::CompilerPlugin {
public:
  llvm::StringRef name() const override { return "hip"; }

  mlir::LogicalResult compile(mlir::ModuleOp module,
                              const tessera::CompileTarget &target,
                              const tessera::CompileOptions &options,
                              tessera::CompiledImage &image) override {
    std::vector<std::pair<std::string, unsigned>> shared;
    if (mlir::failed(tessera::hip::lowerTileToGpu(module, target, options,
                                                  shared, &image.threads)))
      return mlir::failure();
    if (mlir::failed(tessera::hip::emitHsaco(module, target, options, shared,
                                             image.bytes)))
      return mlir::failure();
    image.imageKind = "hsaco";
    image.sharedBytes = std::move(shared);
    return mlir::success();
  }
};

} // namespace

TESSERA_DEFINE_COMPILER_PLUGIN(HipCompilerPlugin)
