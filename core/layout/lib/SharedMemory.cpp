//===- SharedMemory.cpp - swizzled shared-memory layouts, bank conflicts --===//
#include "tessera/layout/SharedMemory.h"
#include "tessera/layout/NamedLayouts.h"

#include <algorithm>
#include <map>
#include <set>

namespace tessera::layout {

LinearLayout swizzledSharedLayout(int rows, int cols, SwizzleParams p) {
  int rb = log2Exact(rows, "rows");
  int cb = log2Exact(cols, "cols");
  log2Exact(p.vec, "vec");
  log2Exact(p.perPhase, "perPhase");
  log2Exact(p.maxPhase, "maxPhase");
  std::vector<LinearLayout::Basis> bs;
  for (int j = 0; j < cb; ++j)
    bs.push_back({0, 1 << j});
  for (int i = 0; i < rb; ++i) {
    int r = 1 << i;
    int phase = (r / p.perPhase) % p.maxPhase;
    bs.push_back({r, (phase * p.vec) & (cols - 1)});
  }
  return LinearLayout({{kOffset, bs}},
                      {{dimName(0), rows}, {dimName(1), cols}});
}

SwizzleParams swizzleForMode(int swizzleBytes, int elemBytes) {
  log2Exact(elemBytes, "element bytes");
  switch (swizzleBytes) {
  case 0:
    return {1, 1, 1};
  case 32:
  case 64:
  case 128:
    return {std::max(1, 16 / elemBytes), 128 / swizzleBytes, swizzleBytes / 16};
  default:
    throw LayoutError("swizzle mode must be 0, 32, 64 or 128 bytes, got " +
                      std::to_string(swizzleBytes));
  }
}

LinearLayout nvmmaSharedLayout(int rows, int cols, int elemBytes,
                               int swizzleBytes) {
  SwizzleParams p = swizzleForMode(swizzleBytes, elemBytes);
  if (swizzleBytes == 0)
    return swizzledSharedLayout(rows, cols, p);
  int inner = swizzleBytes / elemBytes;
  if (cols < inner)
    throw LayoutError("a " + std::to_string(swizzleBytes) +
                      "-byte swizzle needs rows of at least " +
                      std::to_string(inner) + " elements, got " +
                      std::to_string(cols));
  return swizzledSharedLayout(rows, inner, p) *
         LinearLayout::identity1D(cols / inner, kOffset, dimName(1));
}

SwizzleParams chooseSwizzle(int rows, int cols, int elemBytes,
                            const BankModel &banks, int accessBytes) {
  log2Exact(rows, "rows");
  log2Exact(cols, "cols");
  int vec = std::max(1, accessBytes / elemBytes);
  if (vec > cols)
    return {1, 1, 1};
  int rowBytes = cols * elemBytes;
  int perPhase = std::max(1, banks.bytesPerCycle() / rowBytes);
  int chunksPerBankRow = std::max(1, banks.bytesPerCycle() / accessBytes);
  int maxPhase = std::max(1, std::min(chunksPerBankRow / perPhase, cols / vec));
  return {vec, perPhase, maxPhase};
}

ConflictReport countBankConflicts(const LinearLayout &shared, int elemBytes,
                                  const BankModel &banks,
                                  const SharedAccess &access) {
  LinearLayout where = shared.invert(); // (dim0, dim1) -> offset
  std::vector<std::string> dims = where.getInDimNames();
  int lanesPerPhase =
      std::max(1, banks.bytesPerCycle() / std::max(1, access.bytesPerLane));
  ConflictReport rep;
  size_t n = access.laneCoords.size();
  for (size_t start = 0; start < n; start += lanesPerPhase) {
    std::map<int64_t, std::set<int64_t>> wordsPerBank;
    bool any = false;
    for (size_t l = start; l < std::min(n, start + lanesPerPhase); ++l) {
      auto &c = access.laneCoords[l];
      if (c.empty())
        continue;
      any = true;
      NamedInts in;
      for (size_t d = 0; d < c.size() && d < dims.size(); ++d)
        in.push_back({dims[d], c[d]});
      int64_t addr = int64_t(where.apply(in)[0].second) * elemBytes;
      for (int64_t w = addr / banks.bankWidthBytes;
           w <= (addr + access.bytesPerLane - 1) / banks.bankWidthBytes; ++w)
        wordsPerBank[w % banks.banks].insert(w);
    }
    if (!any)
      continue;
    size_t ways = 1;
    for (auto &[b, words] : wordsPerBank)
      ways = std::max(ways, words.size());
    rep.phases += 1;
    rep.wavefronts += int(ways);
  }
  rep.conflicts = rep.wavefronts - rep.phases;
  return rep;
}

SharedAccess ldmatrixX4Access(int row0, int col0) {
  SharedAccess a;
  a.bytesPerLane = 16;
  for (int l = 0; l < 32; ++l)
    a.laneCoords.push_back({row0 + l % 16, col0 + 8 * (l / 16)});
  return a;
}

} // namespace tessera::layout
