//===- RasterOrder.cpp - tessera-raster-order -----------------------------===//
//
// Chooses the order in which a kernel's blocks walk a two-dimensional grid.
// Blocks are independent, so any bijection of block indices is legal; the
// order decides which operand tiles blocks running at the same time share in
// the L2 cache. Hardware starts blocks in linear order (x fastest): a GEMM
// grid whose rows are wide walks every column panel of B for each few row
// panels of A, and a wave of blocks reads far more distinct data than it
// needs. Grouped order walks `G` block rows at a time down each column
// before moving right, so a wave covers a squarer patch of C.
//
// The pass records `tile.raster = G` on a tile.kernel when it sees a gemm
// whose one operand is copied from global memory at offsets depending on the
// x block index but not y, and whose other operand at offsets depending on y
// but not x (each operand then is reused across the other grid dimension).
// A program may write `tile.raster = N` itself (`attributes {tile.raster =
// 8}`, or TileLang's T.use_swizzle(N)); `tile.raster = 1` keeps linear
// order. Distribution lowers the attribute to a few integer operations on the
// block indices at the kernel's start (docs/compiler.md).
//
// Longest blocks first: where the trip count of a loop of the kernel grows
// with one block index (causal attention's key loop ends at the query
// block's diagonal) and no other index changes it, blocks of unequal work
// start in the hardware's linear order, and the last to start may be the
// longest: the machine idles while they finish. The pass records
// `tile.longest_first = [d, mode]`: distribution walks index d from its last
// value down (mode 1, the default), and with mode 2 also makes it the
// slowest index of the linear order, so every longer block starts before
// any shorter one (the LPT rule). TESSERA_LONGEST_FIRST=0 / 1 / 2 chooses
// (for A/B measurements); a program's own `tile.longest_first` stays.
// Measured on an H200 (2026-11-27, docs/benchmarks.md, the q128 flash
// program, B4 H16 D128): mode 1 took 2-5% off causal and non-causal S
// 1024-8192; mode 2 took 7% off causal S 1024 but cost non-causal S 8192
// 17% (a wave of blocks then reads as many heads' K and V as it has blocks).
//
//===----------------------------------------------------------------------===//

#include "PassCommon.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"

#include "llvm/ADT/DenseMap.h"

#include <cstdlib>

using namespace mlir;
using namespace tessera;
using namespace tessera::tile;

namespace tessera::passes {
namespace {

/// Block rows walked together. Measured on the H100 (docs/benchmarks.md,
/// 2026-11-25): groups of 1, 4, 8, 16 and 32 rows for 128x128 tiles (two
/// blocks per SM) and 128x256 tiles (one) at 4096 and 8192; 4 was within 1%
/// of the best in three of the four and 4% in the fourth, 8 was 10% behind
/// linear order for 128x128 tiles at 4096.
constexpr int64_t kDefaultGroup = 4;

/// Block indices the global offsets of the copies filling `tile` depend on;
/// nullopt when no copy from global memory fills it.
std::optional<unsigned> operandDeps(Value tile, KernelOp kernel,
                                    llvm::DenseMap<Value, unsigned> &memo) {
  std::optional<unsigned> deps;
  for (Operation *u : tile.getUsers()) {
    auto c = dyn_cast<CopyOp>(u);
    if (!c || c.getDst() != tile ||
        !isa<GlobalTensorType>(c.getSrc().getType()))
      continue;
    unsigned d = 0;
    for (Value o : c.getSrcOffsets())
      d |= blockDeps(o, kernel, memo);
    deps = deps.value_or(0) | d;
  }
  return deps;
}

/// How `v` changes as block index `arg` grows: not at all, never down,
/// never up, or unknown.
enum class Trend { Same, Up, Down, Unknown };

Trend flip(Trend t) {
  return t == Trend::Up ? Trend::Down : t == Trend::Down ? Trend::Up : t;
}

/// The trend of a sum or a min / max / select of two trends.
Trend join(Trend a, Trend b) {
  if (a == Trend::Unknown || b == Trend::Unknown)
    return Trend::Unknown;
  if (a == Trend::Same)
    return b;
  if (b == Trend::Same || a == b)
    return a;
  return Trend::Unknown;
}

Trend trendOf(Value v, BlockArgument arg, KernelOp kernel,
              llvm::DenseMap<Value, unsigned> &memo, int depth = 0) {
  if (v == arg)
    return Trend::Up;
  if (!(blockDeps(v, kernel, memo) & (1u << arg.getArgNumber())))
    return Trend::Same;
  Operation *d = v.getDefiningOp();
  if (!d || depth > 16)
    return Trend::Unknown;
  auto of = [&](Value x) { return trendOf(x, arg, kernel, memo, depth + 1); };
  auto positive = [](Value x) {
    llvm::APInt c;
    return matchPattern(x, m_ConstantInt(&c)) && c.isStrictlyPositive();
  };
  if (isa<arith::AddIOp>(d))
    return join(of(d->getOperand(0)), of(d->getOperand(1)));
  if (isa<arith::SubIOp>(d))
    return join(of(d->getOperand(0)), flip(of(d->getOperand(1))));
  if (isa<arith::MulIOp>(d)) {
    if (positive(d->getOperand(1)))
      return of(d->getOperand(0));
    if (positive(d->getOperand(0)))
      return of(d->getOperand(1));
    return Trend::Unknown;
  }
  if (isa<arith::CeilDivUIOp, arith::DivUIOp>(d))
    return positive(d->getOperand(1)) ? of(d->getOperand(0)) : Trend::Unknown;
  if (isa<arith::MinUIOp, arith::MaxUIOp, arith::MinSIOp, arith::MaxSIOp>(d))
    return join(of(d->getOperand(0)), of(d->getOperand(1)));
  if (auto sel = dyn_cast<arith::SelectOp>(d))
    return of(sel.getCondition()) == Trend::Same
               ? join(of(sel.getTrueValue()), of(sel.getFalseValue()))
               : Trend::Unknown;
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp>(d))
    return of(d->getOperand(0));
  return Trend::Unknown;
}

/// The block index whose growth makes a loop of `kernel` run longer while
/// no other index changes any loop's trip count, or -1.
int64_t longerWith(KernelOp kernel) {
  llvm::DenseMap<Value, unsigned> memo;
  int64_t found = -1;
  bool other = false;
  auto loop = [&](Value lb, Value ub, Value step) {
    for (BlockArgument arg : kernel.getBlockIndices()) {
      Trend t = join(trendOf(ub, arg, kernel, memo),
                     flip(trendOf(lb, arg, kernel, memo)));
      if (trendOf(step, arg, kernel, memo) != Trend::Same)
        t = Trend::Unknown;
      if (t == Trend::Same)
        continue;
      if (t == Trend::Up && (found < 0 || found == arg.getArgNumber()))
        found = arg.getArgNumber();
      else
        other = true;
    }
  };
  kernel.walk([&](PipelinedOp p) {
    loop(p.getLowerBound(), p.getUpperBound(), p.getStep());
  });
  kernel.walk([&](scf::ForOp f) {
    loop(f.getLowerBound(), f.getUpperBound(), f.getStep());
  });
  return other ? -1 : found;
}

struct RasterOrderPass : TargetPass<RasterOrderPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RasterOrderPass)
  RasterOrderPass() = default;
  RasterOrderPass(const RasterOrderPass &o) : TargetPass(o) {}
  StringRef getName() const override { return "TesseraRasterOrder"; }
  StringRef getArgument() const override { return "tessera-raster-order"; }
  StringRef getDescription() const override {
    return "Choose a grouped block order for grids whose blocks share GEMM "
           "operand panels";
  }

  void runWithTarget(const target::TargetDescription &) {
    Builder b(&getContext());
    const char *lf = std::getenv("TESSERA_LONGEST_FIRST");
    int64_t lfMode = lf && std::string(lf) == "0"   ? 0
                     : lf && std::string(lf) == "2" ? 2
                                                    : 1;
    for (KernelOp kernel : kernelsOf(getOperation())) {
      if (auto a = kernel->getAttrOfType<IntegerAttr>("tile.raster")) {
        if (a.getInt() < 1) {
          kernel.emitOpError("tile.raster must be at least 1, got ")
              << a.getInt();
          return signalPassFailure();
        }
        continue;
      }
      if (kernel.getGrid().size() < 2)
        continue;
      llvm::DenseMap<Value, unsigned> memo;
      constexpr unsigned X = 1, Y = 2;
      bool xOnly = false, yOnly = false;
      kernel.walk([&](GemmOp g) {
        for (Value operand : {g.getA(), g.getB()}) {
          auto d = operandDeps(operand, kernel, memo);
          if (!d)
            continue;
          unsigned xy = *d & (X | Y);
          xOnly |= xy == X;
          yOnly |= xy == Y;
        }
      });
      if (xOnly && yOnly)
        kernel->setAttr("tile.raster", b.getI64IntegerAttr(kDefaultGroup));
    }
    for (KernelOp kernel : kernelsOf(getOperation())) {
      if (auto a =
              kernel->getAttrOfType<DenseI64ArrayAttr>("tile.longest_first")) {
        if (a.size() != 2 || a[0] < 0 ||
            a[0] >= int64_t(kernel.getGrid().size()) || a[1] < 0 || a[1] > 2) {
          kernel.emitOpError("tile.longest_first must be [index, mode] with a "
                             "block index of the grid and a mode of 0, 1 or 2");
          return signalPassFailure();
        }
      } else if (lfMode && !kernel.getGrid().empty() &&
                 !kernel->hasAttr("tile.raster") &&
                 !kernel->hasAttr("tile.cluster")) {
        if (int64_t d = longerWith(kernel); d >= 0)
          kernel->setAttr("tile.longest_first",
                          b.getDenseI64ArrayAttr({d, lfMode}));
      }
    }
  }
};

} // namespace

std::unique_ptr<Pass> createRasterOrderPass(const std::string &target) {
  return makeTargetPass<RasterOrderPass>(target);
}
void registerRasterOrderPass() { PassRegistration<RasterOrderPass>(); }

} // namespace tessera::passes
