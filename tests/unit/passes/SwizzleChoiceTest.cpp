//===- SwizzleChoiceTest.cpp - chosen swizzles are bank-conflict free -----===//
//
// For every shared tile of the examples and every shipped target (plus the
// made-up one), the swizzle tessera-swizzle-shared chooses makes both the
// MMA-operand reads (a column of 16-byte chunks over consecutive rows) and
// the copy writes (consecutive chunks of consecutive rows) conflict-free
// under the target's bank model.
//
//===----------------------------------------------------------------------===//

#include "tessera/Passes/SwizzleChoice.h"
#include "tessera/target/TargetDescription.h"

#include <gtest/gtest.h>

using namespace tessera;

namespace {

struct TileCase {
  int rows, cols, elemBytes;
};
// The shared tiles of examples/*.mlir.
const TileCase kTiles[] = {
    {128, 32, 2}, {32, 128, 2}, {64, 128, 2}, {64, 32, 4}, {32, 64, 4}};

std::vector<std::string> targetFiles() {
  std::vector<std::string> files;
  for (const std::string &f : target::shippedTargetFiles())
    files.push_back(std::string(TESSERA_SOURCE_DIR) + "/" + f);
  files.push_back(std::string(TESSERA_SOURCE_DIR) +
                  "/tests/unit/target/made_up.toml");
  return files;
}

struct Counts {
  int reads = 0, writes = 0;
};

Counts conflicts(const TileCase &t, const target::TargetDescription &d,
                 layout::SwizzleParams p, int access) {
  layout::LinearLayout l = layout::swizzledSharedLayout(t.rows, t.cols, p);
  Counts c;
  int vec = access / t.elemBytes;
  for (int r0 = 0; r0 < t.rows; r0 += std::min(t.rows, 16))
    for (int c0 = 0; c0 < t.cols; c0 += vec)
      c.reads += layout::countBankConflicts(
                     l, t.elemBytes, d.banks,
                     passes::columnChunkAccess(t.rows, t.cols, t.elemBytes,
                                               access, d.warpSize, r0, c0))
                     .conflicts;
  int rowsPerInstr = std::max(1, d.warpSize * vec / t.cols);
  for (int r0 = 0; r0 < t.rows; r0 += rowsPerInstr)
    c.writes += layout::countBankConflicts(
                    l, t.elemBytes, d.banks,
                    passes::rowChunkAccess(t.rows, t.cols, t.elemBytes, access,
                                           d.warpSize, r0))
                    .conflicts;
  return c;
}

TEST(SwizzleChoice, ExampleTilesAreConflictFreeOnEveryTarget) {
  for (const std::string &file : targetFiles()) {
    std::string err;
    auto d = target::loadTargetDescription(file, &err);
    ASSERT_TRUE(d) << err;
    for (const TileCase &t : kTiles) {
      int access = passes::sharedAccessBytes(t.cols, t.elemBytes,
                                             d->globalLoadVectorBytes);
      layout::SwizzleParams p = passes::chooseSharedSwizzle(
          t.rows, t.cols, t.elemBytes, d->banks, access);
      Counts c = conflicts(t, *d, p, access);
      EXPECT_EQ(c.reads, 0) << d->name << " " << t.rows << "x" << t.cols
                            << " elem " << t.elemBytes << " swizzle <" << p.vec
                            << "," << p.perPhase << "," << p.maxPhase << ">";
      EXPECT_EQ(c.writes, 0) << d->name << " " << t.rows << "x" << t.cols;
    }
  }
}

TEST(SwizzleChoice, RowMajorWouldConflict) {
  std::string err;
  auto d = target::loadTargetDescription(
      std::string(TESSERA_SOURCE_DIR) + "/backends/cuda/targets/sm_90a.toml",
      &err);
  ASSERT_TRUE(d) << err;
  // 256-byte rows: every row of a column read starts in bank 0.
  Counts c = conflicts({32, 128, 2}, *d, {1, 1, 1}, 16);
  EXPECT_GT(c.reads, 0);
  layout::SwizzleParams p =
      passes::chooseSharedSwizzle(32, 128, 2, d->banks, 16);
  EXPECT_EQ(p, (layout::SwizzleParams{8, 1, 8}));
  p = passes::chooseSharedSwizzle(128, 32, 2, d->banks, 16);
  EXPECT_EQ(p, (layout::SwizzleParams{8, 2, 4}));
}

TEST(SwizzleChoice, AccessWidth) {
  EXPECT_EQ(passes::sharedAccessBytes(32, 2, 16), 16);
  EXPECT_EQ(passes::sharedAccessBytes(32, 4, 64), 16); // capped at 16 bytes
  EXPECT_EQ(passes::sharedAccessBytes(2, 2, 16), 4);   // capped by the row
  EXPECT_EQ(passes::sharedAccessBytes(64, 2, 8), 8);
}

} // namespace
