//===- CpuCompilerPlugin.cpp - the cpu backend's compile side -------------===//

#include "CpuCodegen.h"
#include "LowerTileToLoops.h"

#include "tessera/plugin/compiler_plugin.h"

namespace {

class CpuCompilerPlugin final : public tessera::CompilerPlugin {
public:
  llvm::StringRef name() const override { return "cpu"; }

  mlir::LogicalResult compile(mlir::ModuleOp module,
                              const tessera::CompileTarget &target,
                              const tessera::CompileOptions &options,
                              tessera::CompiledImage &image) override {
    if (mlir::failed(tessera::cpu::lowerTileToLoops(module)))
      return mlir::failure();
    if (mlir::failed(tessera::cpu::emitSharedObject(module, target, options,
                                                    image.bytes)))
      return mlir::failure();
    image.imageKind = "object";
    return mlir::success();
  }
};

} // namespace

TESSERA_DEFINE_COMPILER_PLUGIN(CpuCompilerPlugin)
