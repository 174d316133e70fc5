//===- SpirvTargetHooks.h - what Vulkan adds to distribution ----*- C++ -*-===//
//
// The spirv backend's TargetHooks. Subgroup shuffles and workgroup barriers
// keep the core's defaults (gpu.shuffle and gpu.barrier convert to
// OpGroupNonUniformShuffleXor and OpControlBarrier); there are no
// asynchronous copies. GEMMs take the core's vector-FMA code on devices
// without cooperative matrices.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_SPIRV_SPIRVTARGETHOOKS_H
#define TESSERA_BACKENDS_SPIRV_SPIRVTARGETHOOKS_H

#include "tessera/plugin/target_hooks.h"

namespace tessera::spirv {

class SpirvTargetHooks final : public TargetHooks {
public:
  explicit SpirvTargetHooks(const target::TargetDescription &desc)
      : desc(desc) {}

  bool canEmitAtom(const target::MmaAtom &atom) const override;
  llvm::SmallVector<mlir::Value>
  emitMma(mlir::OpBuilder &b, mlir::Location loc, const target::MmaAtom &atom,
          llvm::ArrayRef<mlir::Value> a, llvm::ArrayRef<mlir::Value> b_,
          llvm::ArrayRef<mlir::Value> c) override;

private:
  const target::TargetDescription &desc;
};

} // namespace tessera::spirv

#endif
