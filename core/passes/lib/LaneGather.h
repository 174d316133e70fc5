//===- LaneGather.h - reading a fragment in another lane layout -*- C++ -*-===//
//
// A matrix instruction may read an operand in a layout that repeats elements
// across lanes: RDNA3's WMMA wants each lane of a half-wave to hold its whole
// row of A, so lanes l and l + 16 hold the same 16 elements. A fragment held
// that way takes twice the registers it needs. Held compactly instead (the
// repeated lane bit given one of the register bits: lane l + 16 holds the
// other half of the row), the operand of each k-step is gathered from the
// lane holding it with a lane shuffle (an XOR of the lane index) and a
// select.
//
// Plain layout algebra (no MLIR, no LLVM: tests/unit/passes checks it).
// `compactAcrossLanes` makes the compact layout; `planLaneGather` says, for
// every register of the layout an instruction reads and every lane, which
// register of which lane (lane ^ mask) holds that element in a held layout,
// grouped so that the choice depends on a few lane bits. Layout inference
// keeps a gemm operand compact where a plan exists (recording the layout the
// atom reads on the gemm, `a_layout` / `b_layout`) and distribution follows
// the plan.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_PASSES_LANEGATHER_H
#define TESSERA_PASSES_LANEGATHER_H

#include "tessera/layout/LinearLayout.h"

#include <optional>
#include <vector>

namespace tessera::passes {

/// `l` with every broadcast lane bit (a zero lane basis) given a register
/// basis that moves along output dim `kDim` alone, which the registers then
/// drop: half the registers per such bit. Among those register bases the
/// highest one below `kBelow` is taken (inside one matrix instruction's K,
/// so a k-step's operand comes from one lane pair), else the lowest.
/// nullopt when `l` repeats nothing across lanes or no register basis fits.
std::optional<layout::LinearLayout>
compactAcrossLanes(const layout::LinearLayout &l, int kDim, int32_t kBelow);

/// Where lanes whose `lane & laneBits` is one of `laneValues` find their
/// element: register `reg` of lane `lane ^ laneXor`.
struct GatherChoice {
  int64_t reg = 0;
  int32_t laneXor = 0;
  std::vector<int32_t> laneValues;
};

/// How one register of the read layout is gathered.
struct GatherRegister {
  int32_t laneBits = 0;
  std::vector<GatherChoice> choices;
};

/// For each register of `want`, how every lane gathers its element from a
/// fragment held in `held` (same element, same warp). nullopt when some
/// element is not held by the lanes of the same warp, the warp bits of the
/// two layouts differ, or a register's choice depends on more than two lane
/// bits.
std::optional<std::vector<GatherRegister>>
planLaneGather(const layout::LinearLayout &held,
               const layout::LinearLayout &want);

} // namespace tessera::passes

#endif
