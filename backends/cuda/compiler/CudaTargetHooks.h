//===- CudaTargetHooks.h - NVIDIA's part of distribution --------*- C++ -*-===//
//
// The TargetHooks of the cuda backend: mma.sync atoms as inline PTX,
// ldmatrix for 16-bit operands in shared memory, cp.async for async copies
// and their groups. Barriers and shuffles keep the portable gpu-dialect
// defaults (NVVM lowers them to bar.sync and shfl.sync).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_BACKENDS_CUDA_CUDATARGETHOOKS_H
#define TESSERA_BACKENDS_CUDA_CUDATARGETHOOKS_H

#include "tessera/plugin/target_hooks.h"

namespace tessera::cuda {

class CudaTargetHooks final : public TargetHooks {
public:
  bool canEmitAtom(const target::MmaAtom &atom) const override;
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
};

} // namespace tessera::cuda

#endif
