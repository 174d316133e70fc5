//===- LaneGather.cpp - reading a fragment in another lane layout ---------===//

#include "LaneGather.h"

#include "tessera/layout/NamedLayouts.h"

#include <algorithm>

#include <map>

namespace tessera::passes {

using layout::LinearLayout;

namespace {

int popcount(uint32_t x) {
  int n = 0;
  for (; x; x &= x - 1)
    ++n;
  return n;
}

int bitsOf(const LinearLayout &l, const std::string &dim) {
  return l.hasInDim(dim) ? l.getInDimSizeLog2(dim) : 0;
}

/// The output coordinates of (register, lane) in warp 0 (other inputs 0).
std::vector<int32_t> at(const LinearLayout &l, int64_t reg, int32_t lane) {
  layout::NamedInts ins;
  for (const std::string &n : l.getInDimNames())
    ins.push_back({n, n == layout::kRegister ? int32_t(reg)
                      : n == layout::kLane   ? lane
                                             : 0});
  std::vector<int32_t> out;
  for (auto &[name, v] : l.apply(ins))
    out.push_back(v);
  return out;
}

} // namespace

std::optional<LinearLayout> compactAcrossLanes(const LinearLayout &l, int kDim,
                                               int32_t kBelow) {
  LinearLayout::Bases bases = l.getBases();
  auto find = [&](const std::string &n) -> std::vector<LinearLayout::Basis> * {
    for (auto &[name, bs] : bases)
      if (name == n)
        return &bs;
    return nullptr;
  };
  std::vector<LinearLayout::Basis> *regs = find(layout::kRegister);
  std::vector<LinearLayout::Basis> *lanes = find(layout::kLane);
  if (!regs || !lanes)
    return std::nullopt;
  bool changed = false;
  for (LinearLayout::Basis &lb : *lanes) {
    if (std::any_of(lb.begin(), lb.end(), [](int32_t v) { return v != 0; }))
      continue;
    int below = -1, above = -1;
    for (size_t i = 0; i < regs->size(); ++i) {
      const LinearLayout::Basis &rb = (*regs)[i];
      bool alongK = true;
      for (size_t d = 0; d < rb.size(); ++d)
        alongK &= (int(d) == kDim) == (rb[d] != 0);
      if (!alongK)
        continue;
      int32_t v = rb[kDim];
      if (v < kBelow && (below < 0 || v > (*regs)[below][kDim]))
        below = int(i);
      if (v >= kBelow && (above < 0 || v < (*regs)[above][kDim]))
        above = int(i);
    }
    int pick = below >= 0 ? below : above;
    if (pick < 0)
      return std::nullopt;
    lb = (*regs)[pick];
    regs->erase(regs->begin() + pick);
    changed = true;
  }
  if (!changed)
    return std::nullopt;
  return LinearLayout(bases, l.getOutDims());
}

std::optional<std::vector<GatherRegister>>
planLaneGather(const LinearLayout &held, const LinearLayout &want) {
  if (held.getOutDims() != want.getOutDims())
    return std::nullopt;
  // The same warp holds the element in both.
  int warpBits =
      std::max(bitsOf(held, layout::kWarp), bitsOf(want, layout::kWarp));
  for (int i = 0; i < warpBits; ++i) {
    LinearLayout::Basis zero(held.getOutDims().size(), 0);
    auto basis = [&](const LinearLayout &l) {
      return i < bitsOf(l, layout::kWarp) ? l.getBasis(layout::kWarp, i) : zero;
    };
    if (basis(held) != basis(want))
      return std::nullopt;
  }
  if (bitsOf(held, layout::kLane) != bitsOf(want, layout::kLane))
    return std::nullopt;
  int32_t lanes = 1 << bitsOf(held, layout::kLane);
  int64_t heldRegs = held.getInDimSize(layout::kRegister);
  std::map<std::vector<int32_t>, std::vector<std::pair<int64_t, int32_t>>>
      holders;
  for (int64_t r = 0; r < heldRegs; ++r)
    for (int32_t l = 0; l < lanes; ++l)
      holders[at(held, r, l)].push_back({r, l});
  std::vector<GatherRegister> plan;
  for (int64_t t = 0; t < want.getInDimSize(layout::kRegister); ++t) {
    // Per lane: the holder nearest in lane bits (itself if it can).
    std::vector<std::pair<int64_t, int32_t>> from(lanes);
    int32_t laneBits = 0;
    for (int32_t l = 0; l < lanes; ++l) {
      auto it = holders.find(at(want, t, l));
      if (it == holders.end())
        return std::nullopt;
      std::pair<int64_t, int32_t> best{-1, 0};
      for (auto [r, hl] : it->second) {
        int32_t x = hl ^ l;
        auto key = [](int32_t m, int64_t reg) {
          return std::make_tuple(popcount(uint32_t(m)), m, reg);
        };
        if (best.first < 0 || key(x, r) < key(best.second, best.first))
          best = {r, x};
      }
      from[l] = best;
      laneBits |= best.second;
    }
    if (popcount(uint32_t(laneBits)) > 2)
      return std::nullopt;
    // Lanes agreeing on `lane & laneBits` must agree on the holder.
    GatherRegister g;
    g.laneBits = laneBits;
    std::map<int32_t, std::pair<int64_t, int32_t>> byValue;
    for (int32_t l = 0; l < lanes; ++l) {
      auto [it, fresh] = byValue.insert({l & laneBits, from[l]});
      if (!fresh && it->second != from[l])
        return std::nullopt;
    }
    for (auto &[value, src] : byValue) {
      auto c = std::find_if(
          g.choices.begin(), g.choices.end(), [&](const GatherChoice &c) {
            return c.reg == src.first && c.laneXor == src.second;
          });
      if (c == g.choices.end()) {
        g.choices.push_back({src.first, src.second, {}});
        c = std::prev(g.choices.end());
      }
      c->laneValues.push_back(value);
    }
    plan.push_back(std::move(g));
  }
  return plan;
}

} // namespace tessera::passes
