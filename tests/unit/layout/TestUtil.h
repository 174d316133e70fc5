// Brute-force helpers shared by the layout tests.
#pragma once
#include "tessera/layout/LinearLayout.h"

#include <random>

namespace tessera::layout::test {

/// The layout as a table: flat input -> flat output.
inline std::vector<int64_t> table(const LinearLayout &l) {
  std::vector<int64_t> t(l.getTotalInDimSize());
  for (int64_t i = 0; i < int64_t(t.size()); ++i)
    t[i] = l.applyLinear(i);
  return t;
}

/// Random bases for the given input dims (sizes) into the given output dims.
inline LinearLayout randomLayout(std::mt19937 &rng, const NamedInts &ins,
                                 const NamedInts &outs) {
  LinearLayout::Bases b;
  for (auto &[n, s] : ins) {
    std::vector<LinearLayout::Basis> bs;
    for (int i = 0; (1 << i) < s; ++i) {
      LinearLayout::Basis v;
      for (auto &[on, os] : outs)
        v.push_back(int32_t(rng() % uint32_t(os)));
      bs.push_back(v);
    }
    b.push_back({n, bs});
  }
  return LinearLayout(b, outs);
}

/// Coordinates of flat input `flat` (first dim lowest).
inline NamedInts unflattenIns(const LinearLayout &l, int64_t flat) {
  NamedInts r;
  for (auto &[n, s] : l.getInDims()) {
    r.push_back({n, int32_t(flat % s)});
    flat /= s;
  }
  return r;
}

} // namespace tessera::layout::test
