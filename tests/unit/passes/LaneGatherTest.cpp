//===- LaneGatherTest.cpp - gathering operands held compactly -------------===//
//
// A gemm operand held in a compact layout is read, each k-step, from the
// lanes holding it (core/passes/lib/LaneGather.h). These tests follow each
// plan the way distribution emits it (lane L takes the choice whose
// laneValues hold L & laneBits, then register `reg` of lane L ^ laneXor) and
// check that every lane gets the element the matrix instruction reads there,
// for every atom of the shipped targets whose operand layout repeats
// elements across lanes.
//
//===----------------------------------------------------------------------===//

#include "LaneGather.h"

#include "tessera/layout/NamedLayouts.h"
#include "tessera/target/TargetDescription.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace tessera;
using layout::LinearLayout;

namespace {

std::vector<int32_t> elementAt(const LinearLayout &l, int64_t reg,
                               int32_t lane) {
  std::vector<int32_t> out;
  for (auto &[name, v] :
       l.apply({{layout::kRegister, int32_t(reg)}, {layout::kLane, lane}}))
    out.push_back(v);
  return out;
}

/// Follows `plan` for every register of `want` and every lane.
void expectGathers(const LinearLayout &held, const LinearLayout &want,
                   const std::vector<passes::GatherRegister> &plan) {
  ASSERT_EQ(int64_t(plan.size()), want.getInDimSize(layout::kRegister));
  int32_t lanes = want.getInDimSize(layout::kLane);
  for (int64_t t = 0; t < int64_t(plan.size()); ++t)
    for (int32_t l = 0; l < lanes; ++l) {
      const passes::GatherRegister &g = plan[t];
      int found = 0;
      for (const passes::GatherChoice &c : g.choices)
        if (std::count(c.laneValues.begin(), c.laneValues.end(),
                       l & g.laneBits)) {
          ++found;
          EXPECT_EQ(elementAt(held, c.reg, l ^ c.laneXor),
                    elementAt(want, t, l))
              << "register " << t << " lane " << l;
        }
      EXPECT_EQ(found, 1) << "register " << t << " lane " << l;
    }
}

bool repeatsAcrossLanes(const LinearLayout &l) {
  for (int i = 0; i < l.getInDimSizeLog2(layout::kLane); ++i) {
    const LinearLayout::Basis &b = l.getBasis(layout::kLane, i);
    if (std::all_of(b.begin(), b.end(), [](int32_t v) { return v == 0; }))
      return true;
  }
  return false;
}

// RDNA3's WMMA A operand: lanes l and l + 16 hold the same row. Held
// compactly, lane 16 + l holds k 8..15 of row l: half the registers, and
// each register of the operand comes from the lane itself or lane l ^ 16.
TEST(LaneGather, Rdna3WmmaAHeldCompactly) {
  std::string error;
  auto t = target::loadTargetDescription(
      std::string(TESSERA_SOURCE_DIR) + "/backends/hip/targets/gfx1100.toml",
      &error);
  ASSERT_TRUE(t) << error;
  const target::MmaAtom *atom = t->findMmaAtom("wmma_16x16x16_f16_f32");
  ASSERT_TRUE(atom && atom->aLayout);
  const LinearLayout &want = *atom->aLayout;
  ASSERT_TRUE(repeatsAcrossLanes(want));
  auto held = passes::compactAcrossLanes(want, /*kDim=*/1, atom->k);
  ASSERT_TRUE(held);
  EXPECT_EQ(held->getInDimSize(layout::kRegister),
            want.getInDimSize(layout::kRegister) / 2);
  EXPECT_FALSE(repeatsAcrossLanes(*held));
  // The repeated lane bit took k = 8, the highest K register bit inside
  // the instruction's 16.
  EXPECT_EQ(held->getBasis(layout::kLane, 4), (LinearLayout::Basis{0, 8}));
  auto plan = passes::planLaneGather(*held, want);
  ASSERT_TRUE(plan);
  for (const passes::GatherRegister &g : *plan) {
    EXPECT_EQ(g.laneBits, 16);
    EXPECT_EQ(g.choices.size(), 2u);
  }
  expectGathers(*held, want, *plan);
}

// Every atom operand layout of the shipped targets that repeats elements
// across lanes can be held compactly and gathered back.
TEST(LaneGather, EveryRepeatingAtomOperand) {
  int checked = 0;
  for (const std::string &f : target::shippedTargetFiles()) {
    std::string error;
    auto t = target::loadTargetDescription(
        std::string(TESSERA_SOURCE_DIR) + "/" + f, &error);
    ASSERT_TRUE(t) << f << ": " << error;
    for (const target::MmaAtom &atom : t->mmaAtoms)
      for (int which = 0; which < 2; ++which) {
        const std::optional<LinearLayout> &want =
            which == 0 ? atom.aLayout : atom.bLayout;
        if (!want || !repeatsAcrossLanes(*want))
          continue;
        // A is M x K (K is dim 1), B is K x N (K is dim 0).
        auto held =
            passes::compactAcrossLanes(*want, which == 0 ? 1 : 0, atom.k);
        if (!held)
          continue; // no register bit along K left to move
        auto plan = passes::planLaneGather(*held, *want);
        ASSERT_TRUE(plan) << t->name << " " << atom.name;
        expectGathers(*held, *want, *plan);
        ++checked;
      }
  }
  EXPECT_GT(checked, 0);
}

TEST(LaneGather, SameLayoutNeedsNoShuffle) {
  LinearLayout l({{layout::kRegister, {{0, 1}, {0, 2}}},
                  {layout::kLane, {{1, 0}, {2, 0}, {0, 4}}}},
                 {{"dim0", 4}, {"dim1", 8}});
  auto plan = passes::planLaneGather(l, l);
  ASSERT_TRUE(plan);
  for (const passes::GatherRegister &g : *plan) {
    EXPECT_EQ(g.laneBits, 0);
    ASSERT_EQ(g.choices.size(), 1u);
    EXPECT_EQ(g.choices[0].laneXor, 0);
  }
  expectGathers(l, l, *plan);
  EXPECT_FALSE(passes::compactAcrossLanes(l, 1, 16)); // nothing repeated
}

// The same warp must hold an element in both layouts: lanes exchange
// values within a warp only.
TEST(LaneGather, RefusesOtherWarpParts) {
  LinearLayout want({{layout::kRegister, {{0, 1}, {0, 2}}},
                     {layout::kLane, {{1, 0}, {0, 0}}},
                     {layout::kWarp, {{2, 0}}}},
                    {{"dim0", 4}, {"dim1", 4}});
  LinearLayout compact({{layout::kRegister, {{0, 1}}},
                        {layout::kLane, {{1, 0}, {0, 2}}},
                        {layout::kWarp, {{2, 0}}}},
                       {{"dim0", 4}, {"dim1", 4}});
  auto plan = passes::planLaneGather(compact, want);
  ASSERT_TRUE(plan);
  expectGathers(compact, want, *plan);
  LinearLayout rowsAcrossWarps({{layout::kRegister, {{0, 1}}},
                                {layout::kLane, {{2, 0}, {0, 2}}},
                                {layout::kWarp, {{1, 0}}}},
                               {{"dim0", 4}, {"dim1", 4}});
  EXPECT_FALSE(passes::planLaneGather(rowsAcrossWarps, want));
}

} // namespace
