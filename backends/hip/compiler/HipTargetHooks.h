//===- HipTargetHooks.h - AMD's part of distribution ------------*- C++ -*-===//
//
// The TargetHooks of the hip backend: MFMA atoms on CDNA (gfx942, gfx950)
// and WMMA atoms on RDNA (gfx1100, gfx1201) as ROCDL intrinsics. The lane's
// operand registers arrive in the order of the atom's register layouts,
// which for the atoms accepted here is the order of the intrinsics' vector
// elements; canEmitAtom checks the description's layouts are exactly those
// (a TOML naming another layout for an atom gets no atom rather than wrong
// results). Operands whose K run lies along the stored rows of an LDS tile
// are read as vectors (ds_read_b64/b128). Copies load global tensors with
// buffer loads (BufferLoads.h), which read 0 past the tensor's extent instead
// of branching at its edges. Everything else keeps the portable defaults:
// gpu.barrier, gpu.shuffle (wave64 on CDNA, wave32 on RDNA, from the
// description), and no asynchronous copies (the core then copies
// synchronously; LDS double buffering comes from its pipelining of shared
// tiles).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_BACKENDS_HIP_HIPTARGETHOOKS_H
#define TESSERA_BACKENDS_HIP_HIPTARGETHOOKS_H

#include "tessera/plugin/target_hooks.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tessera::hip {

/// The matrix-core generation of a chip.
enum class MatrixCores {
  None,
  Cdna3, ///< gfx940..gfx942: MFMA, fp8 in the FNUZ encodings
  Cdna4, ///< gfx950: MFMA, fp8 in the OCP encodings
  Rdna3, ///< gfx11: WMMA, A/B copied in both half-waves
  Rdna4, ///< gfx12: WMMA, A/B split over the half-waves
};

MatrixCores matrixCoresOf(llvm::StringRef chip);

class HipTargetHooks final : public TargetHooks {
public:
  explicit HipTargetHooks(llvm::StringRef chip);
  bool canEmitAtom(const target::MmaAtom &atom) const override;
  llvm::SmallVector<mlir::Value>
  emitMma(mlir::OpBuilder &b, mlir::Location loc, const target::MmaAtom &atom,
          llvm::ArrayRef<mlir::Value> a, llvm::ArrayRef<mlir::Value> b_,
          llvm::ArrayRef<mlir::Value> c) override;
  void beginMmaSequence(mlir::OpBuilder &b, mlir::Location loc,
                        const target::MmaAtom &atom,
                        llvm::SmallVectorImpl<mlir::Value> &acc) override;
  void endMmaSequence(mlir::OpBuilder &b, mlir::Location loc,
                      const target::MmaAtom &atom,
                      llvm::SmallVectorImpl<mlir::Value> &acc) override;
  bool loadMmaOperand(mlir::OpBuilder &b, mlir::Location loc,
                      const target::MmaAtom &atom, MmaOperandKind which,
                      const SharedMatrix &m, bool transposed, mlir::Value row0,
                      mlir::Value col0, mlir::Type elemType,
                      llvm::SmallVectorImpl<mlir::Value> &out) override;
  /// A buffer resource from the copy's first element to the tensor's end
  /// (BufferLoads.h); the kernel stops where the copy reaches further than
  /// 32-bit offsets do.
  bool beginGlobalLoads(mlir::OpBuilder &b, mlir::Location loc,
                        GlobalTensorRef &t) override;
  /// A raw buffer load whose offset is out of range where `valid` is false.
  mlir::Value loadGlobal(mlir::OpBuilder &b, mlir::Location loc,
                         const GlobalTensorRef &t, mlir::Value index,
                         mlir::Type elem, int64_t n,
                         mlir::Value valid) override;

private:
  static void scaleAll(mlir::OpBuilder &b, mlir::Location loc,
                       llvm::SmallVectorImpl<mlir::Value> &acc, double factor);

  MatrixCores cores;
  /// The chip's buffer resource flags word; none: no buffer loads.
  std::optional<uint32_t> bufferFlags;
};

} // namespace tessera::hip

#endif
