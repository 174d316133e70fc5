//===- SwizzleShared.cpp - tessera-swizzle-shared -------------------------===//
//
// Chooses an XOR swizzle for every rank-2 shared tile from the target's bank
// model and the width of the accesses that touch it (the vector width of
// the copies writing it, at most 16 bytes), so that both the row-contiguous
// writes of copies and the column-of-rows reads of MMA operands are free of
// bank conflicts. Records `swizzle = #tile.swizzle<...>` on the tile.alloc;
// warns when the chosen swizzle still conflicts. Tiles read through matrix
// descriptors, and on TMA targets tiles filled from global memory, take the
// hardware's swizzle atoms instead (rows over 128 bytes in column blocks);
// tiles read by atoms that load their operands themselves ("opaque"
// operand layouts) stay row-major with rows padded to an odd number of
// 16-byte pieces (`tile.row_pad`, elements).
//
//===----------------------------------------------------------------------===//

#include "PassCommon.h"

#include "tessera/Passes/SwizzleChoice.h"
#include "tessera/layout/SharedMemory.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::tile;

namespace tessera::passes {
namespace {

/// Whether a tile.gemm reads the shared tile `a` with an atom whose layout
/// for that operand is `how` ("shared": through a matrix descriptor;
/// "opaque": by the backend's own matrix load, from a plain row-major tile).
bool readAs(AllocOp a, const target::TargetDescription &t, StringRef how) {
  for (Operation *u : a.getResult().getUsers()) {
    auto g = dyn_cast<GemmOp>(u);
    if (!g)
      continue;
    auto name = g->getAttrOfType<StringAttr>("atom");
    const target::MmaAtom *atom =
        name ? t.findMmaAtom(name.getValue()) : nullptr;
    if (!atom)
      continue;
    if ((g.getA() == a.getResult() && atom->aLayoutName == how) ||
        (g.getB() == a.getResult() && atom->bLayoutName == how))
      return true;
  }
  return false;
}

/// Whether a tile.copy fills the shared tile `a` from a global tensor.
bool filledFromGlobal(AllocOp a) {
  for (Operation *u : a.getResult().getUsers())
    if (auto c = dyn_cast<CopyOp>(u);
        c && c.getDst() == a.getResult() &&
        isa<GlobalTensorType>(c.getSrc().getType()) && !c.getTranspose())
      return true;
  return false;
}

struct SwizzleSharedPass : TargetPass<SwizzleSharedPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SwizzleSharedPass)
  SwizzleSharedPass() = default;
  SwizzleSharedPass(const SwizzleSharedPass &o) : TargetPass(o) {}
  StringRef getName() const override { return "TesseraSwizzleShared"; }
  StringRef getArgument() const override { return "tessera-swizzle-shared"; }
  StringRef getDescription() const override {
    return "Choose bank-conflict-free XOR swizzles for shared tiles";
  }

  void runWithTarget(const target::TargetDescription &t) {
    Builder b(&getContext());
    getOperation().walk([&](AllocOp a) {
      TileType tt = a.getType();
      if (!tt.isShared() || tt.getRank() != 2)
        return;
      int rows = int(tt.getShape()[0]), cols = int(tt.getShape()[1]);
      if (!layout::isPowerOf2(rows) || !layout::isPowerOf2(cols))
        return;
      int eb = elementBytes(tt.getElementType());
      // Tiles read by matrix descriptors, and on targets that copy tiles by
      // TMA every tile filled from global memory (so that its copies can be
      // bulk copies), take the hardware's swizzle atoms.
      // Tiles a backend's matrix load reads (Vulkan cooperative matrices
      // take a row stride and nothing else) stay row-major, but their rows
      // are padded: such loads read 16-byte pieces of consecutive rows, and
      // rows an even number of 16-byte pieces apart (a power of two: 64,
      // 128, 256 bytes) land in the same banks, up to 8-fold. A row stride
      // of an odd number of pieces spreads any bytesPerCycle / 16
      // consecutive rows over all banks; 16 bytes of padding keep rows
      // aligned for 16-byte copies.
      if (readAs(a, t, "opaque")) {
        int rowBytes = cols * eb;
        int pieces = t.banks.bytesPerCycle() / 16;
        if (rows > 1 && pieces > 1 && rowBytes % 16 == 0 &&
            (rowBytes / 16) % 2 == 0 && 16 % eb == 0)
          a->setAttr("tile.row_pad", b.getI64IntegerAttr(16 / eb));
        return;
      }
      if (readAs(a, t, "shared") ||
          (t.asyncCopy == target::AsyncCopyKind::Tma && filledFromGlobal(a))) {
        // The hardware's swizzle atoms: 16-byte chunks XORed within rows of
        // 32, 64 or 128 bytes; wider rows are stored as 128-byte column
        // blocks (conflict-free for ldmatrix too). Narrower rows keep the
        // plain choice (no descriptor mode).
        int rowBytes = cols * eb;
        if (rowBytes >= 32 && 16 % eb == 0) {
          int width = std::min(rowBytes, 128);
          int vecE = 16 / eb;
          int64_t blockCols = rowBytes > 128 ? 128 / eb : 0;
          a->setAttr("swizzle",
                     SwizzleAttr::get(&getContext(), vecE, 128 / width,
                                      width / 16, blockCols));
          return;
        }
      }
      // The widest vector a copy writes with (layout inference records it).
      int vec = 0;
      for (Operation *u : a.getResult().getUsers())
        if (auto v = u->getAttrOfType<IntegerAttr>("vector_bytes"))
          vec = std::max<int>(vec, int(v.getInt()));
      if (vec == 0)
        vec = t.globalLoadVectorBytes;
      int access = sharedAccessBytes(cols, eb, vec);
      layout::SwizzleParams p;
      try {
        p = chooseSharedSwizzle(rows, cols, eb, t.banks, access);
        layout::LinearLayout l = layout::swizzledSharedLayout(rows, cols, p);
        int conflicts = 0;
        int vecElems = access / eb;
        for (int r0 = 0; r0 < rows; r0 += std::min(rows, 16))
          for (int c0 = 0; c0 < cols; c0 += vecElems)
            conflicts += layout::countBankConflicts(
                             l, eb, t.banks,
                             columnChunkAccess(rows, cols, eb, access,
                                               t.warpSize, r0, c0))
                             .conflicts;
        if (conflicts)
          a.emitWarning("swizzle <")
              << p.vec << ", " << p.perPhase << ", " << p.maxPhase
              << "> leaves " << conflicts << " bank conflicts";
      } catch (const layout::LayoutError &e) {
        a.emitWarning("no swizzle: ") << e.what();
        return;
      }
      a->setAttr("swizzle", SwizzleAttr::get(&getContext(), p.vec, p.perPhase,
                                             p.maxPhase, 0));
    });
  }
};

} // namespace

std::unique_ptr<Pass> createSwizzleSharedPass(const std::string &target) {
  return makeTargetPass<SwizzleSharedPass>(target);
}
void registerSwizzleSharedPass() { PassRegistration<SwizzleSharedPass>(); }

} // namespace tessera::passes
