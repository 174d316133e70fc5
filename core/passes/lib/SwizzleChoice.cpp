//===- SwizzleChoice.cpp - the swizzle pass's choice, without MLIR --------===//

#include "tessera/Passes/SwizzleChoice.h"

#include <algorithm>

namespace tessera::passes {

int sharedAccessBytes(int cols, int elemBytes, int copyVectorBytes) {
  int v = std::min({copyVectorBytes, cols * elemBytes, 16});
  int p = elemBytes;
  while (p * 2 <= v)
    p *= 2;
  return p;
}

layout::SwizzleParams chooseSharedSwizzle(int rows, int cols, int elemBytes,
                                          const layout::BankModel &banks,
                                          int accessBytes) {
  return layout::chooseSwizzle(rows, cols, elemBytes, banks, accessBytes);
}

layout::SharedAccess columnChunkAccess(int rows, int cols, int elemBytes,
                                       int accessBytes, int warpSize, int row0,
                                       int col0) {
  layout::SharedAccess a;
  a.bytesPerLane = accessBytes;
  int vec = accessBytes / elemBytes;
  int rowsPer = std::min(rows - row0, 16);
  for (int l = 0; l < warpSize; ++l) {
    int r = row0 + l % rowsPer, c = col0 + vec * (l / rowsPer);
    if (r < rows && c < cols)
      a.laneCoords.push_back({r, c});
    else
      a.laneCoords.push_back({});
  }
  return a;
}

layout::SharedAccess rowChunkAccess(int rows, int cols, int elemBytes,
                                    int accessBytes, int warpSize, int row0) {
  layout::SharedAccess a;
  a.bytesPerLane = accessBytes;
  int vec = accessBytes / elemBytes;
  for (int l = 0; l < warpSize; ++l) {
    int flat = l * vec;
    int r = row0 + flat / cols, c = flat % cols;
    if (r < rows)
      a.laneCoords.push_back({r, c});
    else
      a.laneCoords.push_back({});
  }
  return a;
}

} // namespace tessera::passes
