// Named layouts against the vendors' documented register maps. The reference
// maps below are written from the ISA documents' formulas, not from the
// construction code.
#include "tessera/layout/NamedLayouts.h"
#include "TestUtil.h"
#include "tessera/layout/LayoutSpec.h"

#include <functional>
#include <gtest/gtest.h>

using namespace tessera::layout;
using namespace tessera::layout::test;

namespace {

using RefMap = std::function<std::pair<int, int>(int reg, int lane, int warp)>;

/// Checks l(reg, lane, warp) == ref(reg, lane, warp) for all inputs, and
/// that the layout covers rows x cols.
void expectMatches(const LinearLayout &l, int regs, int lanes, int warps,
                   int rows, int cols, const RefMap &ref) {
  ASSERT_EQ(l.getInDimSize(kRegister), regs) << l;
  ASSERT_EQ(l.getInDimSize(kLane), lanes) << l;
  ASSERT_EQ(l.getInDimSize(kWarp), warps) << l;
  ASSERT_EQ(l.getOutDimSize("dim0"), rows);
  ASSERT_EQ(l.getOutDimSize("dim1"), cols);
  for (int w = 0; w < warps; ++w)
    for (int ln = 0; ln < lanes; ++ln)
      for (int r = 0; r < regs; ++r) {
        auto out = l.apply({{kRegister, r}, {kLane, ln}, {kWarp, w}});
        auto [row, col] = ref(r, ln, w);
        ASSERT_EQ(out[0].second, row)
            << "reg " << r << " lane " << ln << " warp " << w;
        ASSERT_EQ(out[1].second, col)
            << "reg " << r << " lane " << ln << " warp " << w;
      }
  EXPECT_TRUE(l.isSurjective());
}

// PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type".
TEST(NamedLayouts, MmaM16N8K16A) {
  expectMatches(
      mmaM16N8K16(MmaOperand::A), 8, 32, 1, 16, 16, [](int i, int lane, int) {
        int groupID = lane >> 2, tig = lane % 4;
        int row = (i < 2 || (i >= 4 && i < 6)) ? groupID : groupID + 8;
        int col = i < 4 ? tig * 2 + (i & 1) : tig * 2 + (i & 1) + 8;
        return std::make_pair(row, col);
      });
  EXPECT_TRUE(mmaM16N8K16(MmaOperand::A).isInvertible());
}

TEST(NamedLayouts, MmaM16N8K16B) {
  expectMatches(mmaM16N8K16(MmaOperand::B), 4, 32, 1, 16, 8,
                [](int i, int lane, int) {
                  int groupID = lane >> 2, tig = lane % 4;
                  int row = i < 2 ? tig * 2 + (i & 1) : tig * 2 + (i & 1) + 8;
                  return std::make_pair(row, groupID);
                });
}

TEST(NamedLayouts, MmaM16N8K16C) {
  expectMatches(mmaM16N8K16(MmaOperand::C), 4, 32, 1, 16, 8,
                [](int i, int lane, int) {
                  int groupID = lane >> 2, tig = lane % 4;
                  int row = i < 2 ? groupID : groupID + 8;
                  return std::make_pair(row, tig * 2 + (i & 1));
                });
}

// PTX ISA, "wgmma .m64nNk16 register fragment layout for accumulator D":
// warp w of the warpgroup holds rows 16w..16w+15.
TEST(NamedLayouts, WgmmaAccumulator) {
  for (int n = 8; n <= 256; n *= 2) {
    SCOPED_TRACE("N=" + std::to_string(n));
    expectMatches(wgmmaM64K16Acc(n), n / 2, 32, 4, 64, n,
                  [](int i, int lane, int w) {
                    int groupID = lane >> 2, tig = lane % 4;
                    int row = 16 * w + groupID + 8 * ((i % 4) / 2);
                    int col = 8 * (i / 4) + tig * 2 + (i & 1);
                    return std::make_pair(row, col);
                  });
    EXPECT_TRUE(wgmmaM64K16Acc(n).isInvertible());
    EXPECT_EQ(parseLayoutSpec("wgmma_m64n" + std::to_string(n) + "k16_acc"),
              wgmmaM64K16Acc(n));
  }
  EXPECT_THROW(wgmmaM64K16Acc(24), LayoutError);
  EXPECT_THROW(wgmmaM64K16Acc(512), LayoutError);
}

TEST(NamedLayouts, WgmmaA) {
  expectMatches(wgmmaM64K16A(), 8, 32, 4, 64, 16, [](int i, int lane, int w) {
    int groupID = lane >> 2, tig = lane % 4;
    int row = 16 * w + ((i < 2 || (i >= 4 && i < 6)) ? groupID : groupID + 8);
    int col = i < 4 ? tig * 2 + (i & 1) : tig * 2 + (i & 1) + 8;
    return std::make_pair(row, col);
  });
}

// AMD CDNA3 ISA / matrix instruction calculator, v_mfma_f32_32x32x8_f16:
// A[i][k]: lane = i + 32*(k/4), item = k%4; B likewise with j;
// D[i][j]: lane = j + 32*((i/4)%2), item = (i%4) + 4*(i/8).
TEST(NamedLayouts, Mfma32x32x8) {
  expectMatches(mfma32x32x8F16(MmaOperand::A), 4, 64, 1, 32, 8,
                [](int r, int l, int) {
                  return std::make_pair(l % 32, 4 * (l / 32) + r);
                });
  expectMatches(mfma32x32x8F16(MmaOperand::B), 4, 64, 1, 8, 32,
                [](int r, int l, int) {
                  return std::make_pair(4 * (l / 32) + r, l % 32);
                });
  expectMatches(
      mfma32x32x8F16(MmaOperand::C), 16, 64, 1, 32, 32, [](int r, int l, int) {
        return std::make_pair(8 * (r / 4) + 4 * (l / 32) + r % 4, l % 32);
      });
  // Cross-check the accumulator the other way round, from the element side.
  auto inv = mfma32x32x8F16(MmaOperand::C).invert();
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) {
      auto hw = inv.apply({{"dim0", i}, {"dim1", j}});
      EXPECT_EQ(hw[0].second, (i % 4) + 4 * (i / 8));  // register
      EXPECT_EQ(hw[1].second, j + 32 * ((i / 4) % 2)); // lane
    }
}

// v_mfma_f32_16x16x16_f16: A[i][k]: lane = i + 16*(k/4), item = k%4;
// D[i][j]: lane = j + 16*(i/4), item = i%4.
TEST(NamedLayouts, Mfma16x16x16) {
  expectMatches(mfma16x16x16F16(MmaOperand::A), 4, 64, 1, 16, 16,
                [](int r, int l, int) {
                  return std::make_pair(l % 16, 4 * (l / 16) + r);
                });
  expectMatches(mfma16x16x16F16(MmaOperand::B), 4, 64, 1, 16, 16,
                [](int r, int l, int) {
                  return std::make_pair(4 * (l / 16) + r, l % 16);
                });
  expectMatches(mfma16x16x16F16(MmaOperand::C), 4, 64, 1, 16, 16,
                [](int r, int l, int) {
                  return std::make_pair(4 * (l / 16) + r, l % 16);
                });
}

// RDNA3 ISA "WMMA": wave32; A: lane l holds row l%16, all 16 K values, lanes
// 16..31 replicate lanes 0..15; B: lane holds column l%16; 32-bit C/D: VGPR r
// of lane l holds D[2r + l/16][l%16].
TEST(NamedLayouts, Wmma16x16x16) {
  expectMatches(wmma16x16x16F16(MmaOperand::A), 16, 32, 1, 16, 16,
                [](int r, int l, int) { return std::make_pair(l % 16, r); });
  expectMatches(wmma16x16x16F16(MmaOperand::B), 16, 32, 1, 16, 16,
                [](int r, int l, int) { return std::make_pair(r, l % 16); });
  expectMatches(
      wmma16x16x16F16(MmaOperand::C), 8, 32, 1, 16, 16,
      [](int r, int l, int) { return std::make_pair(2 * r + l / 16, l % 16); });
  EXPECT_FALSE(wmma16x16x16F16(MmaOperand::A).isInjective()); // replicated
  EXPECT_EQ(wmma16x16x16F16(MmaOperand::A).getFreeVariableMasks()[1].second,
            16);
}

/// Triton's blocked layout, written out: coordinate along dim d is
/// rep_d*tile_d + warp_d*tpw_d*spt_d + lane_d*spt_d + r_d, wrapped modulo the
/// shape; registers enumerate sizePerThread (order[0] fastest) and then the
/// repetitions (order[0] fastest); lanes and warps likewise.
void expectBlocked(const BlockedSpec &s) {
  auto l = blockedLayout(s);
  int rank = int(s.order.size());
  std::vector<int> tile(rank), reps(rank);
  int regs = 1, lanes = 1, warps = 1;
  for (int d = 0; d < rank; ++d) {
    tile[d] = s.sizePerThread[d] * s.threadsPerWarp[d] * s.warpsPerBlock[d];
    reps[d] = std::max(1, s.shape[d] / tile[d]);
    regs *= s.sizePerThread[d] * reps[d];
    lanes *= s.threadsPerWarp[d];
    warps *= s.warpsPerBlock[d];
  }
  ASSERT_EQ(l.getInDimSize(kRegister), regs);
  auto split = [&](int v, const std::vector<int32_t> &sizes) {
    std::vector<int> r(rank);
    for (int d : s.order) {
      r[d] = v % sizes[d];
      v /= sizes[d];
    }
    return r;
  };
  std::vector<int32_t> reps32(reps.begin(), reps.end());
  for (int reg = 0; reg < regs; ++reg)
    for (int ln = 0; ln < lanes; ++ln)
      for (int w = 0; w < warps; ++w) {
        int perThread = 1;
        for (int d = 0; d < rank; ++d)
          perThread *= s.sizePerThread[d];
        auto rr = split(reg % perThread, s.sizePerThread);
        auto rep = split(reg / perThread, reps32);
        auto lc = split(ln, s.threadsPerWarp);
        auto wc = split(w, s.warpsPerBlock);
        auto out = l.apply({{kRegister, reg}, {kLane, ln}, {kWarp, w}});
        for (int d = 0; d < rank; ++d) {
          int c = rep[d] * tile[d] +
                  wc[d] * s.threadsPerWarp[d] * s.sizePerThread[d] +
                  lc[d] * s.sizePerThread[d] + rr[d];
          ASSERT_EQ(out[d].second, c % s.shape[d])
              << "dim " << d << " reg " << reg << " lane " << ln << " warp "
              << w;
        }
      }
}

TEST(NamedLayouts, Blocked) {
  expectBlocked({{1, 4}, {8, 4}, {4, 1}, {1, 0}, {32, 16}}); // exact
  expectBlocked({{1, 4}, {8, 4}, {4, 1}, {1, 0}, {64, 64}}); // repeats
  expectBlocked({{2, 2}, {4, 8}, {2, 2}, {0, 1}, {32, 64}}); // column-major
  expectBlocked({{1, 8}, {4, 8}, {4, 1}, {1, 0}, {8, 64}});  // broadcast rows
  expectBlocked({{1, 1, 4}, {2, 4, 4}, {1, 2, 2}, {2, 1, 0}, {4, 16, 32}});
  auto l = blockedLayout({{1, 8}, {4, 8}, {4, 1}, {1, 0}, {8, 64}});
  EXPECT_EQ(l.getFreeVariableMasks()[2].second, 2); // warp bit 1 broadcasts
  EXPECT_EQ(parseLayoutSpec("blocked:sizePerThread=1x4,threadsPerWarp=8x4,"
                            "warpsPerBlock=4x1,order=1x0,shape=64x64"),
            blockedLayout({{1, 4}, {8, 4}, {4, 1}, {1, 0}, {64, 64}}));
}

TEST(NamedLayouts, VectorizedCopy) {
  // 64x64 f16, 4 warps of 32: 16 bytes = 8 halves per thread along dim1.
  auto l = vectorizedCopyLayout({64, 64}, 2, 32, 4);
  EXPECT_EQ(l.getContiguousRegisters("dim1"), 8);
  EXPECT_TRUE(l.isInvertible());
  EXPECT_EQ(l.getInDimSize(kLane), 32);
  EXPECT_EQ(l.getInDimSize(kWarp), 4);
  // Lanes 0..7 cover one 64-element row in order: coalesced.
  for (int ln = 0; ln < 8; ++ln) {
    auto o = l.apply({{kLane, ln}});
    EXPECT_EQ(o[0].second, 0);
    EXPECT_EQ(o[1].second, 8 * ln);
  }
  // f32 128x32 column-major (dim0 contiguous), warp size 64.
  auto c = vectorizedCopyLayout({128, 32}, 4, 64, 4, {0, 1});
  EXPECT_EQ(c.getContiguousRegisters("dim0"), 4);
  EXPECT_TRUE(c.isInvertible());
  // Tiny tile: more threads than vectors -> broadcast, still surjective.
  auto t = vectorizedCopyLayout({4, 8}, 2, 32, 1);
  EXPECT_TRUE(t.isSurjective());
  EXPECT_FALSE(t.isInjective());
}

TEST(NamedLayouts, TileAtom) {
  auto atom = mmaM16N8K16(MmaOperand::C);
  auto l = tileAtom(atom, {2, 2}, {64, 64});
  EXPECT_TRUE(l.isInvertible());
  EXPECT_EQ(l.getInDimSize(kWarp), 4);
  EXPECT_EQ(l.getInDimSize(kRegister), 64 * 64 / 128);
  EXPECT_TRUE(atom.isSubLayoutOf(l));
  auto rest = l.divideLeft(atom);
  ASSERT_TRUE(rest.has_value());
  EXPECT_TRUE((atom * *rest).equalIgnoringDimOrder(l));
}

TEST(NamedLayouts, SpecErrors) {
  EXPECT_THROW(parseLayoutSpec("mma_m16n8k16_d"), LayoutError);
  try {
    parseLayoutSpec("blocked:sizePerThread=1x4,threadsPerWarp=8x4,order=1x0");
    FAIL();
  } catch (const LayoutError &e) {
    EXPECT_NE(std::string(e.what()).find("missing key 'warpsPerBlock'"),
              std::string::npos)
        << e.what();
  }
  try {
    parseLayoutSpec(
        "swizzle:rows=8,cols=8,vec=1,perPhase=1,maxPhase=1,colour=red");
    FAIL();
  } catch (const LayoutError &e) {
    EXPECT_NE(std::string(e.what()).find("unknown key 'colour'"),
              std::string::npos);
  }
  EXPECT_THROW(parseLayoutSpec("blocked:sizePerThread=1x3,threadsPerWarp=8x4,"
                               "warpsPerBlock=1x1,order=1x0"),
               LayoutError);
  for (auto &s : namedLayoutExamples())
    EXPECT_NO_THROW(parseLayoutSpec(s)) << s;
}

} // namespace
