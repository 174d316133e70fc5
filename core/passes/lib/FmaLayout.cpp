//===- FmaLayout.cpp - the vector-FMA accumulator layout ------------------===//

#include "tessera/Passes/FmaLayout.h"

#include "tessera/layout/NamedLayouts.h"

#include <cstdlib>
#include <string>
#include <tuple>

namespace tessera::passes {

bool fmaLayoutEnabled() {
  const char *env = std::getenv("TESSERA_FMA_LAYOUT");
  return !(env && std::string(env) == "0");
}

bool fmaOperandPrefetch() {
  const char *env = std::getenv("TESSERA_FMA_PREFETCH");
  return !(env && std::string(env) == "0");
}

int64_t fmaUnrollRegisterBudget(int64_t registersPerThread) {
  // The unrolled loop keeps its addresses as a few bases with constant
  // offsets (sm_90a, 128 accumulators + 96 operand values: 254 registers
  // and no spills with a 4-deep unroll).
  if (!fmaLayoutEnabled())
    return registersPerThread * 7 / 8;
  return registersPerThread * 15 / 16;
}

double fmaOperandCost(const FmaOperand &op, const FmaDimSplit &s,
                      const layout::BankModel &banks) {
  if (op.read == FmaOperandRead::Registers)
    return 0;
  int bpc = std::max(1, banks.bytesPerCycle());
  // Values a thread reads per k, and per load.
  double values = s.perThread();
  int perLoad = 1, distinctBytes = 0;
  if (op.read == FmaOperandRead::KContiguous) {
    // A chunk of K of one row per load; the lanes' rows are consecutive
    // (vec == 1), so their chunks are in distinct banks up to a wavefront.
    perLoad = std::max(1, op.vectorElems);
    distinctBytes = s.lanes * perLoad * op.elemBytes;
    if (s.vec > 1) // rows a power of two apart: assume they share banks
      distinctBytes *= s.vec;
  } else {
    perLoad = s.vec;
    distinctBytes = s.lanes * s.vec * op.elemBytes;
  }
  double loads = values / perLoad;
  int wavefronts = (distinctBytes + bpc - 1) / bpc;
  return loads * (1 + wavefronts);
}

std::optional<FmaTiling> chooseFmaTiling(int64_t m, int64_t n, int warpSize,
                                         int numWarps, const FmaOperand &a,
                                         const FmaOperand &b,
                                         const layout::BankModel &banks) {
  if (!layout::isPowerOf2(m) || !layout::isPowerOf2(n) ||
      !layout::isPowerOf2(warpSize) || !layout::isPowerOf2(numWarps))
    return std::nullopt;
  // Vector widths a dim may hold per thread: K-contiguous reads want one
  // row per lane step; otherwise up to the operand's vector.
  auto vecs = [](const FmaOperand &op) {
    std::vector<int> v{1};
    if (op.read != FmaOperandRead::KContiguous)
      for (int w = 2; w <= op.vectorElems; w *= 2)
        v.push_back(w);
    return v;
  };
  std::optional<FmaTiling> best;
  // Ties: fewer values per thread and k (registers), then N's vector and
  // lanes (wider, coalesced stores of the accumulator), then warps along M.
  auto key = [](const FmaTiling &t) {
    return std::make_tuple(t.cost, t.m.perThread() + t.n.perThread(), -t.n.vec,
                           -t.n.lanes, -t.m.warps);
  };
  for (int lm = 1; lm <= warpSize; lm *= 2)
    for (int wm = 1; wm <= numWarps; wm *= 2)
      for (int vm : vecs(a))
        for (int vn : vecs(b)) {
          FmaTiling t;
          t.m = {vm, lm, 0, wm};
          t.n = {vn, warpSize / lm, 0, numWarps / wm};
          int64_t um = int64_t(vm) * lm * wm,
                  un = int64_t(vn) * t.n.lanes * t.n.warps;
          if (m % um || n % un)
            continue;
          t.m.regs = int(m / um);
          t.n.regs = int(n / un);
          t.cost =
              fmaOperandCost(a, t.m, banks) + fmaOperandCost(b, t.n, banks);
          if (!best || key(t) < key(*best))
            best = t;
        }
  return best;
}

layout::LinearLayout fmaAccumulatorLayout(const FmaTiling &t) {
  using layout::LinearLayout;
  LinearLayout::Bases bases = {
      {layout::kRegister, {}}, {layout::kLane, {}}, {layout::kWarp, {}}};
  auto &reg = bases[0].second, &lane = bases[1].second, &warp = bases[2].second;
  // Bits of `count` along dim d starting at stride `from`.
  auto push = [](std::vector<LinearLayout::Basis> &to, int d, int count,
                 int from) {
    for (int s = 1; s < count; s *= 2) {
      LinearLayout::Basis v(2, 0);
      v[d] = from * s;
      to.push_back(v);
    }
  };
  const FmaDimSplit *split[2] = {&t.m, &t.n};
  for (int d : {1, 0})
    push(reg, d, split[d]->vec, 1);
  for (int d : {1, 0})
    push(reg, d, split[d]->regs,
         split[d]->vec * split[d]->lanes * split[d]->warps);
  for (int d : {1, 0})
    push(lane, d, split[d]->lanes, split[d]->vec);
  for (int d : {0, 1})
    push(warp, d, split[d]->warps, split[d]->vec * split[d]->lanes);
  int32_t rows = t.m.vec * t.m.lanes * t.m.regs * t.m.warps;
  int32_t cols = t.n.vec * t.n.lanes * t.n.regs * t.n.warps;
  return LinearLayout(bases,
                      {{layout::dimName(0), rows}, {layout::dimName(1), cols}});
}

} // namespace tessera::passes
