//===- MmaOverlap.cpp - a loop's last gemm beside the next iteration -----===//
//
// A pipelined loop whose body runs two gemms on asynchronous MMA atoms
// (`async = true`: wgmma) with work between them (attention: S = Q K^T,
// the softmax on S, O += P V) keeps the matrix units idle while that work
// runs, unless another block fills them. tessera-pipeline-loops then issues
// the last gemm of iteration i right after the first gemm of iteration i+1:
//
// clang-format off
//   for i:  wait stage i                for i:  wait stage i
//           G1(i)                               G1(i)
//           X(i)             becomes            if (i > lb) G2(i-1)  [stage (i-1) % S]
//           G2(i)                               X(i)
//           refill                              refill
//                                       if (lb < ub) G2(last)        [stage last % S]
// clang-format on
//
// so that X(i) (the softmax) runs while G2(i-1) computes: distribution
// waits for an asynchronous gemm (`tile.mma_async`) only before the first op
// that touches its accumulator or operands (FlashAttention-3's
// intra-warpgroup pipelining). The rewrite keeps the program's meaning: G2
// moves only past ops that touch none of its tiles -- the loop's pipelined
// copies (which fill another stage than the one G2 reads), stage waits and
// G1 -- and reads the stage its iteration filled. The refill of iteration i
// + S - 1 overwrites stage (i - 1) % S, which G2(i - 1) reads, so it waits
// for G2(i - 1); with S = 2 that leaves the copies no time to land, hence
// three stages at least (the pass deepens a loop of two to three where
// three keep as many blocks per multiprocessor).
//
// When: by default where the block is alone on its multiprocessor (the
// pipelining pass's estimate of blocks per SM by registers or shared memory
// is 1), since nothing else then overlaps a warpgroup's softmax with MMAs;
// TESSERA_MMA_OVERLAP=1 applies it wherever it can, =0 nowhere. Measured on
// the H100: flash_attention_fwd (64-row blocks, two or three per SM) ran 6%
// slower with it (2026-11-27: 1.236 against 1.167 ms at S 4096; the rotated
// loop costs about 30 more instructions an iteration -- stage numbers modulo
// 3, the guard, a second commit -- and the other blocks already overlap),
// so the default leaves it off there; on blocks alone on their SM it paid
// in two separate calls (2026-11-27 and 2026-11-28, docs/benchmarks.md):
// flash_attention_fwd_q128 +1-5% at S 1024-8192 (causal and not),
// attn_fwd_d256_q128_f16 +1-5%, and GQA (two blocks per SM by the estimate:
// unchanged by default) within 1% either way.
//
//===----------------------------------------------------------------------===//

#include "MmaOverlap.h"
#include "tessera/Passes/Distribute.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <cstdlib>
#include <string>

using namespace mlir;
using namespace tessera;
using namespace tessera::tile;

namespace tessera::passes {

MmaOverlapMode mmaOverlapMode() {
  const char *v = std::getenv("TESSERA_MMA_OVERLAP");
  if (v && std::string(v) == "0")
    return MmaOverlapMode::Off;
  if (v && std::string(v) == "1")
    return MmaOverlapMode::On;
  return MmaOverlapMode::Alone;
}

bool mmaOverlapExplain() {
  const char *v = std::getenv("TESSERA_MMA_OVERLAP");
  return v && std::string(v) == "explain";
}

bool asyncAtom(GemmOp g, const target::TargetDescription &tgt) {
  auto name = g->getAttrOfType<StringAttr>("atom");
  const target::MmaAtom *atom =
      name ? tgt.findMmaAtom(name.getValue()) : nullptr;
  return atom && atom->async;
}

bool touches(Operation *op, const llvm::SmallPtrSetImpl<Value> &tiles) {
  bool found = false;
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      found |= tiles.contains(v);
  });
  return found;
}

namespace {} // namespace

std::optional<MmaOverlapPlan>
planMmaOverlap(PipelinedOp loop, ArrayRef<Operation *> pipelinedCopies,
               const target::TargetDescription &tgt, std::string *why) {
  auto no = [&](const char *reason) -> std::optional<MmaOverlapPlan> {
    if (why)
      *why = reason;
    return std::nullopt;
  };
  // Persistent blocks (tile.persistent, tessera-pipeline-loops) renumber
  // the stages of the loop's own stage views and release the last stage
  // right after the loop's drain; the moved gemm's stages would not follow.
  if (auto k = loop->getParentOfType<KernelOp>();
      k && k->hasAttr(kPersistentAttr))
    return no("the kernel walks its tiles on persistent blocks "
              "(tile.persistent), which renumber its stages");
  Block *body = &loop.getBodyBlock();
  SmallVector<GemmOp> gemms;
  for (Operation &op : body->without_terminator())
    if (auto g = dyn_cast<GemmOp>(op))
      gemms.push_back(g);
  if (gemms.size() < 2)
    return no("the loop body has fewer than two gemms at its top level");
  GemmOp first = gemms.front(), last = gemms.back();
  if (!asyncAtom(first, tgt) || !asyncAtom(last, tgt))
    return no("its first or last gemm is not on an asynchronous matrix atom");
  // Only pure ops (index arithmetic) after the last gemm: it moves past
  // them.
  for (Operation *op = last->getNextNode(); op && op != body->getTerminator();
       op = op->getNextNode())
    if (op->getNumRegions() || !isMemoryEffectFree(op))
      return no("an op after the last gemm has effects (it could not move "
                "past it)");
  // The last gemm's tiles, and the shared ones the pipeline stages (their
  // copies fill another stage than the one it reads).
  llvm::SmallPtrSet<Value, 4> tiles;
  for (Value v : {last.getA(), last.getB(), last.getC()})
    tiles.insert(v);
  llvm::SmallPtrSet<Operation *, 4> staged(pipelinedCopies.begin(),
                                           pipelinedCopies.end());
  // From the start of the body through the first gemm: nothing else may
  // touch them, nor may the first gemm read what the last one writes.
  for (Operation &op : *body) {
    if (staged.contains(&op))
      continue;
    if (touches(&op, tiles))
      return no("an op up to the first gemm touches the last gemm's tiles");
    if (&op == first.getOperation())
      break;
  }
  // A value the last gemm's operands need from the body (none: they are
  // tiles allocated outside it) would not dominate its new place.
  for (Value v : {last.getA(), last.getB(), last.getC()})
    if (Operation *d = v.getDefiningOp(); d && d->getBlock() == body)
      return no("an operand of the last gemm is defined in the loop body");
  return MmaOverlapPlan{first, last};
}

void rotateLastGemm(scf::ForOp loop, MmaOverlapPlan plan, Value t,
                    int64_t stages) {
  OpBuilder b(loop.getContext());
  Location loc = plan.last.getLoc();
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // The gemm under `cond`; operands that are a stage of a multi-buffered
  // tile read stage `slot` (the iteration the gemm belongs to). The views
  // stay inside the scf.if: a view of the stage the loop refills, hoisted
  // by CSE out of the refill, would tie the refill to this gemm.
  auto guarded = [&](Value cond, Value slot) {
    auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    IRMapping map;
    for (Value v : {plan.last.getA(), plan.last.getB(), plan.last.getC()})
      if (auto sv = v.getDefiningOp<StageViewOp>())
        map.map(v, StageViewOp::create(b, loc, sv.getResult().getType(),
                                       sv.getBuffer(), slot)
                       .getResult());
    Operation *clone = b.clone(*plan.last, map);
    clone->setAttr(kMmaAsyncAttr, b.getUnitAttr());
  };
  plan.first->setAttr(kMmaAsyncAttr, b.getUnitAttr());

  // In the loop: after the first gemm, the last one of the iteration before.
  b.setInsertionPointAfter(plan.first);
  {
    Value prev = arith::RemUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, t, cst(stages - 1)), cst(stages));
    Value notFirst =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, t, cst(0));
    guarded(notFirst, prev);
  }
  // After the loop (and its drain): the last iteration's, when there was
  // one (its stage is computed unguarded: unused otherwise).
  Operation *after = loop->getNextNode();
  if (auto w = dyn_cast_or_null<WaitGroupOp>(after))
    b.setInsertionPointAfter(w);
  else
    b.setInsertionPointAfter(loop);
  {
    Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
          step = loop.getStep();
    Value lastT = arith::DivUIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc, arith::SubIOp::create(b, loc, ub, lb),
                              cst(1)),
        step);
    Value ran =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lb, ub);
    guarded(ran, arith::RemUIOp::create(b, loc, lastT, cst(stages)));
  }
  plan.last->erase();
}

} // namespace tessera::passes
