//===- FmaLayoutTest.cpp - vector-FMA accumulators read without conflicts -===//
//
// For every shipped target and the FMA gemms of the examples (operands
// stored with K contiguous or with M / N contiguous), the accumulator
// layout chooseFmaTiling picks holds every element once, and each shared
// read of the gemm's K loop (one vector load per row of A / column of B
// the thread holds, over the warp's lanes) is free of bank conflicts under
// the swizzle the swizzle pass gives the operand tile.
//
//===----------------------------------------------------------------------===//

#include "tessera/Passes/FmaLayout.h"
#include "tessera/Passes/SwizzleChoice.h"
#include "tessera/layout/NamedLayouts.h"
#include "tessera/target/TargetDescription.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace tessera;
using passes::FmaOperand;
using passes::FmaOperandRead;

namespace {

std::vector<std::string> targetFiles() {
  std::vector<std::string> files;
  for (const std::string &f : target::shippedTargetFiles())
    files.push_back(std::string(TESSERA_SOURCE_DIR) + "/" + f);
  files.push_back(std::string(TESSERA_SOURCE_DIR) +
                  "/tests/unit/target/made_up.toml");
  return files;
}

target::TargetDescription load(const std::string &file) {
  std::string err;
  auto d = target::loadTargetDescription(file, &err);
  EXPECT_TRUE(d) << err;
  return *d;
}

/// A gemm C[M, N] += A * B with A stored [M, K] (K contiguous) or [K, M],
/// B stored [N, K] (K contiguous) or [K, N].
struct GemmCase {
  int m, n, k, threads;
  bool aKContiguous, bKContiguous;
};
const GemmCase kCases[] = {
    {128, 128, 32, 128, true, true},   // linear_f32_nt: Y = X W^T
    {256, 128, 32, 256, true, false},  // gemm_f32_256x128_colscale
    {64, 64, 32, 128, true, false},    // gemm_f32
    {128, 128, 32, 128, false, false}, // A transposed
    {128, 64, 16, 256, false, true},   // both transposed, narrow K
    {64, 128, 32, 128, true, true},
};

/// Elements of one vector read: within one chunk of the swizzle, at most 4.
int readVector(const target::TargetDescription &d) {
  int access = d.asyncCopy == target::AsyncCopyKind::Tma
                   ? 16
                   : std::clamp(d.globalLoadVectorBytes, 4, 16);
  return std::min(4, access / 4);
}

FmaOperand operand(const target::TargetDescription &d, bool kContiguous,
                   int k) {
  FmaOperand op;
  op.elemBytes = 4;
  op.vectorElems = readVector(d);
  op.read =
      kContiguous ? FmaOperandRead::KContiguous : FmaOperandRead::MNContiguous;
  if (kContiguous)
    op.vectorElems = std::min(op.vectorElems, k);
  return op;
}

/// The operand tile's shared layout as the swizzle pass lays it out: TMA
/// targets take the hardware's swizzle atoms, others the chosen XOR swizzle.
layout::LinearLayout sharedLayout(const target::TargetDescription &d, int rows,
                                  int cols) {
  int rowBytes = cols * 4;
  if (d.asyncCopy == target::AsyncCopyKind::Tma && rowBytes >= 32)
    return layout::nvmmaSharedLayout(rows, cols, 4, std::min(rowBytes, 128));
  int access = passes::sharedAccessBytes(cols, 4, d.globalLoadVectorBytes);
  return layout::swizzledSharedLayout(
      rows, cols, passes::chooseSharedSwizzle(rows, cols, 4, d.banks, access));
}

struct Reads {
  int conflicts = 0, wavefronts = 0, loads = 0;
};

/// Every load of one K chunk (A: rows, B: columns) by every warp.
Reads countReads(const target::TargetDescription &d, const GemmCase &g,
                 const layout::LinearLayout &c, bool isA) {
  bool kContiguous = isA ? g.aKContiguous : g.bKContiguous;
  int mn = isA ? g.m : g.n;
  int rows = kContiguous ? mn : g.k, cols = kContiguous ? g.k : mn;
  layout::LinearLayout shared = sharedLayout(d, rows, cols);
  int vec = std::min(readVector(d), kContiguous ? g.k : 4);
  int regs = c.getInDimSize(layout::kRegister);
  int lanes = c.getInDimSize(layout::kLane);
  int warps = c.getInDimSize(layout::kWarp);
  Reads out;
  for (int w = 0; w < warps; ++w) {
    // The distinct rows (A) / vectors of columns (B) the warp's threads read.
    std::set<std::vector<std::vector<int32_t>>> seen;
    for (int r = 0; r < regs; ++r) {
      std::vector<std::vector<int32_t>> coords;
      for (int l = 0; l < lanes; ++l) {
        auto rc = c.applyFlat({r, l, w});
        int32_t x = rc[isA ? 0 : 1];
        if (!kContiguous)
          x -= x % vec; // the vector holding it
        coords.push_back(kContiguous ? std::vector<int32_t>{x, 0}
                                     : std::vector<int32_t>{0, x});
      }
      if (!seen.insert(coords).second)
        continue;
      layout::SharedAccess a;
      a.bytesPerLane = vec * 4;
      a.laneCoords = coords;
      layout::ConflictReport rep =
          layout::countBankConflicts(shared, 4, d.banks, a);
      out.conflicts += rep.conflicts;
      out.wavefronts += rep.wavefronts;
      ++out.loads;
    }
  }
  return out;
}

/// Calls `check` with every shipped target, every case, its warps and the
/// accumulator layout of the tiling chosen for it (which must exist).
template <typename Fn> void forEachChosenLayout(Fn check) {
  for (const std::string &file : targetFiles()) {
    target::TargetDescription d = load(file);
    for (const GemmCase &g : kCases) {
      int warps = std::max(1, g.threads / std::max(1, d.warpSize));
      auto t = passes::chooseFmaTiling(
          g.m, g.n, d.warpSize, warps, operand(d, g.aKContiguous, g.k),
          operand(d, g.bKContiguous, g.k), d.banks);
      ASSERT_TRUE(t) << d.name << " " << g.m << "x" << g.n;
      check(d, g, warps, passes::fmaAccumulatorLayout(*t));
    }
  }
}

TEST(FmaLayout, AccumulatorHoldsEveryElementOnce) {
  forEachChosenLayout([](const target::TargetDescription &d, const GemmCase &g,
                         int warps, const layout::LinearLayout &c) {
    EXPECT_EQ(c.getTotalInDimSize(), int64_t(g.m) * g.n) << d.name;
    EXPECT_EQ(c.getInDimSize(layout::kLane), d.warpSize) << d.name;
    EXPECT_EQ(c.getInDimSize(layout::kWarp), warps) << d.name;
    EXPECT_NO_THROW(c.invert()) << d.name << " " << g.m << "x" << g.n;
  });
}

TEST(FmaLayout, OperandReadsAreConflictFreeOnEveryTarget) {
  forEachChosenLayout([](const target::TargetDescription &d, const GemmCase &g,
                         int, const layout::LinearLayout &c) {
    for (bool isA : {true, false})
      EXPECT_EQ(countReads(d, g, c, isA).conflicts, 0)
          << d.name << " " << g.m << "x" << g.n << "x" << g.k
          << (isA ? " A" : " B") << (g.aKContiguous ? " A[M,K]" : " A[K,M]")
          << (g.bKContiguous ? " B[N,K]" : " B[K,N]");
  });
}

// The transposed-B linear layer on sm_90a: the plain blocked layout (4
// consecutive columns per thread, 32 lanes along N) reads W's rows 4 apart,
// 16 lanes on one 16-byte chunk of the 128-byte swizzle; the chosen layout
// (8 x 16 per thread, 4 x 8 lanes) reads with a third of the loads and no
// conflicts.
TEST(FmaLayout, TransposedBOnSm90) {
  target::TargetDescription d = load(std::string(TESSERA_SOURCE_DIR) +
                                     "/backends/cuda/targets/sm_90a.toml");
  const GemmCase g = kCases[0];
  auto t = passes::chooseFmaTiling(g.m, g.n, 32, 4, operand(d, true, g.k),
                                   operand(d, true, g.k), d.banks);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->m.perThread(), 8);
  EXPECT_EQ(t->n.perThread(), 16);
  EXPECT_EQ(t->m.lanes * t->n.lanes, 32);
  EXPECT_EQ(t->n.vec, 1);
  layout::LinearLayout chosen = passes::fmaAccumulatorLayout(*t);
  layout::LinearLayout plain =
      layout::vectorizedCopyLayout({g.m, g.n}, 4, 32, 4, {}, 16);
  Reads oldA = countReads(d, g, plain, true),
        oldB = countReads(d, g, plain, false);
  Reads newA = countReads(d, g, chosen, true),
        newB = countReads(d, g, chosen, false);
  EXPECT_GT(oldB.conflicts, 0);
  EXPECT_EQ(newA.conflicts + newB.conflicts, 0);
  // Per K chunk, summed over the 4 warps: 4 x (32 rows + 4 columns) loads
  // before, 4 x (8 + 16) now. In the bank model's phases of 8 lanes (16-byte
  // reads), each load takes at least 4 wavefronts: before, A's 32 took 4
  // each and B's 4 took 16 (4-way conflicts in every phase), now 4 each.
  EXPECT_EQ(oldA.loads + oldB.loads, 4 * 36);
  EXPECT_EQ(newA.loads + newB.loads, 4 * 24);
  EXPECT_EQ(oldA.wavefronts + oldB.wavefronts, 4 * (32 * 4 + 4 * 16));
  EXPECT_EQ(newA.wavefronts + newB.wavefronts, 4 * 24 * 4);
}

} // namespace
