//===- CudaTargetHooks.h - NVIDIA's part of distribution --------*- C++ -*-===//
//
// The TargetHooks of the cuda backend: mma.sync atoms as inline PTX,
// ldmatrix for 16-bit operands in shared memory, cp.async for async copies
// and their groups; on sm_90a wgmma atoms with shared operands read through
// matrix descriptors built from the tile's swizzle (and A from registers),
// fenced per tile.gemm. Shuffles keep the portable gpu-dialect default;
// barriers on sm_90a first fence generic-proxy shared-memory writes for the
// async proxy (wgmma reads shared memory through it).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_BACKENDS_CUDA_CUDATARGETHOOKS_H
#define TESSERA_BACKENDS_CUDA_CUDATARGETHOOKS_H

#include "tessera/plugin/target_hooks.h"

namespace tessera::cuda {

class CudaTargetHooks final : public TargetHooks {
public:
  /// `wgmma`: the chip has warpgroup MMA (sm_90a).
  explicit CudaTargetHooks(bool wgmma) : wgmma(wgmma) {}
  bool canEmitAtom(const target::MmaAtom &atom) const override;
  bool canEmitAtomFor(const target::MmaAtom &atom,
                      const target::MmaUse &use) const override;
  llvm::SmallVector<mlir::Value>
  emitMma(mlir::OpBuilder &b, mlir::Location loc, const target::MmaAtom &atom,
          llvm::ArrayRef<mlir::Value> a, llvm::ArrayRef<mlir::Value> b_,
          llvm::ArrayRef<mlir::Value> c) override;
  bool loadMmaOperand(mlir::OpBuilder &b, mlir::Location loc,
                      const target::MmaAtom &atom, MmaOperandKind which,
                      const SharedMatrix &m, bool transposed, mlir::Value row0,
                      mlir::Value col0, mlir::Type elemType,
                      llvm::SmallVectorImpl<mlir::Value> &out) override;
  bool emitAsyncCopy(mlir::OpBuilder &b, mlir::Location loc, mlir::Value shared,
                     mlir::Value global, int bytes, mlir::Value valid) override;
  void emitCommitGroup(mlir::OpBuilder &b, mlir::Location loc) override;
  void emitWaitGroup(mlir::OpBuilder &b, mlir::Location loc,
                     int64_t pending) override;
  llvm::SmallVector<mlir::Value>
  emitMmaShared(mlir::OpBuilder &b, mlir::Location loc,
                const target::MmaAtom &atom, const MmaOperandRef &a,
                const MmaOperandRef &b_,
                llvm::ArrayRef<mlir::Value> c) override;
  void beginMmaSequence(mlir::OpBuilder &b, mlir::Location loc,
                        const target::MmaAtom &atom,
                        llvm::SmallVectorImpl<mlir::Value> &acc) override;
  void endMmaSequence(mlir::OpBuilder &b, mlir::Location loc,
                      const target::MmaAtom &atom,
                      llvm::SmallVectorImpl<mlir::Value> &acc) override;
  void emitBarrier(mlir::OpBuilder &b, mlir::Location loc) override;
  bool deferMmaWait(mlir::OpBuilder &b, mlir::Location loc,
                    const target::MmaAtom &atom) override;
  void drainMma(mlir::OpBuilder &b, mlir::Location loc,
                const target::MmaAtom &atom,
                llvm::SmallVectorImpl<mlir::Value> &acc) override;

private:
  bool wgmma;
};

} // namespace tessera::cuda

#endif
