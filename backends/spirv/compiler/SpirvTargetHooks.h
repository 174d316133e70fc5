//===- SpirvTargetHooks.h - what Vulkan adds to distribution ----*- C++ -*-===//
//
// The spirv backend's TargetHooks. Subgroup shuffles and workgroup barriers
// keep the core's defaults (gpu.shuffle and gpu.barrier convert to
// OpGroupNonUniformShuffleXor and OpControlBarrier); there are no
// asynchronous copies. On devices with VK_KHR_cooperative_matrix the
// description's "coopmat" atoms read A and B from plain row-major shared
// tiles (OpCooperativeMatrixLoadKHR) and keep the accumulator in the
// driver's opaque order (c_order = "opaque"): its registers are the
// cooperative matrix's components, moved through shared memory with
// OpCooperativeMatrixStoreKHR / LoadKHR when another op needs them by
// position. Without such atoms GEMMs take the core's vector FMA.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_SPIRV_SPIRVTARGETHOOKS_H
#define TESSERA_BACKENDS_SPIRV_SPIRVTARGETHOOKS_H

#include "tessera/plugin/target_hooks.h"

namespace tessera::spirv {

class SpirvTargetHooks final : public TargetHooks {
public:
  bool canEmitAtom(const target::MmaAtom &atom) const override;
  bool canEmitAtomFor(const target::MmaAtom &atom,
                      const target::MmaUse &use) const override;
  llvm::SmallVector<mlir::Value>
  emitMma(mlir::OpBuilder &b, mlir::Location loc, const target::MmaAtom &atom,
          llvm::ArrayRef<mlir::Value> a, llvm::ArrayRef<mlir::Value> b_,
          llvm::ArrayRef<mlir::Value> c) override;
  llvm::SmallVector<mlir::Value>
  emitMmaShared(mlir::OpBuilder &b, mlir::Location loc,
                const target::MmaAtom &atom, const MmaOperandRef &a,
                const MmaOperandRef &b_,
                llvm::ArrayRef<mlir::Value> c) override;
  bool storeAccumulator(mlir::OpBuilder &b, mlir::Location loc,
                        const target::MmaAtom &atom,
                        llvm::ArrayRef<mlir::Value> regs, mlir::Value memref,
                        mlir::Value offset, int64_t stride) override;
  bool loadAccumulator(mlir::OpBuilder &b, mlir::Location loc,
                       const target::MmaAtom &atom, mlir::Value memref,
                       mlir::Value offset, int64_t stride,
                       llvm::SmallVectorImpl<mlir::Value> &regs) override;
  void emitWarpBarrier(mlir::OpBuilder &b, mlir::Location loc) override;
  /// With cooperative matrices the driver holds, beside the accumulators,
  /// the A and B matrices it loads and hoists (a 4 x 4 subgroup tile's
  /// 32-deep K step: 16 matrices x 4 registers) and the addresses and loop
  /// state: register staging takes only what is left (docs/backends/spirv.md).
  int64_t stagingRegisterReserve(
      const tessera::target::TargetDescription &tgt) const override;
  /// Copies store whole 16-byte pieces into shared tiles: tiles that only
  /// move such pieces become arrays of 4 x i32 (one OpStore per piece), the
  /// others are stored element by element as before.
  /// 16-byte pieces (widened to 4 x i32 words by the lowering) and vectors
  /// of types SPIR-V has; bf16 exists only as i16 scalars here.
  bool storesSharedVectors(mlir::Type elem, int64_t n) const override {
    return elem.getIntOrFloatBitWidth() * n == 128 || !elem.isBF16();
  }
};

} // namespace tessera::spirv

#endif
