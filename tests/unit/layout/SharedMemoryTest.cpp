// Swizzled shared-memory layouts and the bank-conflict counter.
#include "tessera/layout/SharedMemory.h"
#include "TestUtil.h"
#include "tessera/layout/NamedLayouts.h"

#include <gtest/gtest.h>

using namespace tessera::layout;

namespace {

TEST(SharedMemory, SwizzleFormula) {
  for (int rows : {8, 32, 64})
    for (int cols : {8, 32, 64})
      for (int vec : {1, 2, 8})
        for (int perPhase : {1, 2, 4})
          for (int maxPhase : {1, 2, 4, 8}) {
            if (vec * maxPhase > cols)
              continue;
            auto l =
                swizzledSharedLayout(rows, cols, {vec, perPhase, maxPhase});
            ASSERT_TRUE(l.isInvertible());
            auto inv = l.invert();
            for (int r = 0; r < rows; ++r)
              for (int c = 0; c < cols; ++c) {
                int phase = (r / perPhase) % maxPhase;
                int expect = r * cols + ((c / vec) ^ phase) * vec + c % vec;
                ASSERT_EQ(inv.apply({{"dim0", r}, {"dim1", c}})[0].second,
                          expect);
              }
          }
}

TEST(SharedMemory, TmaSwizzleModesMatchCutlassSwizzle) {
  EXPECT_EQ(swizzleForMode(128, 2), (SwizzleParams{8, 1, 8}));
  EXPECT_EQ(swizzleForMode(64, 2), (SwizzleParams{8, 2, 4}));
  EXPECT_EQ(swizzleForMode(32, 2), (SwizzleParams{8, 4, 2}));
  EXPECT_EQ(swizzleForMode(128, 4), (SwizzleParams{4, 1, 8}));
  EXPECT_THROW(swizzleForMode(48, 2), LayoutError);
  // Swizzle<B, 4, 3> on byte addresses: bits [4, 4+B) ^= bits [7, 7+B), with
  // the tile stored as column blocks of S bytes.
  for (int elemBytes : {1, 2, 4})
    for (int s : {32, 64, 128}) {
      int bbits = s == 32 ? 1 : s == 64 ? 2 : 3;
      int rows = 32, inner = s / elemBytes, cols = 2 * inner;
      auto l = nvmmaSharedLayout(rows, cols, elemBytes, s);
      auto inv = l.invert();
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
          int64_t a =
              int64_t(c / inner) * rows * s + r * s + (c % inner) * elemBytes;
          int64_t swz = a ^ (((a >> 7) & ((1 << bbits) - 1)) << 4);
          ASSERT_EQ(inv.apply({{"dim0", r}, {"dim1", c}})[0].second * elemBytes,
                    swz)
              << "S=" << s << " e=" << elemBytes << " r=" << r << " c=" << c;
        }
    }
  EXPECT_THROW(nvmmaSharedLayout(8, 16, 2, 128), LayoutError); // too narrow
}

/// ldmatrix.x4 on a 16x16 block of 16-bit elements: lanes 0..7 give the rows
/// of the first 8x8 matrix (rows 0..7, cols 0..7), lanes 8..15 of the second
/// (rows 8..15, cols 0..7), 16..23 the third (rows 0..7, cols 8..15), 24..31
/// the fourth. Each address is 16 bytes. Written out independently of
/// ldmatrixX4Access().
SharedAccess ldmatrix(int row0, int col0) {
  SharedAccess a;
  a.bytesPerLane = 16;
  for (int m = 0; m < 4; ++m)
    for (int i = 0; i < 8; ++i)
      a.laneCoords.push_back({row0 + (m % 2) * 8 + i, col0 + (m / 2) * 8});
  return a;
}

int worstConflicts(const LinearLayout &shared, int rows, int cols,
                   const BankModel &bm) {
  int worst = 0;
  for (int r = 0; r < rows; r += 16)
    for (int c = 0; c < cols; c += 16)
      worst = std::max(
          worst, countBankConflicts(shared, 2, bm, ldmatrix(r, c)).conflicts);
  return worst;
}

TEST(SharedMemory, CounterBasics) {
  BankModel bm{32, 4};
  auto l = swizzledSharedLayout(32, 32, {1, 1, 1}); // 32x32 f32 row-major
  SharedAccess row, col;
  row.bytesPerLane = col.bytesPerLane = 4;
  for (int i = 0; i < 32; ++i) {
    row.laneCoords.push_back({0, i});
    col.laneCoords.push_back({i, 0});
  }
  auto rr = countBankConflicts(l, 4, bm, row);
  EXPECT_EQ(rr.phases, 1);
  EXPECT_EQ(rr.conflicts, 0);
  auto cr = countBankConflicts(l, 4, bm, col);
  EXPECT_EQ(cr.conflicts, 31); // every lane in bank 0, 32 distinct words
  // Same word: broadcast, no conflict.
  SharedAccess same;
  same.bytesPerLane = 4;
  same.laneCoords.assign(32, {3, 5});
  EXPECT_EQ(countBankConflicts(l, 4, bm, same).conflicts, 0);
}

TEST(SharedMemory, ChosenSwizzleIsConflictFreeForLdmatrix) {
  BankModel bm{32, 4};
  // 128x32 f16: 64-byte rows.
  {
    SwizzleParams p = chooseSwizzle(128, 32, 2, bm);
    EXPECT_EQ(p, (SwizzleParams{8, 2, 4}));
    auto swz = swizzledSharedLayout(128, 32, p);
    auto plain = swizzledSharedLayout(128, 32, {1, 1, 1});
    EXPECT_EQ(worstConflicts(swz, 128, 32, bm), 0);
    EXPECT_GT(worstConflicts(plain, 128, 32, bm), 0);
    // Same as the TMA 64-byte mode.
    EXPECT_EQ(swz, nvmmaSharedLayout(128, 32, 2, 64));
  }
  // 32x128 f16: 256-byte rows.
  {
    SwizzleParams p = chooseSwizzle(32, 128, 2, bm);
    EXPECT_EQ(p, (SwizzleParams{8, 1, 8}));
    auto swz = swizzledSharedLayout(32, 128, p);
    auto plain = swizzledSharedLayout(32, 128, {1, 1, 1});
    EXPECT_EQ(worstConflicts(swz, 32, 128, bm), 0);
    // 256-byte rows: the 8 rows of each phase hit the same 4 banks, 8-way, in
    // each of the 4 phases: 4 * 7 extra wavefronts.
    EXPECT_EQ(worstConflicts(plain, 32, 128, bm), 28);
    EXPECT_EQ(worstConflicts(nvmmaSharedLayout(32, 128, 2, 128), 32, 128, bm),
              0);
  }
  // The library's ldmatrix pattern is the same access.
  EXPECT_EQ(ldmatrixX4Access(16, 8).laneCoords.size(), 32u);
  auto l = swizzledSharedLayout(32, 128, {1, 1, 1});
  EXPECT_EQ(countBankConflicts(l, 2, bm, ldmatrixX4Access(0, 0)).wavefronts,
            countBankConflicts(l, 2, bm, ldmatrix(0, 0)).wavefronts);
}

TEST(SharedMemory, OtherBankModels) {
  // A made-up target with 8 banks of 4 bytes: 32 bytes per cycle, 2 lanes of
  // 16 bytes per phase.
  BankModel small{8, 4};
  SwizzleParams p = chooseSwizzle(64, 64, 2, small);
  auto swz = swizzledSharedLayout(64, 64, p);
  EXPECT_EQ(worstConflicts(swz, 64, 64, small), 0);
  EXPECT_GT(
      worstConflicts(swizzledSharedLayout(64, 64, {1, 1, 1}), 64, 64, small),
      0);
  // 64 banks (some AMD LDS modes): still conflict-free.
  BankModel wide{64, 4};
  auto w = swizzledSharedLayout(64, 64, chooseSwizzle(64, 64, 2, wide));
  EXPECT_EQ(worstConflicts(w, 64, 64, wide), 0);
}

} // namespace
