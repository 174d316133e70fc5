//===- CpuCompilerPlugin.cpp - the cpu backend's compile side -------------===//

#include "CpuCodegen.h"
#include "LowerTileToLoops.h"

#include "tessera/plugin/compiler_plugin.h"

#include "llvm/Config/llvm-config.h"

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

extern "C" __attribute__((visibility("default"))) const char *
tessera_compiler_plugin_llvm_version() {
  return LLVM_VERSION_STRING;
}

extern "C" __attribute__((visibility("default"))) unsigned
tessera_compiler_plugin_abi_version() {
  return tessera::kCompilerPluginAbiVersion;
}

extern "C" __attribute__((visibility("default"))) tessera::CompilerPlugin *
tessera_compiler_plugin_create() {
  return new CpuCompilerPlugin();
}
