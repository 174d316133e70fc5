// Tables, SVG and the --dump-layouts entry point.
#include "tessera/layout/Print.h"
#include "tessera/layout/LayoutSpec.h"
#include "tessera/layout/NamedLayouts.h"
#include "tessera/layout/SharedMemory.h"

#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace tessera::layout;

namespace {

size_t count(const std::string &s, const std::string &what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1))
    ++n;
  return n;
}

TEST(Print, MmaAccumulatorTable) {
  auto c = mmaM16N8K16(MmaOperand::C);
  EXPECT_EQ(elementLabel(c, {0, 0}), "T0:r0");
  EXPECT_EQ(elementLabel(c, {0, 1}), "T0:r1");
  EXPECT_EQ(elementLabel(c, {0, 2}), "T1:r0");
  EXPECT_EQ(elementLabel(c, {8, 0}), "T0:r2");
  EXPECT_EQ(elementLabel(c, {15, 7}), "T31:r3");
  std::string t = layoutTableString(c);
  EXPECT_EQ(count(t, "\n"), 1u + 1u + 16u); // comment, header, 16 rows
  EXPECT_NE(t.find(" 1:  T4:r0  T4:r1  T5:r0"), std::string::npos) << t;
}

TEST(Print, WarpsAndBroadcast) {
  auto acc = wgmmaM64K16Acc(8);
  EXPECT_EQ(elementLabel(acc, {16, 0}), "T32:r0"); // warp 1, lane 0
  auto a = wmma16x16x16F16(MmaOperand::A);
  EXPECT_EQ(elementLabel(a, {1, 3}), "T1:r3*"); // lanes 1 and 17 hold it
  auto partial = LinearLayout({{"lane", {{1}}}}, {{"dim0", 4}});
  EXPECT_EQ(elementLabel(partial, {2}), "-");
  auto shared = swizzledSharedLayout(8, 8, {2, 1, 4});
  EXPECT_EQ(elementLabel(shared, {1, 0}), "10"); // offset 8 + 2
}

TEST(Print, Svg) {
  std::ostringstream os;
  printLayoutSVG(mmaM16N8K16(MmaOperand::C), os);
  std::string s = os.str();
  EXPECT_EQ(s.rfind("<svg", 0), 0u);
  EXPECT_EQ(count(s, "<rect"), 128u);
  EXPECT_NE(s.find(">T0:r0<"), std::string::npos);
  EXPECT_NE(s.find(">T31:r3<"), std::string::npos);
  EXPECT_NE(s.find("</svg>"), std::string::npos);
}

TEST(Print, DumpLayoutsMain) {
  std::ostringstream out, err;
  EXPECT_EQ(dumpLayoutsMain({"mma_m16n8k16_c"}, out, err), 0);
  EXPECT_NE(out.str().find("layout mma_m16n8k16_c"), std::string::npos);
  EXPECT_NE(out.str().find("T31:r3"), std::string::npos);

  std::string svg = ::testing::TempDir() + "dump_layout_test.svg";
  std::ostringstream out2, err2;
  EXPECT_EQ(dumpLayoutsMain({"blocked:sizePerThread=1x4,threadsPerWarp=8x4,"
                             "warpsPerBlock=4x1,order=1x0,shape=64x64",
                             "--svg=" + svg},
                            out2, err2),
            0)
      << err2.str();
  std::ifstream f(svg);
  std::string content((std::istreambuf_iterator<char>(f)), {});
  EXPECT_EQ(count(content, "<rect"), 64u * 64u);
  std::remove(svg.c_str());

  std::ostringstream out3, err3;
  EXPECT_EQ(dumpLayoutsMain({"mma_m16n8k32_c"}, out3, err3), 1);
  EXPECT_NE(
      err3.str().find("layout spec 'mma_m16n8k32_c': unknown layout name"),
      std::string::npos)
      << err3.str();
  std::ostringstream out4, err4;
  EXPECT_EQ(dumpLayoutsMain({"--list"}, out4, err4), 0);
  EXPECT_NE(out4.str().find("wgmma_m64n64k16_acc"), std::string::npos);
  std::ostringstream out5, err5;
  EXPECT_EQ(dumpLayoutsMain({"--bases", "mma_m16n8k16_b"}, out5, err5), 0);
  EXPECT_NE(out5.str().find("register=[(1,0),(8,0)]"), std::string::npos)
      << out5.str();
}

} // namespace
