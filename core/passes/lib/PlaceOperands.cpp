//===- PlaceOperands.cpp - tessera-place-operands -------------------------===//
//
// Moves gemm A operands out of shared memory into registers when a kernel's
// shared tiles do not fit the target.
//
// A shared tile that is filled once from global memory outside every loop
// and then only read as the A operand of tile.gemm ops (attention's Q tile)
// holds the same values for the whole kernel, and a matrix instruction reads
// its A operand from registers anyway (MFMA, WMMA, mma.sync). When the
// kernel's shared tiles need more than the target's per-block maximum
// (`shared_memory.per_block_optin`, with the lifetimes tessera-plan-shared
// uses and one buffer per tile), such tiles become fragment tiles, largest
// first, until the rest fits: the copy becomes a global -> fragment copy and
// the gemms read A from registers. The bytes counted include the scratch
// distribution places after the tiles (plannedSharedBytesWithScratch: the
// largest layout conversion or reduction staged through shared memory for
// which no tile is dead), so a kernel whose tiles fit only without it is
// treated as not fitting. A tile moves only where the kernel's
// fragments still fit the target's registers per thread where the most of
// them are live (FragmentLiveness.h), measured on a copy of the kernel whose
// layouts tessera-infer-layouts inferred with the tile moved, and only where
// that saves shared memory (a target whose atoms read A only from shared
// memory would stage it back). Where the atom's A layout repeats the operand
// across lanes (RDNA3's WMMA) and the repeated copy does not fit, the tile
// is held compactly (LaneGather.h: the layout is written on the alloc, and
// each k-step gathers the operand by lane shuffles). When no choice makes
// the tiles fit, nothing moves and tessera-plan-shared reports the budget,
// with each candidate's reason in a note.
//
// Records, on the alloc: `tile.placed = "registers"` (moved) or `"shared"`
// (a candidate that stayed), and `tile.placed_reason`. A kernel whose shared
// tiles fit is not touched.
//
//===----------------------------------------------------------------------===//

#include "FragmentLiveness.h"
#include "LaneGather.h"
#include "PassCommon.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Pass/Pass.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::tile;

namespace tessera::passes {
namespace {

/// Whether `tile` (a shared alloc) is written by exactly one copy from a
/// global tensor outside every loop of its kernel and otherwise only read
/// as the A operand of gemms (at least one).
bool isLoopInvariantAOperand(AllocOp alloc, KernelOp kernel) {
  TileType t = alloc.getType();
  if (!t.isShared() || t.getRank() != 2)
    return false;
  Value tile = alloc.getResult();
  int copies = 0, gemms = 0;
  for (Operation *u : tile.getUsers()) {
    if (auto c = dyn_cast<CopyOp>(u)) {
      if (c.getDst() != tile || !isa<GlobalTensorType>(c.getSrc().getType()))
        return false;
      for (Operation *p = c->getParentOp(); p && p != kernel;
           p = p->getParentOp())
        if (isa<LoopLikeOpInterface, PipelinedOp, ParallelOp>(p))
          return false;
      ++copies;
    } else if (auto g = dyn_cast<GemmOp>(u)) {
      if (g.getA() != tile || g.getB() == tile || g.getC() == tile)
        return false;
      ++gemms;
    } else {
      return false;
    }
  }
  return copies == 1 && gemms > 0;
}

/// `tile` as a fragment, with `layout` when given (null: inferred later).
void toFragment(Value tile, LayoutAttr layout = {}) {
  auto t = cast<TileType>(tile.getType());
  tile.setType(withLayout(
      TileType::get(t.getShape(), t.getElementType(), MemorySpace::Fragment),
      layout));
}

/// A tile to move and the layout it is held in (null: layout inference's).
struct Move {
  AllocOp alloc;
  LayoutAttr layout;
};

/// What the kernel would need with a set of tiles moved into registers.
struct Trial {
  bool inferred = false;
  /// Shared bytes with the scratch distribution places after the tiles,
  /// and of the tiles alone.
  int64_t sharedBytes = 0, tileBytes = 0;
  RegisterPeak registers;
  /// Per moved tile: its registers, and the compact form of the layout
  /// inference gave it (null: the atom repeats nothing across lanes).
  SmallVector<int64_t> tileWords;
  SmallVector<LayoutAttr> compact;
};

class KernelPlacement {
public:
  KernelPlacement(ModuleOp module, KernelOp kernel,
                  const target::TargetDescription &tgt,
                  const AtomFilter &filter)
      : module(module), kernel(kernel), tgt(tgt), filter(filter) {}

  void run();

private:
  ModuleOp module;
  KernelOp kernel;
  const target::TargetDescription &tgt;
  const AtomFilter &filter;

  /// Infers layouts on a copy of the module with `moved` in registers and
  /// measures it; the original is untouched.
  Trial trial(ArrayRef<Move> moved);
};

/// The layout of a fragment A operand with the lanes its atom repeats it
/// across given registers of K instead (LaneGather.h), or null.
LayoutAttr compactLayoutOf(Value tile, const target::TargetDescription &tgt) {
  auto t = cast<TileType>(tile.getType());
  if (!t.getLayout())
    return {};
  for (Operation *u : tile.getUsers()) {
    auto g = dyn_cast<GemmOp>(u);
    auto name = g ? g->getAttrOfType<StringAttr>("atom") : StringAttr();
    const target::MmaAtom *atom =
        name ? tgt.findMmaAtom(name.getValue()) : nullptr;
    if (!atom)
      continue;
    std::optional<layout::LinearLayout> c =
        compactAcrossLanes(fromLayoutAttr(t.getLayout(), t.getShape()),
                           g.getTransposeA() ? 0 : 1, atom->k);
    if (c)
      return toLayoutAttr(tile.getContext(), *c);
  }
  return {};
}

Trial KernelPlacement::trial(ArrayRef<Move> moved) {
  // Ops are found again in the copy by their position in a walk.
  llvm::DenseMap<Operation *, int64_t> position;
  int64_t n = 0;
  module.walk([&](Operation *op) { position[op] = n++; });
  OwningOpRef<ModuleOp> copy = cast<ModuleOp>(module->clone());
  std::vector<Operation *> ops;
  copy->walk([&](Operation *op) { ops.push_back(op); });
  auto inCopy = [&](Operation *op) { return ops[position.lookup(op)]; };
  auto k = cast<KernelOp>(inCopy(kernel));
  SmallVector<Value> tiles;
  for (const Move &m : moved) {
    Value v = cast<AllocOp>(inCopy(m.alloc)).getResult();
    toFragment(v, m.layout);
    tiles.push_back(v);
  }
  Trial t;
  {
    // A kernel layout inference rejects here is rejected again, with its
    // diagnostic, by the pass itself.
    ScopedDiagnosticHandler quiet(module.getContext(),
                                  [](Diagnostic &) { return success(); });
    t.inferred = succeeded(inferKernelLayouts(k, tgt, true, filter));
  }
  if (!t.inferred)
    return t;
  t.sharedBytes = plannedSharedBytesWithScratch(k, tgt);
  t.tileBytes = plannedSharedBytes(k, tgt);
  t.registers = fragmentRegisterPeak(k);
  for (Value v : tiles) {
    t.tileWords.push_back(fragmentTileWords(cast<TileType>(v.getType())));
    t.compact.push_back(compactLayoutOf(v, tgt));
  }
  return t;
}

void KernelPlacement::run() {
  int64_t limit = tgt.sharedMemoryPerBlockOptin;
  if (limit <= 0)
    return;
  SmallVector<AllocOp> candidates;
  kernel.walk([&](AllocOp a) {
    if (isLoopInvariantAOperand(a, kernel))
      candidates.push_back(a);
  });
  if (candidates.empty())
    return;
  // The tiles, and the scratch distribution will stage conversions and
  // reductions through where no tile is dead (measured with the layouts
  // inference gives the kernel as it is): a kernel whose tiles fit only
  // without that scratch does not fit either.
  int64_t tilesNeed = plannedSharedBytes(kernel, tgt), need = tilesNeed;
  if (Trial now = trial({}); now.inferred)
    need = std::max(need, now.sharedBytes);
  if (need <= limit)
    return;
  auto bytesOf = [](AllocOp a) { return sharedTileBytes(a.getType(), 0); };
  llvm::stable_sort(candidates, [&](AllocOp a, AllocOp b) {
    return bytesOf(a) > bytesOf(b);
  });
  std::string over;
  llvm::raw_string_ostream(over)
      << "the kernel's shared tiles "
      << (need > tilesNeed ? "and the scratch its layout conversions and "
                             "reductions stage through "
                           : "")
      << "need " << need << " bytes, more than the " << limit
      << " per block of target '" << tgt.name << "'";
  auto fitsRegisters = [&](const Trial &t) {
    return tgt.registersPerThread <= 0 ||
           t.registers.words <= tgt.registersPerThread;
  };

  SmallVector<Move> moved;
  llvm::DenseMap<Operation *, std::string> refused;
  Trial accepted;
  int64_t sharedNow = need;
  for (AllocOp a : candidates) {
    SmallVector<Move> withIt(moved);
    withIt.push_back({a, {}});
    Trial t = trial(withIt);
    // Where the atom's layout repeats the operand across lanes, held
    // compactly (each k-step's operand gathered by lane shuffles).
    if (t.inferred && !fitsRegisters(t) && t.compact.back()) {
      withIt.back().layout = t.compact.back();
      Trial c = trial(withIt);
      if (c.inferred && c.registers.words < t.registers.words)
        t = c;
      else
        withIt.back().layout = {};
    }
    std::string why;
    llvm::raw_string_ostream os(why);
    if (!t.inferred) {
      os << over << "; with it in registers layout inference fails";
    } else if (t.sharedBytes >= sharedNow) {
      os << over << "; in registers it saves no shared memory (no matrix "
         << "instruction of the target reads it from registers)";
    } else if (!fitsRegisters(t)) {
      os << over << "; in registers the kernel's fragments would need "
         << t.registers.words << " registers per thread where the most are "
         << "live, more than the " << tgt.registersPerThread
         << " of the target";
    } else {
      moved = std::move(withIt);
      accepted = t;
      sharedNow = t.sharedBytes;
      if (sharedNow <= limit)
        break;
      continue;
    }
    refused[a] = why;
  }

  Builder b(kernel.getContext());
  if (moved.empty() || sharedNow > limit) {
    // Nothing that fits: the tiles stay, tessera-plan-shared reports the
    // budget with these reasons.
    for (AllocOp a : candidates) {
      std::string why = refused.lookup(a);
      if (why.empty())
        llvm::raw_string_ostream(why)
            << over << "; moving every candidate that fits the registers "
            << "leaves " << sharedNow << " bytes";
      a->setAttr("tile.placed", b.getStringAttr("shared"));
      a->setAttr("tile.placed_reason", b.getStringAttr(why));
    }
    return;
  }
  for (auto [i, m] : llvm::enumerate(moved)) {
    toFragment(m.alloc.getResult(), m.layout);
    std::string why;
    llvm::raw_string_ostream os(why);
    os << over << "; copied once from global memory and read only as the "
       << "A operand of gemms, it is kept in registers";
    if (m.layout)
      os << ", compactly (the matrix instruction's A layout repeats it "
         << "across lanes; each k-step gathers its operand by lane shuffles)";
    os << ": " << accepted.tileWords[i] << " per thread, the kernel's "
       << "fragments need " << accepted.registers.words << " of the "
       << tgt.registersPerThread << " where the most are live; shared "
       << "tiles take " << accepted.tileBytes << " bytes";
    if (accepted.sharedBytes > accepted.tileBytes)
      os << ", " << accepted.sharedBytes << " with the scratch after them";
    m.alloc->setAttr("tile.placed", b.getStringAttr("registers"));
    m.alloc->setAttr("tile.placed_reason", b.getStringAttr(why));
  }
  for (AllocOp a : candidates)
    if (refused.count(a)) {
      a->setAttr("tile.placed", b.getStringAttr("shared"));
      a->setAttr("tile.placed_reason", b.getStringAttr(refused.lookup(a)));
    }
}

struct PlaceOperandsPass : TargetPass<PlaceOperandsPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PlaceOperandsPass)
  PlaceOperandsPass() = default;
  PlaceOperandsPass(const PlaceOperandsPass &o)
      : TargetPass(o), atomFilter(o.atomFilter) {}
  StringRef getName() const override { return "TesseraPlaceOperands"; }
  StringRef getArgument() const override { return "tessera-place-operands"; }
  StringRef getDescription() const override {
    return "Keep loop-invariant gemm A operands in registers when the "
           "kernel's shared tiles exceed the target's shared memory";
  }
  /// Atoms the backend can emit (all when empty); set from C++ only.
  AtomFilter atomFilter;

  void runWithTarget(const target::TargetDescription &t) {
    for (KernelOp k : kernelsOf(getOperation()))
      KernelPlacement(getOperation(), k, t, atomFilter).run();
  }
};

} // namespace

std::unique_ptr<Pass> createPlaceOperandsPass(const std::string &target,
                                              AtomFilter filter) {
  auto p = makeTargetPass<PlaceOperandsPass>(target);
  p->atomFilter = std::move(filter);
  return p;
}
void registerPlaceOperandsPass() { PassRegistration<PlaceOperandsPass>(); }

} // namespace tessera::passes
