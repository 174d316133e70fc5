//===- PassCommon.h - helpers shared by the core passes --------*- C++ -*-===//
#ifndef TESSERA_PASSES_PASSCOMMON_H
#define TESSERA_PASSES_PASSCOMMON_H

#include "tessera/Dialect/Tile/TileOps.h"
#include "tessera/Passes/Passes.h"
#include "tessera/layout/LinearLayout.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

namespace tessera::passes {

/// LinearLayout (register, lane, warp, block -> dim0..) to #tile.layout.
tile::LayoutAttr toLayoutAttr(mlir::MLIRContext *ctx,
                              const layout::LinearLayout &l);
/// #tile.layout to a LinearLayout whose output dims have `shape`.
layout::LinearLayout fromLayoutAttr(tile::LayoutAttr a,
                                    llvm::ArrayRef<int64_t> shape);

/// The tile type with another layout (null: none).
tile::TileType withLayout(tile::TileType t, tile::LayoutAttr l);

/// Bytes of one element of a tile (sub-byte types round up to 1).
int elementBytes(mlir::Type t);
/// Elements of padding after each row of a shared tile's innermost 2-D
/// tile (`tile.row_pad` on its alloc, set by tessera-swizzle-shared for
/// tiles whose matrix loads take a row stride), or 0.
int64_t sharedRowPad(mlir::Operation *alloc);
/// Bytes a shared tile takes, rows padded by `rowPad` elements.
int64_t sharedTileBytes(tile::TileType t, int64_t rowPad);
/// A tile's elements in bytes (no padding).
int64_t tileBytes(tile::TileType t);
/// Whether the integer or index value `v` is a multiple of `n` on every run,
/// as far as its defining arithmetic shows (constants, products with such a
/// factor, sums, differences and selects of such values, induction
/// variables of loops whose bounds and step are); false where unsure.
bool provablyMultipleOf(mlir::Value v, int64_t n);
/// Elements of `elemBytes` bytes in 16 bytes (at least 1): a TMA box's rows
/// start on 16-byte boundaries of the tensor's rows (the copy engine faults
/// on others, measured on the H200), so a box's innermost offset must be a
/// multiple of this.
int64_t boxAlignElements(int64_t elemBytes);
/// A shared tile tessera-pipeline-loops staged a fragment copy through
/// (Pipeline.cpp): its `tile.row_pad` widens a bulk copy's box.
inline constexpr llvm::StringLiteral kStagedFragmentAttr =
    "tile.staged_fragment";
/// "f16", "bf16", "f32", "f8e4m3", "i8", ... as in TargetDescription.
std::string dataTypeName(mlir::Type t);

/// Words per thread of the largest fragment past which tessera-widen-blocks
/// also doubles the threads (a 128x256 f32 accumulator over 256 threads is
/// 128), and of all fragments together that a kernel widened or deepened
/// (tessera-deepen-keys) stays under.
constexpr int64_t kMaxFragmentWordsPerThread = 128;
constexpr int64_t kMaxKernelWordsPerThread = 224;

/// Loads the target of a pass option, reporting a failure on `op`.
std::optional<target::TargetDescription>
loadTargetFor(mlir::Operation *op, const std::string &spec,
              llvm::StringRef passName);

/// A module pass driven by a `target=<chip or .toml path>` option: loads the
/// TargetDescription (reporting failure on the module) and hands it to
/// Derived::runWithTarget.
template <typename Derived>
struct TargetPass
    : mlir::PassWrapper<Derived, mlir::OperationPass<mlir::ModuleOp>> {
  using Base = mlir::PassWrapper<Derived, mlir::OperationPass<mlir::ModuleOp>>;
  TargetPass() = default;
  TargetPass(const TargetPass &o) : Base(o) {}

  typename Base::template Option<std::string> target{
      *this, "target", llvm::cl::desc("chip name or target .toml path")};

  void runOnOperation() final {
    auto t = loadTargetFor(this->getOperation(), target, this->getArgument());
    if (!t)
      return this->signalPassFailure();
    static_cast<Derived *>(this)->runWithTarget(*t);
  }
};

/// A new pass of type P reading `target` (the body of every
/// create<Name>Pass).
template <typename P>
std::unique_ptr<P> makeTargetPass(const std::string &target) {
  auto p = std::make_unique<P>();
  p->target = target;
  return p;
}

/// Bit i set: `v` depends on the block index i of `kernel` (values defined
/// outside the kernel depend on none; loop-carried cycles add nothing).
unsigned blockDeps(mlir::Value v, tile::KernelOp kernel,
                   llvm::DenseMap<mlir::Value, unsigned> &memo);

/// Whether the blocks of `kernel` can be paired along y into clusters
/// (Clusters.cpp): a gemm operand is copied from global memory inside the
/// kernel's one pipelined loop at offsets that depend on x but not y, and
/// the loop sits at the top of the kernel with bounds independent of y.
bool pairableBlocks(tile::KernelOp kernel);
/// Pairs the blocks (Clusters.cpp): rounds the grid's y size up to even,
/// guards writes to global memory by `by < gy`, records `tile.cluster = 2`
/// and `tile.cluster_rounded`.
void pairBlocks(tile::KernelOp kernel);

/// Gives the fragments of `kernel` layouts as tessera-infer-layouts does
/// (InferLayouts.cpp); `allowFma`: a gemm without an atom takes vector FMA.
mlir::LogicalResult inferKernelLayouts(tile::KernelOp kernel,
                                       const target::TargetDescription &target,
                                       bool allowFma, const AtomFilter &filter);

/// The bytes tessera-plan-shared would place the shared tiles of `kernel`
/// in, as they are now (PlanShared.cpp).
int64_t plannedSharedBytes(tile::KernelOp kernel,
                           const target::TargetDescription &target);
/// The same plus the scratch distribution will place after the tiles: the
/// largest stagingScratchBytes of an op for which no tile is dead (what
/// distribution checks against the budget, on a kernel with layouts).
int64_t plannedSharedBytesWithScratch(tile::KernelOp kernel,
                                      const target::TargetDescription &target);

/// Bytes of shared memory distribution stages `op` through (SharedScratch.cpp):
/// a tile.reduce whose source layout spreads the reduced dimension over
/// warps (a 32-bit partial per result element and warp group), a copy or
/// tile.convert_layout between fragments of different layouts (the
/// destination, row-major, in its element type); 0 for any other op.
/// Distribution reserves exactly this; plan-shared and pipeline-loops plan
/// with it.
int64_t stagingScratchBytes(mlir::Operation *op);
/// The scratch distribution will reserve after the tiles of `kernel`: the
/// largest stagingScratchBytes of an op that tessera-plan-shared gave no
/// `tile.scratch_offset` (a dead tile's bytes).
int64_t reservedScratchBytes(tile::KernelOp kernel);

/// The accumulators that distribution moves through shared memory to
/// reorder their registers (Distribute.cpp): those of gemms whose atom keeps
/// its registers in an order only the backend knows (`c_order = "opaque"`,
/// Vulkan's cooperative matrices), in the order of their first gemm, each
/// with its (last) gemm's atom. Each has a region of its own of
/// `bytesPerWarp` (one atom instance of the widest accumulator) per warp.
struct ReorderRegions {
  llvm::MapVector<mlir::Value, const target::MmaAtom *> accumulators;
  int64_t bytesPerWarp = 0;
  /// The bytes of all regions for `warps` warps.
  int64_t bytes(int64_t warps) const {
    return bytesPerWarp * warps * int64_t(accumulators.size());
  }
};
/// The regions of a kernel whose gemms have their atoms (`atom`).
ReorderRegions reorderRegionsOf(tile::KernelOp kernel,
                                const target::TargetDescription &target);

/// How a tile.load / tile.store inside a tile.parallel region indexes one
/// dimension of its tile: the region dimension whose induction variable it
/// is (>= 0), kUnitAccessDim for the constant 0 into a dimension of size 1
/// (a column vector [N, 1] read beside an [N, M] region: the dimension
/// carries no thread or register bits), or -1 for anything else.
constexpr int kUnitAccessDim = -2;
llvm::SmallVector<int> parallelAccessDims(mlir::Block &body,
                                          mlir::ValueRange indices,
                                          llvm::ArrayRef<int64_t> tileShape);

/// Why the program of `kernel` could tell how many threads run it, or empty
/// where it cannot. The tile dialect has no thread index: fragments are
/// spread over the threads by the compiler, and tile.parallel iterations
/// are independent. What exposes the count is
///   - a `local` tile (private to each thread: what a copy from a fragment
///     or a tile.parallel leaves in it depends on which thread held which
///     element);
///   - a fragment with a layout written by the program (its lane and warp
///     bases name the threads);
///   - an op of a dialect other than tile, arith, math, scf and ub inside
///     the kernel (gpu.thread_id, ...), which the passes do not interpret.
/// Passes that change a kernel's threads (tessera-widen-blocks where it
/// doubles them, tessera-split-threads) leave such kernels as written. Only
/// the order in which a reduction across threads combines its partials
/// changes with the threads (as it does with the layouts chosen).
std::string threadCountDependence(tile::KernelOp kernel);

/// The tile.kernel ops of the module.
llvm::SmallVector<tile::KernelOp> kernelsOf(mlir::ModuleOp m);

/// Blocks of `kernel` per multiprocessor as (estimated) registers allow:
/// fragments spread over the threads plus a few words of addresses,
/// indices and loop state per thread.
int64_t blocksByRegisters(tile::KernelOp kernel,
                          const target::TargetDescription &tgt);

} // namespace tessera::passes

#endif
