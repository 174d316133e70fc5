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
//===----------------------------------------------------------------------===//

#include "PassCommon.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"

#include "llvm/ADT/DenseMap.h"

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
  }
};

} // namespace

std::unique_ptr<Pass> createRasterOrderPass(const std::string &target) {
  return makeTargetPass<RasterOrderPass>(target);
}
void registerRasterOrderPass() { PassRegistration<RasterOrderPass>(); }

} // namespace tessera::passes
