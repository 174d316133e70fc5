//===- Clusters.cpp - pairing GEMM blocks into thread-block clusters ------===//
//
// Two blocks with the same x index and y indices 2j, 2j + 1 of a GEMM-like
// grid read the same tiles of the operand whose copies depend on x alone
// (B of C = A B with C's columns along x). On a target whose blocks form
// clusters that one copy fills at once (`cluster_multicast = 2`), each block
// of such a pair can copy half of those tiles into both (distribution's
// multicast bulk copies): the pair reads that operand from L2 once.
// tessera-pipeline-loops decides (it knows the stages): it pairs the blocks
// of a kernel with one pipelined loop where the pipeline has a stage to
// spare, and a program forces it with `tile.cluster = 2` or forbids it with
// `tile.cluster = 1`. Pairing rounds the grid's y size up to even (the
// launch grid must be a whole number of clusters) and guards every write to
// global memory with `by < gy` (the original size): the block of the
// rounded-up row runs the loads its partner needs and writes nothing.
//
//===----------------------------------------------------------------------===//

#include "PassCommon.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::tile;

namespace tessera::passes {

bool pairableBlocks(KernelOp kernel) {
  constexpr unsigned X = 1, Y = 2;
  if (kernel.getGrid().size() < 2)
    return false;
  int64_t loops = 0;
  kernel.walk([&](PipelinedOp) { ++loops; });
  if (loops != 1)
    return false;
  llvm::DenseMap<Value, unsigned> memo;
  bool shared = false;
  kernel.walk([&](GemmOp g) {
    for (Value operand : {g.getA(), g.getB()})
      for (Operation *u : operand.getUsers()) {
        auto c = dyn_cast<CopyOp>(u);
        if (!c || c.getDst() != operand ||
            !isa<GlobalTensorType>(c.getSrc().getType()))
          continue;
        // Both blocks of a pair must run the same iterations of the loop.
        auto loop = dyn_cast<PipelinedOp>(c->getParentOp());
        if (!loop || loop->getBlock() != &kernel.getBodyBlock())
          continue;
        unsigned d = 0;
        for (Value o : c.getSrcOffsets())
          d |= blockDeps(o, kernel, memo);
        unsigned bounds = blockDeps(loop.getLowerBound(), kernel, memo) |
                          blockDeps(loop.getUpperBound(), kernel, memo) |
                          blockDeps(loop.getStep(), kernel, memo);
        shared |= (d & (X | Y)) == X && !(bounds & Y);
      }
  });
  return shared;
}

void pairBlocks(KernelOp kernel) {
  OpBuilder b(kernel);
  Location loc = kernel.getLoc();
  Value gy = kernel.getGrid()[1];
  Value two = arith::ConstantIndexOp::create(b, loc, 2);
  Value even = arith::MulIOp::create(
      b, loc, arith::CeilDivUIOp::create(b, loc, gy, two), two);
  kernel->setOperand(1, even);
  SmallVector<Operation *> writes;
  kernel.walk([&](Operation *op) {
    if (auto c = dyn_cast<CopyOp>(op);
        c && isa<GlobalTensorType>(c.getDst().getType()))
      writes.push_back(op);
    if (auto a = dyn_cast<AtomicOp>(op);
        a && isa<GlobalTensorType>(a.getDst().getType()))
      writes.push_back(op);
  });
  if (!writes.empty()) {
    b.setInsertionPointToStart(&kernel.getBodyBlock());
    Value real = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       kernel.getBlockIndices()[1], gy);
    for (Operation *op : writes) {
      b.setInsertionPoint(op);
      auto guard = scf::IfOp::create(b, op->getLoc(), real,
                                     /*withElseRegion=*/false);
      op->moveBefore(guard.thenBlock()->getTerminator());
    }
  }
  kernel->setAttr("tile.cluster", b.getI64IntegerAttr(2));
  kernel->setAttr("tile.cluster_rounded", b.getUnitAttr());
}

} // namespace tessera::passes
