//===- SharedScratch.cpp - shared memory distribution stages through ------===//
//
// Distribution (Distribute.cpp) stages two kinds of ops through shared
// memory: a tile.reduce of a fragment whose layout spreads the reduced
// dimension over warps (the warps' partials meet in shared memory), and a
// copy or tile.convert_layout between fragments of different layouts (the
// values pass through shared memory in the destination's shape). The bytes
// each needs are computed here, once: distribution reserves them after the
// tiles, tessera-plan-shared puts them into a tile dead at the op where it
// can, and tessera-pipeline-loops counts them when it chooses stages, so a
// kernel whose tiles fit only without them gets fewer stages instead of a
// budget error in distribution.
//
//===----------------------------------------------------------------------===//

#include "PassCommon.h"

#include "tessera/layout/NamedLayouts.h"

using namespace mlir;
using namespace tessera::tile;

namespace tessera::passes {

int64_t stagingScratchBytes(Operation *op) {
  Value src, dst;
  bool transpose = false;
  if (auto c = dyn_cast<CopyOp>(op))
    src = c.getSrc(), dst = c.getDst(), transpose = c.getTranspose();
  else if (auto cv = dyn_cast<ConvertLayoutOp>(op))
    src = cv.getSrc(), dst = cv.getDst();
  else if (auto r = dyn_cast<ReduceOp>(op))
    src = r.getSrc(), dst = r.getDst();
  else
    return 0;
  auto st = dyn_cast<TileType>(src.getType());
  auto dt = dyn_cast<TileType>(dst.getType());
  if (!st || !dt || !st.isFragment() || !dt.isFragment() || !st.getLayout() ||
      !dt.getLayout())
    return 0;
  layout::LinearLayout sl = fromLayoutAttr(st.getLayout(), st.getShape());
  if (auto r = dyn_cast<ReduceOp>(op)) {
    // One 32-bit partial per result element and group of warps along the
    // reduced dimension.
    int64_t dim = r.getDim(), groups = 1;
    if (sl.hasInDim(layout::kWarp))
      for (int i = 0; i < sl.getInDimSizeLog2(layout::kWarp); ++i)
        if (sl.getBasis(layout::kWarp, i)[dim] != 0)
          groups *= 2;
    return groups > 1 ? groups * dt.getNumElements() * 4 : 0;
  }
  layout::LinearLayout dl = fromLayoutAttr(dt.getLayout(), dt.getShape());
  if (transpose)
    sl = layout::LinearLayout(sl.transposeOuts({"dim1", "dim0"}).getBases(),
                              dl.getOutDims());
  if (sl == dl)
    return 0;
  // Row-major in the destination's shape and element type.
  return dt.getNumElements() *
         std::max<int64_t>(
             1, (dt.getElementType().getIntOrFloatBitWidth() + 7) / 8);
}

int64_t reservedScratchBytes(KernelOp kernel) {
  int64_t bytes = 0;
  kernel.walk([&](Operation *op) {
    if (!op->hasAttr("tile.scratch_offset"))
      bytes = std::max(bytes, stagingScratchBytes(op));
  });
  return bytes;
}

ReorderRegions reorderRegionsOf(KernelOp kernel,
                                const target::TargetDescription &tgt) {
  ReorderRegions r;
  kernel.walk([&](GemmOp g) {
    auto name = g->getAttrOfType<StringAttr>("atom");
    const target::MmaAtom *atom =
        name ? tgt.findMmaAtom(name.getValue()) : nullptr;
    if (!atom || !atom->cOpaque)
      return;
    r.accumulators[g.getC()] = atom;
    int64_t eb = std::max<int64_t>(1, cast<TileType>(g.getC().getType())
                                              .getElementType()
                                              .getIntOrFloatBitWidth() /
                                          8);
    r.bytesPerWarp =
        std::max<int64_t>(r.bytesPerWarp, int64_t(atom->m) * atom->n * eb);
  });
  return r;
}

} // namespace tessera::passes
