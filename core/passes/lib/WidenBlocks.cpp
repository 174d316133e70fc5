//===- WidenBlocks.cpp - tessera-widen-blocks -----------------------------===//
//
// Merges neighbouring blocks of a GEMM-like grid along x into one block
// with a tile twice as wide. Blocks (2i, y) and (2i + 1, y) of a kernel
// whose column offsets are `col = bx * T` compute columns [col, col + 2T)
// together: every tile whose extent follows x (the B operand, C, a column
// bias...) doubles along that dimension, the grid's x size is halved
// (rounded up; copies are masked at the tensor's edges) and, where the
// accumulator would need more than 128 registers per thread, the threads
// double too (a second warpgroup). Both halves then share one copy of the
// operand that does not follow x (A), and a warpgroup's MMA covers twice
// the columns per instruction: on the H100 a 128x128 tile with one
// warpgroup reads B from shared memory twice per K step (two m64n128
// instructions); 128x256 with two warpgroups reads it once per m64n256.
//
// The rewrite is exact, not a guess: it applies only where every use of the
// block index is `col = bx * T`, and `col` reaches the program only as
//   - the offset of a copy or atomic between a global tensor and a tile at
//     the tensor dimension the tile covers with extent T (so the merged
//     copy covers both blocks' elements), or
//   - `col + c` (c independent of x), or `col + j` with j an index of a
//     tile.parallel over such a tile dimension (the column's position in
//     the tensor, which is the same in the merged block);
// and the dimensions that follow x (found by joining the dimensions that
// gemms, copies between tiles, reductions and tile.parallel indices tie
// together) are never reduced over (a gemm's K, a tile.reduce's dim) nor
// indexed other than by a tile.parallel index. Anything else leaves the
// kernel as it is. Threads double only where the program cannot tell how
// many run it (threadCountDependence, PassCommon.h).
//
// When: a target with `widen_tile_n = N` (sm_90a: 256, the widest wgmma)
// widens kernels with a gemm whose C columns follow x, up to N columns and
// 256 threads, while the shared tiles fit the block's shared memory with
// those a pipelined loop copies into double-buffered (two stages; tiles
// copied once, such as attention's Q, once); then along y (C's rows follow by)
// up to `widen_tile_m` rows (sm_90a: 128, two warpgroups sharing the B tile).
// Either axis may follow either role: attention's grid x walks query rows
// (C's rows of both S = Q K^T and O += P V), and merges up to widen_tile_m
// rows, each K / V tile then loaded once for both halves. A
// program keeps its blocks with `tile.widen = 1` on the tile.kernel;
// TESSERA_WIDEN=0 turns the pass off (for A/B measurements). A widened
// kernel carries `tile.widened = [Fx, Fy]` (the blocks merged along x and
// y), visible in --print-ir-after-all; its launch grid and threads are what
// the metadata records.
//
//===----------------------------------------------------------------------===//

#include "PassCommon.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"

#include <cstdlib>

using namespace mlir;
using namespace tessera;
using namespace tessera::tile;

namespace tessera::passes {
namespace {

constexpr int64_t kMaxThreads = 256;

/// A dimension of a tile (an alloc's result) or an index of a tile.parallel
/// (its block argument, dim -1).
using DimKey = std::pair<void *, int64_t>;

/// The constant a value is, if it is one.
std::optional<int64_t> constantOf(Value v) {
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue();
  return std::nullopt;
}

/// The tile dimension a tensor dimension of a copy maps to, or -1 when the
/// tile does not cover it (a rank-reducing copy's leading dimensions).
int64_t tileDimOf(int64_t tensorDim, int64_t tensorRank, TileType tile,
                  bool transpose) {
  int64_t d = tensorDim - (tensorRank - tile.getRank());
  if (d < 0)
    return -1;
  if (transpose && tile.getRank() == 2)
    d = 1 - d;
  return d;
}

struct Widening {
  KernelOp kernel;
  /// The grid axis merged: 0 (x) or 1 (y).
  unsigned axis;
  llvm::EquivalenceClasses<DimKey> classes;
  /// Dimensions that must keep their extent (reduced over, indexed by other
  /// than a parallel index, a forced layout).
  llvm::DenseSet<DimKey> fixed;
  /// Where x enters a tile: (tile dim, the block's extent T there).
  llvm::SmallVector<std::pair<DimKey, int64_t>> seeds;
  /// Tensor-side copies and atomics whose offset at a tile dimension is a
  /// column value: (op, tile dim).
  llvm::DenseSet<std::pair<Operation *, int64_t>> seededAccesses;
  /// Parallel indices added to a column value.
  llvm::SmallVector<BlockArgument> positionIvs;
  /// col and col + c values.
  llvm::DenseSet<Value> columnValues;
  /// The muli ops producing col = bx * T.
  llvm::SmallVector<arith::MulIOp> columnOps;
  int64_t T = 0;
  /// The gemms' C rows (not columns) follow the axis.
  bool rows = false;
  /// For rows: the threads that give each warp group (a matrix atom's
  /// warps) at most one atom's rows of the merged 2T rows; 0 if none.
  int64_t rowThreads = 0;
  std::string why; ///< why the kernel cannot be widened (TESSERA_WIDEN=explain)

  /// TESSERA_WIDEN=xcols: x merges only where gemm columns follow it (as
  /// before row merges along x existed; for A/B measurements).
  bool xColumnsOnly = false;

  Widening(KernelOp k, unsigned axis) : kernel(k), axis(axis) {
    const char *env = std::getenv("TESSERA_WIDEN");
    xColumnsOnly = env && std::string(env) == "xcols";
  }
  unsigned bit() const { return 1u << axis; }

  bool fail(const Twine &w) {
    why = w.str();
    return false;
  }

  static DimKey tileKey(Value tile, int64_t d) {
    return {tile.getAsOpaquePointer(), d};
  }
  static DimKey ivKey(BlockArgument iv) {
    return {Value(iv).getAsOpaquePointer(), -1};
  }
  void join(DimKey a, DimKey b) { classes.unionSets(a, b); }
  void touch(DimKey a) { classes.insert(a); }

  /// The parallel index the value is; null otherwise.
  static BlockArgument ivOf(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      if (isa<ParallelOp>(arg.getOwner()->getParentOp()))
        return arg;
    return {};
  }

  static bool dependsOnIv(Value v) {
    llvm::SmallVector<Value> work{v};
    llvm::DenseSet<Value> seen;
    while (!work.empty()) {
      Value x = work.pop_back_val();
      if (!seen.insert(x).second)
        continue;
      if (auto arg = dyn_cast<BlockArgument>(x)) {
        if (isa<ParallelOp>(arg.getOwner()->getParentOp()))
          return true;
        continue;
      }
      if (Operation *d = x.getDefiningOp())
        for (Value o : d->getOperands())
          work.push_back(o);
    }
    return false;
  }

  /// Follows a column value (col, or col + c) to its uses.
  bool followColumn(Value col, llvm::DenseMap<Value, unsigned> &memo) {
    columnValues.insert(col);
    for (OpOperand &use : col.getUses()) {
      Operation *op = use.getOwner();
      if (auto c = dyn_cast<CopyOp>(op)) {
        bool srcSide = isa<GlobalTensorType>(c.getSrc().getType());
        auto offsets = srcSide ? c.getSrcOffsets() : c.getDstOffsets();
        Value tile = srcSide ? c.getDst() : c.getSrc();
        auto tt = dyn_cast<TileType>(tile.getType());
        auto tensor = dyn_cast<GlobalTensorType>(
            (srcSide ? c.getSrc() : c.getDst()).getType());
        if (!tt || !tensor)
          return fail("a column value indexes a copy without a tensor");
        int64_t count = 0, at = -1;
        for (auto [i, o] : llvm::enumerate(offsets))
          if (o == col)
            ++count, at = i;
        if (count != 1)
          return fail("a column value is not one tensor offset of a copy");
        int64_t d = tileDimOf(at, offsets.size(), tt, c.getTranspose());
        if (d < 0 || tt.getShape()[d] != T)
          return fail("a copy's column offset does not match its tile");
        seeds.push_back({tileKey(tile, d), T});
        seededAccesses.insert({op, d});
        continue;
      }
      if (auto a = dyn_cast<AtomicOp>(op)) {
        auto tt = cast<TileType>(a.getSrc().getType());
        int64_t count = 0, at = -1;
        for (auto [i, o] : llvm::enumerate(a.getOffsets()))
          if (o == col)
            ++count, at = i;
        if (count != 1 || use.get() != col)
          return fail("a column value is not one offset of an atomic");
        int64_t d = tileDimOf(at, a.getOffsets().size(), tt, false);
        if (d < 0 || tt.getShape()[d] != T)
          return fail("an atomic's column offset does not match its tile");
        seeds.push_back({tileKey(a.getSrc(), d), T});
        seededAccesses.insert({op, d});
        continue;
      }
      if (auto add = dyn_cast<arith::AddIOp>(op)) {
        Value other = add->getOperand(1 - use.getOperandNumber());
        if (other == col)
          return fail("col + col");
        if (BlockArgument iv = ivOf(other)) {
          // A column's position: col + j over the merged tile is the
          // position col_original + j_original of the original blocks.
          positionIvs.push_back(iv);
          continue;
        }
        if ((blockDeps(other, kernel, memo) & bit()) || dependsOnIv(other))
          return fail("a column value added to an x- or index-dependent "
                      "value");
        if (!followColumn(add.getResult(), memo))
          return false;
        continue;
      }
      return fail("a column value used by " +
                  op->getName().getStringRef().str());
    }
    return true;
  }

  /// Joins the dimensions the kernel's ops tie together.
  bool collectTies() {
    bool ok = true;
    kernel.walk([&](Operation *op) {
      if (!ok)
        return;
      if (auto g = dyn_cast<GemmOp>(op)) {
        Value A = g.getA(), B = g.getB(), C = g.getC();
        int64_t am = g.getTransposeA() ? 1 : 0, bn = g.getTransposeB() ? 0 : 1;
        join(tileKey(A, am), tileKey(C, 0));
        join(tileKey(B, bn), tileKey(C, 1));
        fixed.insert(tileKey(A, 1 - am));
        fixed.insert(tileKey(B, 1 - bn));
        touch(tileKey(A, 1 - am));
        touch(tileKey(B, 1 - bn));
      } else if (auto c = dyn_cast<CopyOp>(op)) {
        auto st = dyn_cast<TileType>(c.getSrc().getType());
        auto dt = dyn_cast<TileType>(c.getDst().getType());
        if (st && dt) {
          for (int64_t d = 0; d < st.getRank(); ++d) {
            int64_t e = c.getTranspose() && st.getRank() == 2 ? 1 - d : d;
            join(tileKey(c.getSrc(), d), tileKey(c.getDst(), e));
          }
        }
      } else if (auto cv = dyn_cast<ConvertLayoutOp>(op)) {
        auto st = cast<TileType>(cv.getSrc().getType());
        for (int64_t d = 0; d < st.getRank(); ++d)
          join(tileKey(cv.getSrc(), d), tileKey(cv.getDst(), d));
      } else if (auto r = dyn_cast<ReduceOp>(op)) {
        auto st = cast<TileType>(r.getSrc().getType());
        int64_t rd = r.getDim();
        for (int64_t d = 0, e = 0; d < st.getRank(); ++d) {
          if (d == rd) {
            fixed.insert(tileKey(r.getSrc(), d));
            touch(tileKey(r.getSrc(), d));
            continue;
          }
          join(tileKey(r.getSrc(), d), tileKey(r.getDst(), e++));
        }
      } else if (isa<LoadOp, StoreOp>(op)) {
        Value tile = isa<LoadOp>(op) ? cast<LoadOp>(op).getTile()
                                     : cast<StoreOp>(op).getTile();
        auto indices = isa<LoadOp>(op) ? cast<LoadOp>(op).getIndices()
                                       : cast<StoreOp>(op).getIndices();
        for (auto [d, idx] : llvm::enumerate(indices)) {
          auto arg = dyn_cast<BlockArgument>(idx);
          if (arg && isa<ParallelOp>(arg.getOwner()->getParentOp())) {
            join(tileKey(tile, d), ivKey(arg));
          } else {
            fixed.insert(tileKey(tile, d));
            touch(tileKey(tile, d));
          }
        }
      } else if (auto a = dyn_cast<AllocOp>(op)) {
        auto t = cast<TileType>(a.getType());
        for (int64_t d = 0; d < t.getRank(); ++d) {
          touch(tileKey(a.getResult(), d));
          if (t.getLayout())
            fixed.insert(tileKey(a.getResult(), d));
        }
      } else {
        // Any other op touching a tile must not care about its shape.
        for (Value o : op->getOperands())
          if (isa<TileType>(o.getType()) &&
              !isa<FillOp, ClearOp, AtomicOp>(op)) {
            ok = fail("a tile used by " + op->getName().getStringRef().str());
            return;
          }
      }
    });
    return ok;
  }

  /// Decides; on success `toWiden` holds the dimensions that double.
  bool analyze(const target::TargetDescription &tgt,
               llvm::SetVector<DimKey> &toWiden) {
    if (kernel.getGrid().size() <= axis)
      return fail("no grid dimension to merge along");
    BlockArgument bx = kernel.getBlockIndices()[axis];
    for (Operation *u : bx.getUsers()) {
      auto m = dyn_cast<arith::MulIOp>(u);
      if (!m)
        return fail("the block index is used by other than a multiply");
      Value other = m.getLhs() == bx ? m.getRhs() : m.getLhs();
      auto c = constantOf(other);
      if (!c || *c <= 0 || (T && *c != T))
        return fail("the block index times other than one constant");
      T = *c;
      columnOps.push_back(m);
    }
    if (columnOps.empty())
      return fail("the block index is unused");
    llvm::DenseMap<Value, unsigned> memo;
    for (arith::MulIOp m : columnOps)
      if (!followColumn(m.getResult(), memo))
        return false;
    if (seeds.empty())
      return fail("no copy follows the block index");
    if (!collectTies())
      return false;
    for (BlockArgument iv : positionIvs)
      touch(ivKey(iv));
    // The classes reached from the seeds (and from position indices).
    llvm::SetVector<DimKey> leaders;
    for (auto &s : seeds)
      leaders.insert(classes.getLeaderValue(s.first));
    for (BlockArgument iv : positionIvs)
      if (!leaders.contains(classes.getLeaderValue(ivKey(iv))))
        return fail("a column position indexed by an index over no "
                    "x-following tile dimension");
    for (DimKey leader : leaders)
      for (auto it = classes.findLeader(leader); it != classes.member_end();
           ++it)
        toWiden.insert(*it);
    // Every member keeps extent T and may change it; parallel indices in
    // the classes are used only as tile indices or column positions.
    for (DimKey k : toWiden) {
      if (fixed.contains(k))
        return fail("an x-following dimension is reduced over or indexed "
                    "by other than a parallel index");
      Value v = Value::getFromOpaquePointer(k.first);
      if (k.second >= 0) {
        auto t = cast<TileType>(v.getType());
        if (!v.getDefiningOp<AllocOp>())
          return fail("a tile not from tile.alloc");
        if (t.getShape()[k.second] != T)
          return fail("an x-following tile dimension is not T wide");
        continue;
      }
      auto iv = cast<BlockArgument>(v);
      auto par = cast<ParallelOp>(iv.getOwner()->getParentOp());
      if (par.getShape()[iv.getArgNumber()] != T)
        return fail("an x-following parallel index is not T long");
      for (Operation *u : iv.getUsers()) {
        if (isa<LoadOp>(u))
          continue;
        if (auto st = dyn_cast<StoreOp>(u); st && st.getValue() != iv)
          continue;
        if (auto add = dyn_cast<arith::AddIOp>(u)) {
          // Only as a column position (col + j), matched above.
          Value other = add.getLhs() == iv ? add.getRhs() : add.getLhs();
          if (columnValues.contains(other))
            continue;
        }
        return fail("an x-following parallel index used as a value");
      }
    }
    // Every copy between a tensor and a tile along a widened dimension
    // takes its offset there from a column value.
    bool ok = true;
    kernel.walk([&](Operation *op) {
      Value tile;
      if (auto c = dyn_cast<CopyOp>(op)) {
        if (isa<GlobalTensorType>(c.getSrc().getType()))
          tile = c.getDst();
        else if (isa<GlobalTensorType>(c.getDst().getType()))
          tile = c.getSrc();
      } else if (auto a = dyn_cast<AtomicOp>(op)) {
        tile = a.getSrc();
      }
      if (!tile)
        return;
      auto t = cast<TileType>(tile.getType());
      for (int64_t d = 0; d < t.getRank(); ++d)
        if (toWiden.contains(tileKey(tile, d)) &&
            !seededAccesses.contains({op, d}))
          ok = fail("a copy of an x-following tile at an offset that does "
                    "not follow x");
    });
    if (!ok)
      return false;
    // The axis's role: the gemms' C columns follow it (merging widens the
    // MMA, up to widen_tile_n) or their rows do (a second warpgroup or a
    // second row of atoms sharing the other operand, up to widen_tile_m:
    // the query rows of attention, the rows of a GEMM's y). Never both,
    // in one gemm or across gemms.
    bool rowsFollow = false, colsFollow = false;
    kernel.walk([&](GemmOp g) {
      bool r = toWiden.contains(tileKey(g.getC(), 0));
      bool c = toWiden.contains(tileKey(g.getC(), 1));
      ok = ok && !(r && c);
      rowsFollow |= r;
      colsFollow |= c;
    });
    if (!ok || (rowsFollow && colsFollow))
      return fail("a gemm's rows and columns both follow the block index");
    if (rowsFollow && axis == 0 && xColumnsOnly)
      return fail("gemm rows follow x (TESSERA_WIDEN=xcols)");
    // A one-dimensional grid of row blocks has no other axis to multiply
    // its blocks: halving them halves the parallelism (mlp_b2b at M = 16384:
    // 128 merged blocks for 132 SMs ran 0.213 ms against 0.190 for 256).
    if (rowsFollow && kernel.getGrid().size() == 1)
      return fail("a one-dimensional grid of row blocks keeps its blocks");
    int64_t limit = rowsFollow ? tgt.widenTileM : tgt.widenTileN;
    if (limit <= 0 || 2 * T > limit)
      return fail("the tile is as wide as the target's widest");
    // Worth it: the target has a matrix atom for the gemm's types (and, for
    // columns, one that wide: a gemm on vector FMA gains nothing from wider
    // blocks).
    bool atoms = false;
    kernel.walk([&](GemmOp g) {
      if (!toWiden.contains(tileKey(g.getC(), rowsFollow ? 0 : 1)))
        return;
      auto at = cast<TileType>(g.getA().getType());
      auto ct = cast<TileType>(g.getC().getType());
      for (const target::MmaAtom *atom :
           tgt.findMmaAtoms(dataTypeName(at.getElementType()),
                            dataTypeName(ct.getElementType())))
        if (atom->kind != target::MmaKind::Fma &&
            (rowsFollow || atom->n >= 2 * T) &&
            kernel.getThreads() % (atom->warps * tgt.warpSize) == 0) {
          atoms = true;
          if (rowsFollow && (2 * T) % atom->m == 0)
            rowThreads = std::max<int64_t>(
                rowThreads, (2 * T / atom->m) * atom->warps * tgt.warpSize);
        }
    });
    rows = rowsFollow;
    if (!atoms)
      return fail("no matrix-atom gemm follows the block index");
    return true;
  }
};

/// Bytes of `t` with dimension `d` of the widened set doubled.
int64_t widenedBytes(Value tile, const llvm::SetVector<DimKey> &toWiden) {
  auto t = cast<TileType>(tile.getType());
  int64_t n = 1;
  for (int64_t d = 0; d < t.getRank(); ++d)
    n *= t.getShape()[d] *
         (toWiden.contains(Widening::tileKey(tile, d)) ? 2 : 1);
  return n * elementBytes(t.getElementType());
}

/// Widens `kernel` by two along x if it can and should; returns whether it
/// did.
bool widenOnce(KernelOp kernel, const target::TargetDescription &tgt,
               unsigned axis, bool explain) {
  Widening w(kernel, axis);
  llvm::SetVector<DimKey> toWiden;
  if (!w.analyze(tgt, toWiden)) {
    if (explain)
      kernel.emitRemark() << "blocks not merged along "
                          << "xy"[axis] << ": " << w.why;
    return false;
  }
  // Threads: double where a fragment would pass the per-thread words.
  int64_t threads = kernel.getThreads();
  auto words = [](int64_t bytes, int64_t n) {
    return (bytes + 4 * n - 1) / (4 * n);
  };
  // Fragment words per thread with `n` threads: a vector along a gemm's C
  // rows (a softmax's row max and sum) follows the accumulator's rows, of
  // which a thread holds 2 per 64 rows of its warpgroup (4 * rows / n);
  // any other vector is counted as a quarter of its elements, as an
  // accumulator layout replicates a column vector (each thread of a wgmma
  // accumulator holds a quarter of its columns).
  auto &wClasses = w.classes;
  llvm::DenseSet<DimKey> rowLeaders;
  kernel.walk([&](GemmOp g) {
    DimKey k = Widening::tileKey(g.getC(), 0);
    if (wClasses.contains(k))
      rowLeaders.insert(wClasses.getLeaderValue(k));
  });
  auto fragmentWords = [&](int64_t n, int64_t &largest) {
    int64_t total = 0;
    largest = 0;
    kernel.walk([&](AllocOp a) {
      auto t = cast<TileType>(a.getType());
      if (!t.isFragment())
        return;
      int64_t bytes = widenedBytes(a.getResult(), toWiden);
      int64_t w = words(bytes, n);
      int64_t elems = bytes / elementBytes(t.getElementType());
      DimKey k = Widening::tileKey(a.getResult(), 0);
      if (t.getRank() == 1 && wClasses.contains(k) &&
          rowLeaders.contains(wClasses.getLeaderValue(k)))
        w = std::max(w, (4 * elems + n - 1) / n);
      else if (t.getRank() == 1)
        w = std::max(w, elems / 4);
      total += w;
      largest = std::max(largest, w);
    });
    return total;
  };
  // Shared bytes with the tiles a pipelined loop copies into counted twice
  // (the two stages a pipeline needs at least), the others once.
  int64_t sharedBytes = 0;
  kernel.walk([&](AllocOp a) {
    if (!cast<TileType>(a.getType()).isShared())
      return;
    bool staged = llvm::any_of(a->getUsers(), [](Operation *u) {
      auto c = dyn_cast<CopyOp>(u);
      return c && isa<GlobalTensorType>(c.getSrc().getType()) &&
             u->getParentOfType<PipelinedOp>();
    });
    sharedBytes += widenedBytes(a.getResult(), toWiden) * (staged ? 2 : 1);
  });
  int64_t largest = 0;
  fragmentWords(threads, largest);
  int64_t newThreads =
      largest > kMaxFragmentWordsPerThread ? 2 * threads : threads;
  // Merged rows go to warp groups of their own (a second warpgroup sharing
  // the other operand's tile), not to more rows per warp group: one
  // warpgroup walking 128 rows of a back-to-back GEMM ran 1.67x slower on
  // the H100 than two blocks of 64.
  if (w.rows && w.rowThreads > newThreads)
    newThreads = std::min(w.rowThreads, 2 * threads);
  std::string over;
  std::string observes =
      newThreads > threads ? threadCountDependence(kernel) : "";
  if (newThreads > kMaxThreads || newThreads > tgt.maxThreadsPerBlock)
    over = "the merged block would need more threads than allowed";
  else if (!observes.empty())
    over = "the merged block would need more threads, and the program "
           "could tell: " +
           observes;
  else if (fragmentWords(newThreads, largest) > kMaxKernelWordsPerThread)
    over = "the merged block's fragments would need too many registers";
  else if (sharedBytes > tgt.sharedMemoryPerBlockOptin)
    over = "the merged block's shared tiles, those a pipelined loop copies "
           "into double-buffered, would not fit the shared memory";
  if (!over.empty()) {
    if (explain)
      kernel.emitRemark() << "blocks not merged along "
                          << "xy"[axis] << ": " << over;
    return false;
  }

  // The rewrite.
  MLIRContext *ctx = kernel.getContext();
  for (DimKey k : toWiden) {
    Value v = Value::getFromOpaquePointer(k.first);
    if (k.second < 0) {
      auto iv = cast<BlockArgument>(v);
      auto par = cast<ParallelOp>(iv.getOwner()->getParentOp());
      SmallVector<int64_t> shape(par.getShape());
      shape[iv.getArgNumber()] *= 2;
      par.setShape(shape);
    }
  }
  llvm::DenseMap<Value, SmallVector<int64_t>> shapes;
  for (DimKey k : toWiden) {
    if (k.second < 0)
      continue;
    Value v = Value::getFromOpaquePointer(k.first);
    auto t = cast<TileType>(v.getType());
    auto [it, fresh] = shapes.try_emplace(v);
    if (fresh)
      it->second.assign(t.getShape().begin(), t.getShape().end());
    it->second[k.second] *= 2;
  }
  for (auto &[v, shape] : shapes) {
    auto t = cast<TileType>(v.getType());
    v.setType(TileType::get(ctx, shape, t.getElementType(), t.getMemorySpace(),
                            t.getLayout()));
  }
  OpBuilder b(ctx);
  for (arith::MulIOp m : w.columnOps) {
    b.setInsertionPoint(m);
    Value twoT = arith::ConstantIndexOp::create(b, m.getLoc(), 2 * w.T);
    BlockArgument bx = kernel.getBlockIndices()[axis];
    m->setOperands({bx, twoT});
  }
  b.setInsertionPoint(kernel);
  Value two = arith::ConstantIndexOp::create(b, kernel.getLoc(), 2);
  Value gx = arith::CeilDivUIOp::create(b, kernel.getLoc(),
                                        kernel.getGrid()[axis], two);
  kernel->setOperand(axis, gx);
  kernel.setThreads(newThreads);
  SmallVector<int64_t> factors = {1, 1};
  if (auto a = kernel->getAttrOfType<DenseI64ArrayAttr>("tile.widened"))
    factors.assign(a.asArrayRef().begin(), a.asArrayRef().end());
  factors[axis] *= 2;
  kernel->setAttr("tile.widened", b.getDenseI64ArrayAttr(factors));
  return true;
}

struct WidenBlocksPass : TargetPass<WidenBlocksPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(WidenBlocksPass)
  WidenBlocksPass() = default;
  WidenBlocksPass(const WidenBlocksPass &o) : TargetPass(o) {}
  StringRef getName() const override { return "TesseraWidenBlocks"; }
  StringRef getArgument() const override { return "tessera-widen-blocks"; }
  StringRef getDescription() const override {
    return "Merge neighbouring GEMM blocks along x into one block with a "
           "tile twice as wide";
  }
  void runWithTarget(const target::TargetDescription &t) {
    // TESSERA_WIDEN=explain: a remark on each kernel says why its blocks
    // were not merged (further) along each axis.
    const char *env = std::getenv("TESSERA_WIDEN");
    bool explain = env && std::string(env) == "explain";
    if ((t.widenTileN <= 0 && t.widenTileM <= 0) ||
        (env && std::string(env) == "0"))
      return;
    for (KernelOp kernel : kernelsOf(getOperation())) {
      if (auto a = kernel->getAttrOfType<IntegerAttr>("tile.widen")) {
        if (a.getInt() < 1) {
          kernel.emitOpError("tile.widen must be at least 1, got ")
              << a.getInt();
          return signalPassFailure();
        }
        if (a.getInt() == 1)
          continue;
      }
      // Columns first (a wider MMA per instruction), then rows (a second
      // warpgroup sharing the B tile).
      for (unsigned axis : {0u, 1u})
        while (widenOnce(kernel, t, axis, explain)) {
        }
    }
  }
};

} // namespace

std::unique_ptr<Pass> createWidenBlocksPass(const std::string &target) {
  return makeTargetPass<WidenBlocksPass>(target);
}
void registerWidenBlocksPass() { PassRegistration<WidenBlocksPass>(); }

} // namespace tessera::passes
