//===- Print.h - layouts as text tables and SVG pictures ----------*- C++
//-*-===//
//
// Both render the tensor (dim0 = rows, all later dims flattened row-major into
// columns) and, for each element, who holds it: "T<t>:r<r>" where
// t = lane + warp * lanes (+ block * lanes * warps) and r the register. A
// layout without lane/register dims (e.g. shared memory, `offset`) shows the
// flat input index instead. When several hardware locations hold an element
// (broadcast) the lowest is shown and marked with '*'; an element nobody
// holds shows '-'.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_LAYOUT_PRINT_H
#define TESSERA_LAYOUT_PRINT_H

#include "tessera/layout/LinearLayout.h"

#include <ostream>

namespace tessera::layout {

/// Writes a text table (one line per row, cells padded to one width).
void printLayoutTable(const LinearLayout &l, std::ostream &os);
std::string layoutTableString(const LinearLayout &l);

/// Writes an SVG picture: a grid of cells colored by thread, labelled
/// "Tt:rR".
void printLayoutSVG(const LinearLayout &l, std::ostream &os);

/// The label of one element as in the table; "-" if nobody holds it.
/// `coords` has one value per output dim.
std::string elementLabel(const LinearLayout &l,
                         const std::vector<int32_t> &coords);

} // namespace tessera::layout

#endif
