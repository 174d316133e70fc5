// The GF(2) algebra against brute-force index maps: exhaustive on small
// shapes, random (fixed seed) on larger ones.
#include "TestUtil.h"
#include "tessera/layout/NamedLayouts.h"

#include <gtest/gtest.h>

using namespace tessera::layout;
using namespace tessera::layout::test;

namespace {

int32_t coord(const NamedInts &v, const std::string &n) {
  for (auto &p : v)
    if (p.first == n)
      return p.second;
  return 0;
}

TEST(LinearLayout, IdentityAndZeros) {
  auto id = LinearLayout::identity1D(16, "lane", "dim0");
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(id.apply({{"lane", i}})[0].second, i);
  auto z = LinearLayout::zeros1D(8, "register", "dim0", 4);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(z.apply({{"register", i}})[0].second, 0);
  EXPECT_EQ(z.getOutDimSize("dim0"), 4);
  EXPECT_EQ(z.getFreeVariableMasks()[0].second, 7);
  auto s = LinearLayout::strided1D(4, 8, "lane", "dim0");
  EXPECT_EQ(s.apply({{"lane", 3}})[0].second, 24);
  EXPECT_TRUE(id.isInvertible());
  EXPECT_FALSE(z.isSurjective());
}

TEST(LinearLayout, ApplyIsXorOfBases) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 50; ++trial) {
    auto l = randomLayout(rng, {{"register", 4}, {"lane", 8}, {"warp", 2}},
                          {{"dim0", 8}, {"dim1", 16}});
    auto t = table(l);
    for (int64_t a = 0; a < int64_t(t.size()); ++a)
      for (int64_t b = 0; b < int64_t(t.size()); ++b)
        ASSERT_EQ(t[a ^ b], t[a] ^ t[b]);
  }
}

TEST(LinearLayout, ConstructionErrors) {
  EXPECT_THROW(LinearLayout({{"register", {{4}}}}, {{"dim0", 4}}),
               LayoutError); // value outside the dim
  EXPECT_THROW(LinearLayout({{"register", {{1, 0}}}}, {{"dim0", 4}}),
               LayoutError); // wrong arity
  EXPECT_THROW(LinearLayout::identity1D(6, "lane", "dim0"), LayoutError);
  try {
    LinearLayout({{"register", {{1}}}}, {{"dim0", 3}});
    FAIL();
  } catch (const LayoutError &e) {
    EXPECT_NE(std::string(e.what()).find("power of two"), std::string::npos);
  }
}

// Every layout from 3 input bits (register:2, lane:4) to 3 output bits
// (dim0:2, dim1:4): 512 layouts.
std::vector<LinearLayout> allSmallLayouts() {
  std::vector<LinearLayout> r;
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      for (int c = 0; c < 8; ++c) {
        auto bv = [](int v) { return LinearLayout::Basis{v & 1, v >> 1}; };
        r.emplace_back(LinearLayout::Bases{{"register", {bv(a)}},
                                           {"lane", {bv(b), bv(c)}}},
                       NamedInts{{"dim0", 2}, {"dim1", 4}});
      }
  return r;
}

TEST(LinearLayout, ExhaustiveSmallInversion) {
  int invertible = 0;
  for (auto &l : allSmallLayouts()) {
    auto t = table(l);
    std::vector<int> hits(8, 0);
    for (auto v : t)
      ++hits[v];
    bool bij =
        std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; });
    ASSERT_EQ(l.isInvertible(), bij) << l;
    ASSERT_EQ(l.isInjective(), bij) << l; // square: injective == bijective
    ASSERT_EQ(l.isSurjective(), bij) << l;
    if (!bij) {
      EXPECT_THROW(l.invert(), LayoutError);
      EXPECT_THROW(l.pseudoinvert(), LayoutError);
      continue;
    }
    ++invertible;
    auto inv = l.invert();
    EXPECT_EQ(inv.getInDimNames(), (std::vector<std::string>{"dim0", "dim1"}));
    for (int64_t x = 0; x < 8; ++x) {
      auto in = unflattenIns(l, x);
      ASSERT_EQ(inv.apply(l.apply(in)), in) << l;
      auto y = unflattenIns(inv, x);
      ASSERT_EQ(l.apply(inv.apply(y)), y) << l;
    }
    EXPECT_TRUE(l.compose(inv).equalIgnoringDimOrder(
        LinearLayout::identity1D(2, "register", "register") *
        LinearLayout::identity1D(4, "lane", "lane")));
  }
  EXPECT_EQ(invertible, 168); // |GL(3, 2)|
}

TEST(LinearLayout, ExhaustiveSmallCompose) {
  auto all = allSmallLayouts();
  // Outer layouts read (dim0, dim1) and write (x:4, y:2).
  std::mt19937 rng(7);
  for (int k = 0; k < 64; ++k) {
    auto outer =
        randomLayout(rng, {{"dim0", 2}, {"dim1", 4}}, {{"x", 4}, {"y", 2}});
    auto to = table(outer);
    for (auto &l : all) {
      auto c = l.compose(outer);
      auto tl = table(l), tc = table(c);
      for (int64_t x = 0; x < 8; ++x) {
        // l's flat output is row-major (dim1 fastest); outer's flat input is
        // dim0 lowest: convert.
        int64_t o = tl[x];
        int64_t d0 = o / 4, d1 = o % 4;
        ASSERT_EQ(tc[x], to[d0 | (d1 << 1)]);
      }
    }
  }
}

TEST(LinearLayout, RandomInvertRoundTrip) {
  std::mt19937 rng(42);
  int found = 0;
  for (int trial = 0; trial < 400 && found < 60; ++trial) {
    auto l = randomLayout(rng, {{"register", 4}, {"lane", 16}, {"warp", 4}},
                          {{"dim0", 16}, {"dim1", 16}});
    if (!l.isInvertible()) {
      EXPECT_THROW(l.invert(), LayoutError);
      continue;
    }
    ++found;
    auto inv = l.invert();
    auto t = table(l), ti = table(inv);
    // inv's input is (dim0, dim1) flattened dim0-lowest; l's output is
    // row-major. Compare through coordinates.
    for (int64_t x = 0; x < int64_t(t.size()); ++x) {
      auto out = l.apply(unflattenIns(l, x));
      auto back = inv.apply(out);
      ASSERT_EQ(back, unflattenIns(l, x));
    }
  }
  EXPECT_GT(found, 10);
}

TEST(LinearLayout, PseudoInverseOfSurjective) {
  std::mt19937 rng(99);
  int found = 0;
  for (int trial = 0; trial < 200; ++trial) {
    auto l = randomLayout(rng, {{"register", 8}, {"lane", 8}, {"warp", 2}},
                          {{"dim0", 8}, {"dim1", 8}});
    if (!l.isSurjective()) {
      EXPECT_THROW(l.pseudoinvert(), LayoutError);
      continue;
    }
    ++found;
    auto p = l.pseudoinvert();
    for (int d0 = 0; d0 < 8; ++d0)
      for (int d1 = 0; d1 < 8; ++d1) {
        NamedInts y = {{"dim0", d0}, {"dim1", d1}};
        ASSERT_EQ(l.apply(p.apply(y)), y);
      }
  }
  EXPECT_GT(found, 20);
  // Preference: registers before lanes when both reach an element.
  auto bcast =
      LinearLayout({{"register", {{1}}}, {"lane", {{1}, {2}}}}, {{"dim0", 4}});
  auto p = bcast.pseudoinvert();
  EXPECT_EQ(coord(p.apply({{"dim0", 1}}), "register"), 1);
  EXPECT_EQ(coord(p.apply({{"dim0", 1}}), "lane"), 0);
}

TEST(LinearLayout, InvertAndCompose) {
  std::mt19937 rng(5);
  int checked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    auto a = randomLayout(rng, {{"register", 4}, {"lane", 8}, {"warp", 2}},
                          {{"dim0", 8}, {"dim1", 8}});
    auto b = randomLayout(rng, {{"register", 8}, {"lane", 8}},
                          {{"dim0", 8}, {"dim1", 8}});
    if (!b.isSurjective())
      continue;
    ++checked;
    auto c = a.invertAndCompose(b);
    for (int64_t x = 0; x < a.getTotalInDimSize(); ++x) {
      auto in = unflattenIns(a, x);
      ASSERT_EQ(b.apply(c.apply(in)), a.apply(in));
    }
  }
  EXPECT_GT(checked, 20);
  // Image not contained: error.
  auto narrow = LinearLayout({{"lane", {{1}}}}, {{"dim0", 4}});
  auto wide = LinearLayout::identity1D(4, "lane", "dim0");
  EXPECT_THROW(wide.invertAndCompose(narrow), LayoutError);
}

TEST(LinearLayout, ProductMatchesBruteForce) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    auto a = randomLayout(rng, {{"register", 2}, {"lane", 4}},
                          {{"dim0", 4}, {"dim1", 2}});
    auto b = randomLayout(rng, {{"lane", 2}, {"warp", 4}},
                          {{"dim1", 4}, {"dim2", 2}});
    auto p = a * b;
    EXPECT_EQ(p.getInDimNames(),
              (std::vector<std::string>{"register", "lane", "warp"}));
    EXPECT_EQ(p.getOutDims(),
              (NamedInts{{"dim0", 4}, {"dim1", 8}, {"dim2", 2}}));
    for (int r = 0; r < 2; ++r)
      for (int l = 0; l < 8; ++l)
        for (int w = 0; w < 4; ++w) {
          auto oa = a.apply({{"register", r}, {"lane", l % 4}});
          auto ob = b.apply({{"lane", l / 4}, {"warp", w}});
          auto op = p.apply({{"register", r}, {"lane", l}, {"warp", w}});
          ASSERT_EQ(coord(op, "dim0"), coord(oa, "dim0"));
          ASSERT_EQ(coord(op, "dim1"),
                    coord(oa, "dim1") ^ (coord(ob, "dim1") * 2));
          ASSERT_EQ(coord(op, "dim2"), coord(ob, "dim2"));
        }
    // Division undoes the product.
    auto c = p.divideLeft(a);
    ASSERT_TRUE(c.has_value());
    EXPECT_TRUE(c->equalIgnoringDimOrder(b)) << *c << " vs " << b;
    auto d = p.divideRight(b);
    ASSERT_TRUE(d.has_value());
    EXPECT_TRUE(d->equalIgnoringDimOrder(a)) << *d << " vs " << a;
    EXPECT_TRUE(a.isSubLayoutOf(p));
  }
}

TEST(LinearLayout, DivisionFailsWhenNotAFactor) {
  auto l = LinearLayout({{"register", {{0, 1}, {1, 0}}}},
                        {{"dim0", 2}, {"dim1", 2}});
  auto rowFirst = LinearLayout::identity1D(2, "register", "dim0");
  EXPECT_FALSE(l.divideLeft(rowFirst).has_value());
  auto colFirst = LinearLayout::identity1D(2, "register", "dim1");
  auto q = l.divideLeft(colFirst);
  ASSERT_TRUE(q.has_value());
  EXPECT_TRUE((colFirst * *q).equalIgnoringDimOrder(l));
  EXPECT_FALSE(rowFirst.isSubLayoutOf(l));
  EXPECT_TRUE(colFirst.isSubLayoutOf(l));
}

TEST(LinearLayout, ReshapeAndTranspose) {
  std::mt19937 rng(3);
  auto l = randomLayout(rng, {{"register", 8}, {"lane", 4}},
                        {{"dim0", 8}, {"dim1", 4}});
  auto r = l.reshapeOuts({{"x", 2}, {"y", 16}});
  auto t = l.transposeOuts({"dim1", "dim0"});
  for (int64_t x = 0; x < 32; ++x) {
    auto in = unflattenIns(l, x);
    auto o = l.apply(in);
    int flat = coord(o, "dim0") * 4 + coord(o, "dim1");
    auto ro = r.apply(in);
    ASSERT_EQ(coord(ro, "x") * 16 + coord(ro, "y"), flat);
    auto to = t.apply(in);
    ASSERT_EQ(to[0].first, "dim1");
    ASSERT_EQ(to[0].second, coord(o, "dim1"));
    ASSERT_EQ(to[1].second, coord(o, "dim0"));
  }
  EXPECT_THROW(l.reshapeOuts({{"x", 4}}), LayoutError);
  auto ri = l.reshapeIns({{"flat", 32}});
  EXPECT_EQ(table(ri), table(l));
}

TEST(LinearLayout, SublayoutsAndFreeBits) {
  auto c = mmaM16N8K16(MmaOperand::C);
  EXPECT_TRUE(c.sublayoutIsZero({"register"}, {}));
  EXPECT_FALSE(c.sublayoutIsZero({"lane"}, {"dim0"}));
  auto laneRows = c.sublayout({"lane"}, {"dim0"});
  EXPECT_EQ(laneRows.getBasis("lane", 2, "dim0"), 1);
  EXPECT_EQ(laneRows.getBasis("lane", 0, "dim0"), 0);
  // Broadcast: 4 registers but two rows only -> register bit 1 is free.
  auto b = LinearLayout({{"register", {{1}, {0}}}, {"lane", {{2}, {2}}}},
                        {{"dim0", 4}});
  EXPECT_EQ(b.getFreeVariableMasks(),
            (NamedInts{{"register", 2}, {"lane", 0}}));
  EXPECT_EQ(b.getRedundantMask("lane"), 2); // lane bit 1 duplicates lane bit 0
  EXPECT_EQ(b.getRedundantMask("register"), 2);
}

TEST(LinearLayout, ContiguousRegisters) {
  auto blocked = blockedLayout({{1, 4}, {8, 4}, {4, 1}, {1, 0}, {64, 64}});
  EXPECT_EQ(blocked.getContiguousRegisters("dim1"), 4);
  EXPECT_EQ(blocked.getContiguousRegisters("dim0"), 1);
  EXPECT_EQ(mmaM16N8K16(MmaOperand::C).getContiguousRegisters("dim1"), 2);
  EXPECT_EQ(mmaM16N8K16(MmaOperand::B).getContiguousRegisters("dim0"), 2);
  EXPECT_EQ(mfma32x32x8F16(MmaOperand::C).getContiguousRegisters("dim0"), 4);
}

LinearLayout swapBits(const LinearLayout &l, const std::string &d1, int b1,
                      const std::string &d2, int b2) {
  auto bases = l.getBases();
  LinearLayout::Basis *x = nullptr, *y = nullptr;
  for (auto &[n, bs] : bases) {
    if (n == d1)
      x = &bs[b1];
    if (n == d2)
      y = &bs[b2];
  }
  std::swap(*x, *y);
  return LinearLayout(bases, l.getOutDims());
}

TEST(LinearLayout, ConversionCost) {
  auto l = blockedLayout({{1, 4}, {8, 4}, {2, 2}, {1, 0}, {32, 32}});
  auto withBlock = l * LinearLayout::identity1D(2, "block", "dim0");
  EXPECT_EQ(estimateConversionCost(l, l).kind, ConversionKind::None);
  EXPECT_EQ(estimateConversionCost(l, l).cost, 0.0);
  auto regPerm = swapBits(l, "register", 0, "register", 2);
  auto c1 = estimateConversionCost(l, regPerm);
  EXPECT_EQ(c1.kind, ConversionKind::RegisterPermute);
  auto lanePerm = swapBits(l, "lane", 0, "lane", 3);
  EXPECT_EQ(estimateConversionCost(l, lanePerm).kind,
            ConversionKind::WarpShuffle);
  auto regLane = swapBits(l, "register", 1, "lane", 4);
  auto c2 = estimateConversionCost(l, regLane);
  EXPECT_EQ(c2.kind, ConversionKind::WarpShuffle);
  auto laneWarp = swapBits(l, "lane", 2, "warp", 1);
  auto c3 = estimateConversionCost(l, laneWarp);
  EXPECT_EQ(c3.kind, ConversionKind::SharedMemory);
  auto warpBlock = swapBits(withBlock, "warp", 0, "block", 0);
  EXPECT_EQ(estimateConversionCost(withBlock, warpBlock).kind,
            ConversionKind::CrossBlock);
  EXPECT_LT(c1.cost, c2.cost);
  EXPECT_LT(c2.cost, c3.cost);
  // Dropping a broadcast copy is free of communication.
  auto src =
      LinearLayout({{"register", {{1}, {0}}}, {"lane", {{2}}}}, {{"dim0", 4}});
  auto dst =
      LinearLayout({{"register", {{1}}}, {"lane", {{2}}}}, {{"dim0", 4}});
  EXPECT_EQ(estimateConversionCost(src, dst).kind,
            ConversionKind::RegisterPermute);
  // MMA accumulator to a row-wise blocked layout needs lanes to talk.
  auto mmaC = tileAtom(mmaM16N8K16(MmaOperand::C), {2, 2}, {32, 16});
  auto rows = blockedLayout({{1, 4}, {8, 4}, {2, 2}, {1, 0}, {32, 16}});
  EXPECT_GE(int(estimateConversionCost(mmaC, rows).kind),
            int(ConversionKind::WarpShuffle));
}

} // namespace
