//===- AccumulatorScaling.cpp - exact accumulator scalings out of loops ---===//

#include "AccumulatorScaling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace {

/// The scale of a marked multiply, or 0.
double scaleOf(Operation *op) {
  auto m = dyn_cast_or_null<arith::MulFOp>(op);
  if (!m)
    return 0;
  auto a = m->getAttrOfType<FloatAttr>(tessera::hip::kAccumulatorScaleAttr);
  return a ? a.getValueAsDouble() : 0;
}

/// Every register of `mem` (a static 1-D alloca) times `factor`, at `b`'s
/// point, with constant indices (so that LLVM keeps them in registers).
void scaleRegisters(OpBuilder &b, Location loc, Value mem, double factor) {
  auto mt = cast<MemRefType>(mem.getType());
  Value k = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(mt.getElementType(), factor));
  for (int64_t r = 0; r < mt.getDimSize(0); ++r) {
    Value i = arith::ConstantIndexOp::create(b, loc, r);
    Value v = memref::LoadOp::create(b, loc, mem, ValueRange{i});
    v = arith::MulFOp::create(b, loc, v, k);
    memref::StoreOp::create(b, loc, v, mem, ValueRange{i});
  }
}

/// Keeps `mem` scaled through `loop` when every access to it inside the loop
/// is a load feeding only a marked *0.25 or a store of a marked *4's result.
void hoistFrom(scf::ForOp loop, Value mem) {
  auto alloca = mem.getDefiningOp<memref::AllocaOp>();
  auto mt = cast<MemRefType>(mem.getType());
  if (!alloca || loop->isAncestor(alloca) || mt.getRank() != 1 ||
      !mt.hasStaticShape() || !isa<FloatType>(mt.getElementType()))
    return;
  SmallVector<memref::LoadOp> loads;
  SmallVector<memref::StoreOp> stores;
  for (Operation *user : mem.getUsers()) {
    if (!loop->isProperAncestor(user))
      continue;
    if (auto ld = dyn_cast<memref::LoadOp>(user)) {
      if (!ld->hasOneUse() || scaleOf(*ld->user_begin()) != 0.25)
        return;
      loads.push_back(ld);
    } else if (auto st = dyn_cast<memref::StoreOp>(user)) {
      if (st.getMemRef() != mem ||
          scaleOf(st.getValueToStore().getDefiningOp()) != 4.0)
        return;
      stores.push_back(st);
    } else {
      return;
    }
  }
  for (memref::LoadOp ld : loads) {
    Operation *m = *ld->user_begin();
    m->getResult(0).replaceAllUsesWith(ld.getResult());
    m->erase();
  }
  for (memref::StoreOp st : stores) {
    Operation *m = st.getValueToStore().getDefiningOp();
    st->setOperand(0, m->getOperand(0));
    if (m->use_empty())
      m->erase();
  }
  OpBuilder b(loop);
  scaleRegisters(b, loop.getLoc(), mem, 0.25);
  b.setInsertionPointAfter(loop);
  scaleRegisters(b, loop.getLoc(), mem, 4.0);
}

} // namespace

void tessera::hip::hoistAccumulatorScaling(Operation *root) {
  // Post-order: inner loops first.
  SmallVector<scf::ForOp> loops;
  root->walk([&](scf::ForOp f) { loops.push_back(f); });
  for (scf::ForOp loop : loops) {
    llvm::SetVector<Value> mems;
    loop.walk([&](arith::MulFOp m) {
      if (scaleOf(m) == 0.25)
        if (auto ld = m.getLhs().getDefiningOp<memref::LoadOp>())
          mems.insert(ld.getMemRef());
    });
    for (Value mem : mems)
      hoistFrom(loop, mem);
  }
  root->walk([](arith::MulFOp m) { m->removeAttr(kAccumulatorScaleAttr); });
}
