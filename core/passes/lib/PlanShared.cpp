//===- PlanShared.cpp - tessera-plan-shared -------------------------------===//
//
// Gives every shared tile of a kernel a byte offset: a tile lives from its
// alloc to its last use (uses inside a loop or region extend to the whole
// top-level op of the kernel that holds them; uses of tile.stage_view
// results count), tiles with disjoint lifetimes may share bytes. Offsets
// are aligned to 128 bytes, or 1024 bytes for swizzled tiles on targets whose
// async copy is TMA (TMA and matrix descriptors apply the swizzle to absolute
// address bits). Placement is greedy, largest first,
// at the lowest aligned offset free for the tile's lifetime. Records
// `offset` on each shared tile.alloc and `tile.shared_bytes` on the kernel;
// more than the target's per-block opt-in maximum is an error.
//
// A layout conversion between fragments stages through shared scratch,
// which distribution places after the tiles. Where a tile is dead at the
// conversion inside a loop body (every use of it is in that body before the
// conversion, the first one overwrites it from global memory, and the only
// other readers are copies out of it and the gemms producing the converted
// accumulator, which the conversion waits for), the conversion uses that
// tile's bytes instead: `tile.scratch_offset` on the conversion. Flash
// attention's S -> P conversion then lives in K's buffer of a single-stage
// loop, the difference between fitting a 64 KiB LDS and not. Reductions
// across warps (their partials go through shared memory) are placed alike.
// The bytes come from stagingScratchBytes (SharedScratch.cpp), which
// distribution reserves; tessera-place-operands measures the same placement
// (plannedSharedBytesWithScratch) and tessera-pipeline-loops leaves room for
// the scratch when it chooses stages.
//
//===----------------------------------------------------------------------===//

#include "PassCommon.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::tile;

namespace tessera::passes {
namespace {

struct Interval {
  AllocOp alloc;
  int64_t first, last, bytes, align, offset = -1;
};

/// The position in the kernel's body of the top-level op holding an op
/// (lifetimes are measured in these positions).
struct TopLevelOrder {
  explicit TopLevelOrder(KernelOp k) : top(k.getBody().front()) {
    int64_t i = 0;
    for (Operation &op : top)
      index[&op] = i++;
  }
  int64_t operator()(Operation *op) const {
    while (op && op->getBlock() != &top)
      op = op->getParentOp();
    return op ? index.lookup(op) : int64_t(0);
  }
  Block &top;
  llvm::DenseMap<Operation *, int64_t> index;
};

/// Places the shared tiles of `k` (lifetimes by top-level op of the kernel,
/// greedy, largest first); returns the bytes they span.
int64_t placeTiles(KernelOp k, const target::TargetDescription &tgt,
                   std::vector<Interval> &tiles) {
  TopLevelOrder topIndex(k);
  k.walk([&](AllocOp a) {
    TileType t = a.getType();
    if (!t.isShared())
      return;
    Interval iv{a, topIndex(a), topIndex(a),
                sharedTileBytes(t, sharedRowPad(a)), 128};
    SmallVector<Value> worklist{a.getResult()};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *u : v.getUsers()) {
        int64_t x = topIndex(u);
        iv.first = std::min(iv.first, x);
        iv.last = std::max(iv.last, x);
        if (auto sv = dyn_cast<StageViewOp>(u))
          worklist.push_back(sv.getResult());
      }
    }
    auto sw = a->getAttrOfType<SwizzleAttr>("swizzle");
    // The swizzle acts on address bits: TMA and descriptor-read tiles need
    // it to start at a 1024-byte boundary (the longest swizzle period).
    if (tgt.asyncCopy == target::AsyncCopyKind::Tma && sw &&
        (sw.getMaxPhase() > 1 || sw.getBlockCols() > 0))
      iv.align = 1024;
    tiles.push_back(iv);
  });
  std::vector<Interval *> order;
  for (auto &t : tiles)
    order.push_back(&t);
  std::sort(order.begin(), order.end(), [](Interval *a, Interval *b) {
    if (a->bytes != b->bytes)
      return a->bytes > b->bytes;
    return a->first < b->first;
  });
  int64_t total = 0;
  std::vector<Interval *> placed;
  for (Interval *t : order) {
    auto alignUp = [&](int64_t x) {
      return (x + t->align - 1) / t->align * t->align;
    };
    std::vector<int64_t> starts{0};
    for (Interval *p : placed)
      starts.push_back(alignUp(p->offset + p->bytes));
    std::sort(starts.begin(), starts.end());
    for (int64_t s : starts) {
      bool ok = llvm::none_of(placed, [&](Interval *p) {
        bool live = !(p->last < t->first || t->last < p->first);
        bool bytes = !(p->offset + p->bytes <= s || s + t->bytes <= p->offset);
        return live && bytes;
      });
      if (ok) {
        t->offset = s;
        break;
      }
    }
    placed.push_back(t);
    total = std::max(total, t->offset + t->bytes);
  }
  return total;
}

/// Puts the scratch of each op distribution stages through shared memory
/// into a tile dead at that op (see the file comment), recording
/// `tile.scratch_offset` on the op when `record`; returns the largest
/// scratch left for distribution to place after the tiles.
int64_t placeScratch(KernelOp k, std::vector<Interval> &tiles, bool record) {
  TopLevelOrder topIndex(k);
  Builder b(k.getContext());
  int64_t after = 0;
  k.walk([&](Operation *op) {
    // The bytes distribution stages the op through (a conversion: the
    // destination; a reduction across warps: a 32-bit partial per result
    // element and warp group).
    int64_t need = stagingScratchBytes(op);
    if (need == 0)
      return;
    Block *body = op->getBlock();
    bool atTop = body == &topIndex.top;
    // A gemm reading the tile is finished here when its accumulator has
    // been read (not only accumulated into) since, up to this op: reading
    // an accumulator waits for the gemms producing it.
    auto finished = [&](GemmOp g, Operation *gAnc) {
      for (Operation *u : g.getC().getUsers()) {
        Operation *a = body->findAncestorOpInBlock(*u);
        if (!a || isa<GemmOp>(u) || !(a == op || a->isBeforeInBlock(op)))
          continue;
        if (gAnc->isBeforeInBlock(a))
          return true;
        // Both inside the same op of this block (a loop): after the gemm
        // in its block.
        Operation *ua = g->getBlock()->findAncestorOpInBlock(*u);
        if (a == gAnc && ua && g->isBeforeInBlock(ua))
          return true;
      }
      return false;
    };
    for (Interval &t : tiles) {
      if (t.bytes < need || t.offset < 0 ||
          (!atTop && t.alloc->getBlock() == body))
        continue;
      Operation *first = nullptr;
      bool ok = true;
      for (Operation *u : t.alloc->getUsers()) {
        Operation *anc = body->findAncestorOpInBlock(*u);
        if (!anc || anc == op || !anc->isBeforeInBlock(op)) {
          ok = false;
          break;
        }
        if (auto g = dyn_cast<GemmOp>(u))
          ok &= g.getC() != t.alloc.getResult() && finished(g, anc);
        else if (auto c = dyn_cast<CopyOp>(u))
          ok &= c.getDst() == t.alloc.getResult()
                    ? isa<GlobalTensorType>(c.getSrc().getType())
                    : isa<TileType>(c.getDst().getType());
        else
          ok = false;
        if (!first || anc->isBeforeInBlock(first))
          first = anc;
      }
      // In a loop body the tile must also be rewritten before its next read
      // (by the first use of the next iteration); after its last use in the
      // kernel body it is dead for good.
      auto w = dyn_cast_or_null<CopyOp>(first);
      if (!ok || (!atTop && (!w || w.getDst() != t.alloc.getResult())))
        continue;
      // No other tile live here may share those bytes (the plan lets tiles
      // with disjoint lifetimes overlap).
      int64_t here = topIndex(op);
      if (llvm::any_of(tiles, [&](const Interval &o) {
            return &o != &t && o.first <= here && here <= o.last &&
                   !(o.offset + o.bytes <= t.offset ||
                     t.offset + need <= o.offset);
          }))
        continue;
      if (record)
        op->setAttr("tile.scratch_offset", b.getI64IntegerAttr(t.offset));
      return;
    }
    after = std::max(after, need);
  });
  return after;
}

LogicalResult planKernel(KernelOp k, const target::TargetDescription &tgt) {
  std::vector<Interval> tiles;
  int64_t total = placeTiles(k, tgt, tiles);
  Builder b(k.getContext());
  for (auto &t : tiles)
    t.alloc->setAttr("offset", b.getI64IntegerAttr(t.offset));
  placeScratch(k, tiles, /*record=*/true);
  k->setAttr("tile.shared_bytes", b.getI64IntegerAttr(total));
  if (total > tgt.sharedMemoryPerBlockOptin) {
    auto fn = k->getParentOfType<FuncOp>();
    // At the kernel, with a note per shared tile (not the whole op dumped).
    auto diag = mlir::emitError(k.getLoc())
                << "kernel '" << (fn ? fn.getSymName() : StringRef("?"))
                << "' needs " << total
                << " bytes of shared memory, more than the "
                << tgt.sharedMemoryPerBlockOptin
                << " bytes per block of target '" << tgt.name << "'";
    for (Interval &t : tiles) {
      diag.attachNote(t.alloc.getLoc())
          << "shared tile " << t.alloc.getType() << ": " << t.bytes
          << " bytes at offset " << t.offset;
      // Why tessera-place-operands did not move it into registers.
      if (auto why = t.alloc->getAttrOfType<StringAttr>("tile.placed_reason"))
        diag.attachNote(t.alloc.getLoc())
            << "not placed in registers: " << why.getValue();
    }
    return diag;
  }
  return success();
}

struct PlanSharedPass : TargetPass<PlanSharedPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PlanSharedPass)
  PlanSharedPass() = default;
  PlanSharedPass(const PlanSharedPass &o) : TargetPass(o) {}
  StringRef getName() const override { return "TesseraPlanShared"; }
  StringRef getArgument() const override { return "tessera-plan-shared"; }
  StringRef getDescription() const override {
    return "Assign liveness-based shared-memory offsets to shared tiles";
  }
  void runWithTarget(const target::TargetDescription &t) {
    for (KernelOp k : kernelsOf(getOperation()))
      if (failed(planKernel(k, t)))
        signalPassFailure();
  }
};

} // namespace

int64_t plannedSharedBytes(KernelOp kernel,
                           const target::TargetDescription &target) {
  std::vector<Interval> tiles;
  return placeTiles(kernel, target, tiles);
}

int64_t plannedSharedBytesWithScratch(KernelOp kernel,
                                      const target::TargetDescription &target) {
  std::vector<Interval> tiles;
  int64_t total = placeTiles(kernel, target, tiles);
  int64_t after = placeScratch(kernel, tiles, /*record=*/false);
  // Distribution puts it at the first 128-byte boundary after the tiles.
  return after ? llvm::alignTo(total, 128) + after : total;
}

std::unique_ptr<Pass> createPlanSharedPass(const std::string &target) {
  return makeTargetPass<PlanSharedPass>(target);
}
void registerPlanSharedPass() { PassRegistration<PlanSharedPass>(); }

} // namespace tessera::passes
