//===- UniformConditions.h - masks decided once per block -------*- C++ -*-===//
//
// A tile.parallel body often masks its elements with selects whose
// conditions compare index expressions affine in the region's induction
// variables: attention's `k0 + jj < seq` and `k0 + jj <= q0 + i`, a sliding
// window's bounds, the edge of a tile. Most blocks are entirely on one side
// of such a mask, yet every element evaluates the compares. Distribution
// versions the body instead: one test per block decides whether a condition
// holds (or fails) at every index of the region, and the body runs with the
// condition replaced by that constant where it does.
//
// A condition is decidable when it is built from
//   - arith.cmpi of two expressions, each an affine function of the region's
//     indices with constant coefficients plus values defined outside the
//     region (arith.addi / subi, arith.muli by a constant, constants; a
//     region index may be converted to another integer type first),
//   - arith.andi / ori / xori of decidable conditions,
//   - i1 values defined outside the region and constants.
// Over the region's index box [0, shape) an affine side takes its extremes at
// corners: with u the sum of its outside terms, side = u + off(i) with
// off(i) between constants minOff and maxOff. The test first checks at run
// time that u is small (|u| < 2^29, and u + minOff >= 0 for an unsigned
// compare), with the constant parts bounded by 2^27 at compile time, so no
// side wraps at any index, in any integer type of 32 bits or more, signed or
// unsigned; outside that range the test says "undecided" and the masked body
// runs. Then `L < R` holds everywhere iff uL + max(offL - offR) < uR and
// fails everywhere iff uL + min(offL - offR) >= uR (the difference's
// extremes are exact, per dim, so a condition such as `jj < jj + 1` decides
// too).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_PASSES_UNIFORMCONDITIONS_H
#define TESSERA_PASSES_UNIFORMCONDITIONS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tessera::passes {

class UniformConditions {
public:
  /// Analyzes the body of a region over [0, shape[d]) per induction variable
  /// (the block's arguments, in order).
  UniformConditions(mlir::Block &body, llvm::ArrayRef<int64_t> shape);

  /// The conditions of the body's selects and scf.ifs (at any depth) that
  /// depend on the region's indices and that a test per block decides, in
  /// program order, each once.
  llvm::ArrayRef<mlir::Value> roots() const { return rootList; }

  /// Emits at `b` (outside the region, where every value defined outside it
  /// is available) whether `cond` holds at every index of the region
  /// (first) and whether it fails at every index (second). Both false when
  /// undecided; never both true.
  std::pair<mlir::Value, mlir::Value>
  emit(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cond);

  /// An affine integer expression: sum coef[d] * iv[d] + cst + sum m * v over
  /// values v defined outside the region.
  struct Affine {
    llvm::SmallVector<int64_t, 4> coef;
    int64_t cst = 0;
    llvm::SmallVector<std::pair<mlir::Value, int64_t>, 2> terms;
  };

private:
  mlir::Block &body;
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<mlir::Value> rootList;
  llvm::DenseMap<mlir::Value, std::optional<Affine>> affineMemo;
  /// Per condition: decidable, and whether it depends on the indices.
  llvm::DenseMap<mlir::Value, std::optional<bool>> condMemo;
  llvm::DenseMap<mlir::Value, std::pair<mlir::Value, mlir::Value>> emitted;

  bool outside(mlir::Value v) const;
  std::optional<Affine> affineOf(mlir::Value v);
  /// nullopt: not decidable; else whether it depends on the indices.
  std::optional<bool> analyze(mlir::Value cond);
  /// The smallest and largest `off` of an affine expression over the box.
  std::pair<int64_t, int64_t> offRange(llvm::ArrayRef<int64_t> coef) const;
};

} // namespace tessera::passes

#endif
