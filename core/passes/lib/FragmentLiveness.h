//===- FragmentLiveness.h - fragments live at each op -----------*- C++ -*-===//
//
// Which fragment tiles hold a value that a later op reads, at every op of a
// kernel, and from that the registers per thread the kernel's fragments need
// at their peak. A fragment's registers are free between its last read and
// the next op that overwrites it whole, so a kernel whose fragments would not
// all fit at once may still fit: flash attention's scores are dead once the
// probabilities are computed from them, and the probabilities are dead once
// the second gemm has read them.
//
// Tiles have reference semantics; the analysis is a backward liveness over
// the kernel's structured control flow (loops iterate to a fixpoint and may
// run zero times; both arms of a branch and skipping it count). An op
// overwrites a fragment whole (ending the liveness of its earlier value) when
// it is a copy or layout conversion into it, a fill or clear, a gemm with
// `clear`, a reduce without `accumulate`, or a tile.parallel storing the
// tile unconditionally at the region's induction variables over its whole
// shape. Any other write keeps the older elements, so it reads them too.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_PASSES_FRAGMENTLIVENESS_H
#define TESSERA_PASSES_FRAGMENTLIVENESS_H

#include "tessera/Dialect/Tile/TileOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <string>

namespace tessera::passes {

/// 32-bit registers per thread a laid-out fragment tile takes (sub-32-bit
/// elements packed, at least a byte each); 0 for a tile that is not a
/// fragment or has no layout yet.
int64_t fragmentTileWords(tile::TileType t);

/// "128x64xf32 fragment": how diagnostics name a tile.
std::string describeTile(tile::TileType t);

class FragmentLiveness {
public:
  explicit FragmentLiveness(tile::KernelOp kernel);

  /// The fragments live while `op` runs (read or written by it, or holding
  /// a value read after it), each set in the order of their allocs. One set
  /// for most ops; two for an op that sweeps its tiles register by register
  /// (tile.parallel, copies, conversions, fills), before and after it: a
  /// tile it reads last frees its registers while the ones it writes fill.
  /// Ops inside a tile.parallel body are part of the parallel op; an op
  /// with regions holds what is live on entry or exit.
  llvm::SmallVector<llvm::SmallVector<mlir::Value>>
  liveAcross(mlir::Operation *op) const;

  /// The kernel's ops in program order (pre-order), the points the peak is
  /// taken over.
  llvm::ArrayRef<mlir::Operation *> points() const { return order; }

private:
  using TileSet = llvm::SmallDenseSet<mlir::Value, 16>;
  TileSet block(mlir::Block &b, const TileSet &liveOut);
  TileSet transfer(mlir::Operation &op, const TileSet &liveOut);

  llvm::DenseMap<mlir::Operation *, llvm::SmallVector<TileSet, 2>> across;
  llvm::DenseMap<mlir::Value, int64_t> allocIndex;
  llvm::SmallVector<mlir::Operation *> order;
};

/// The registers per thread a kernel's fragments need where the most of
/// them are live, and which they are.
struct RegisterPeak {
  int64_t words = 0;
  /// Where the peak is first reached (null: no fragments).
  mlir::Operation *at = nullptr;
  /// The fragments live there with their registers, in alloc order.
  llvm::SmallVector<std::pair<mlir::Value, int64_t>> live;
  /// Registers counted at `at` beyond fragments (see `extra`).
  int64_t extraWords = 0;
};

/// The peak of the fragments' registers over the kernel's ops. `extra`, if
/// given, adds registers live at an op beyond fragments (distribution's
/// register staging of pipelined copies). Fragments without a layout count
/// nothing.
RegisterPeak fragmentRegisterPeak(
    tile::KernelOp kernel,
    const std::function<int64_t(mlir::Operation *)> &extra = nullptr);

} // namespace tessera::passes

#endif
