//===- LinearLayout.cpp - layouts as linear maps over GF(2) ---------------===//
#include "tessera/layout/LinearLayout.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace tessera::layout {

int log2Exact(int64_t x, const std::string &what) {
  if (!isPowerOf2(x))
    throw LayoutError(what + " must be a power of two, got " +
                      std::to_string(x));
  int n = 0;
  while ((int64_t(1) << n) < x)
    ++n;
  return n;
}

namespace {

/// Incremental Gaussian elimination over GF(2). Vectors are added in order;
/// each kept vector remembers which input columns it is the XOR of, so a
/// later solve() returns a preimage preferring the earliest columns.
class GF2Solver {
public:
  /// Adds column `index`; returns false if it is dependent on earlier ones.
  bool add(uint64_t column, int index) {
    uint64_t mask = uint64_t(1) << index;
    reduce(column, mask);
    if (!column)
      return false;
    int pivot = 63 - __builtin_clzll(column);
    rows[pivot] = {column, mask};
    return true;
  }
  /// A combination of added columns (as a column mask) equal to y, if any.
  std::optional<uint64_t> solve(uint64_t y) const {
    uint64_t mask = 0;
    reduce(y, mask);
    if (y)
      return std::nullopt;
    return mask;
  }
  int rank() const { return int(rows.size()); }

private:
  void reduce(uint64_t &v, uint64_t &mask) const {
    while (v) {
      int top = 63 - __builtin_clzll(v);
      auto it = rows.find(top);
      if (it == rows.end())
        return;
      v ^= it->second.first;
      mask ^= it->second.second;
    }
  }
  std::map<int, std::pair<uint64_t, uint64_t>> rows; // pivot -> (vec, mask)
};

GF2Solver solverFor(const std::vector<uint64_t> &cols) {
  if (cols.size() > 64)
    throw LayoutError("layout has more than 64 input bits");
  GF2Solver s;
  for (size_t i = 0; i < cols.size(); ++i)
    s.add(cols[i], int(i));
  return s;
}

} // namespace

//===----------------------------------------------------------------------===//
// Construction
//===----------------------------------------------------------------------===//

LinearLayout::LinearLayout(Bases b, NamedInts outs)
    : bases(std::move(b)), outDims(std::move(outs)) {
  validate();
}

void LinearLayout::validate() const {
  std::set<std::string> seen;
  int totalOut = 0;
  for (auto &[name, size] : outDims) {
    if (!seen.insert(name).second)
      throw LayoutError("duplicate output dim '" + name + "'");
    totalOut += log2Exact(size, "size of output dim '" + name + "'");
  }
  if (totalOut > 62)
    throw LayoutError("output dims have more than 62 bits in total");
  seen.clear();
  for (auto &[name, bs] : bases) {
    if (!seen.insert(name).second)
      throw LayoutError("duplicate input dim '" + name + "'");
    if (bs.size() > 30)
      throw LayoutError("input dim '" + name + "' has more than 30 bits");
    for (size_t i = 0; i < bs.size(); ++i) {
      if (bs[i].size() != outDims.size())
        throw LayoutError("basis " + std::to_string(i) + " of input dim '" +
                          name + "' has " + std::to_string(bs[i].size()) +
                          " values but there are " +
                          std::to_string(outDims.size()) + " output dims");
      for (size_t d = 0; d < outDims.size(); ++d)
        if (bs[i][d] < 0 || bs[i][d] >= outDims[d].second)
          throw LayoutError("basis " + std::to_string(i) + " of input dim '" +
                            name + "' has value " + std::to_string(bs[i][d]) +
                            " outside output dim '" + outDims[d].first +
                            "' of size " + std::to_string(outDims[d].second));
    }
  }
}

LinearLayout LinearLayout::fromBases(Bases b,
                                     const std::vector<std::string> &names) {
  NamedInts outs;
  for (size_t d = 0; d < names.size(); ++d) {
    int32_t maxV = 0;
    for (auto &[n, bs] : b)
      for (auto &v : bs)
        if (d < v.size())
          maxV |= v[d];
    int32_t size = 1;
    while (size <= maxV)
      size <<= 1;
    outs.push_back({names[d], size});
  }
  return LinearLayout(std::move(b), std::move(outs));
}

LinearLayout LinearLayout::identity1D(int32_t size, const std::string &in,
                                      const std::string &out) {
  return strided1D(size, 1, in, out);
}

LinearLayout LinearLayout::strided1D(int32_t size, int32_t stride,
                                     const std::string &in,
                                     const std::string &out) {
  int n = log2Exact(size, "size of '" + in + "'");
  log2Exact(stride, "stride");
  std::vector<Basis> bs;
  for (int i = 0; i < n; ++i)
    bs.push_back({int32_t(stride << i)});
  return LinearLayout({{in, bs}}, {{out, size * stride}});
}

LinearLayout LinearLayout::zeros1D(int32_t size, const std::string &in,
                                   const std::string &out, int32_t outSize) {
  int n = log2Exact(size, "size of '" + in + "'");
  return LinearLayout({{in, std::vector<Basis>(n, Basis{0})}},
                      {{out, outSize}});
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

int LinearLayout::outDimIndex(const std::string &name) const {
  for (size_t i = 0; i < outDims.size(); ++i)
    if (outDims[i].first == name)
      return int(i);
  return -1;
}
int LinearLayout::inDimIndex(const std::string &name) const {
  for (size_t i = 0; i < bases.size(); ++i)
    if (bases[i].first == name)
      return int(i);
  return -1;
}
NamedInts LinearLayout::getInDims() const {
  NamedInts r;
  for (auto &[n, bs] : bases)
    r.push_back({n, int32_t(1) << bs.size()});
  return r;
}
std::vector<std::string> LinearLayout::getInDimNames() const {
  std::vector<std::string> r;
  for (auto &p : bases)
    r.push_back(p.first);
  return r;
}
std::vector<std::string> LinearLayout::getOutDimNames() const {
  std::vector<std::string> r;
  for (auto &p : outDims)
    r.push_back(p.first);
  return r;
}
bool LinearLayout::hasInDim(const std::string &n) const {
  return inDimIndex(n) >= 0;
}
bool LinearLayout::hasOutDim(const std::string &n) const {
  return outDimIndex(n) >= 0;
}
int32_t LinearLayout::getInDimSize(const std::string &n) const {
  return int32_t(1) << getInDimSizeLog2(n);
}
int32_t LinearLayout::getOutDimSize(const std::string &n) const {
  int i = outDimIndex(n);
  return i < 0 ? 1 : outDims[i].second;
}
int LinearLayout::getInDimSizeLog2(const std::string &n) const {
  int i = inDimIndex(n);
  return i < 0 ? 0 : int(bases[i].second.size());
}
int LinearLayout::getOutDimSizeLog2(const std::string &n) const {
  return log2Exact(getOutDimSize(n), "size");
}
int LinearLayout::getTotalInDimSizeLog2() const {
  int t = 0;
  for (auto &p : bases)
    t += int(p.second.size());
  return t;
}
int LinearLayout::getTotalOutDimSizeLog2() const {
  int t = 0;
  for (auto &p : outDims)
    t += log2Exact(p.second, "size");
  return t;
}
int64_t LinearLayout::getTotalInDimSize() const {
  return int64_t(1) << getTotalInDimSizeLog2();
}
int64_t LinearLayout::getTotalOutDimSize() const {
  return int64_t(1) << getTotalOutDimSizeLog2();
}
const LinearLayout::Basis &LinearLayout::getBasis(const std::string &in,
                                                  int bit) const {
  int i = inDimIndex(in);
  if (i < 0 || bit < 0 || bit >= int(bases[i].second.size()))
    throw LayoutError("no basis " + std::to_string(bit) + " for input dim '" +
                      in + "'");
  return bases[i].second[bit];
}
int32_t LinearLayout::getBasis(const std::string &in, int bit,
                               const std::string &out) const {
  int o = outDimIndex(out);
  return o < 0 ? 0 : getBasis(in, bit)[o];
}

//===----------------------------------------------------------------------===//
// Evaluation and the flat bit-matrix view
//===----------------------------------------------------------------------===//

uint64_t LinearLayout::basisToFlatBits(const Basis &b) const {
  uint64_t bits = 0;
  int shift = 0;
  for (size_t d = 0; d < outDims.size(); ++d) {
    bits |= uint64_t(uint32_t(b[d])) << shift;
    shift += log2Exact(outDims[d].second, "size");
  }
  return bits;
}

LinearLayout::Basis LinearLayout::flatBitsToBasis(uint64_t bits) const {
  Basis b;
  for (auto &[n, size] : outDims) {
    b.push_back(int32_t(bits & uint64_t(size - 1)));
    bits >>= log2Exact(size, "size");
  }
  return b;
}

std::vector<uint64_t> LinearLayout::toColumns() const {
  std::vector<uint64_t> cols;
  for (auto &[n, bs] : bases)
    for (auto &b : bs)
      cols.push_back(basisToFlatBits(b));
  return cols;
}

NamedInts LinearLayout::apply(const NamedInts &ins) const {
  Basis acc(outDims.size(), 0);
  for (auto &[name, value] : ins) {
    int i = inDimIndex(name);
    if (i < 0) {
      if (value == 0)
        continue;
      throw LayoutError("apply: no input dim '" + name + "'");
    }
    auto &bs = bases[i].second;
    if (value < 0 || (bs.size() < 31 && value >= (int32_t(1) << bs.size())))
      throw LayoutError("apply: value " + std::to_string(value) +
                        " out of range for input dim '" + name + "'");
    for (size_t bit = 0; bit < bs.size(); ++bit)
      if (value & (1 << bit))
        for (size_t d = 0; d < acc.size(); ++d)
          acc[d] ^= bs[bit][d];
  }
  NamedInts out;
  for (size_t d = 0; d < outDims.size(); ++d)
    out.push_back({outDims[d].first, acc[d]});
  return out;
}

std::vector<int32_t>
LinearLayout::applyFlat(const std::vector<int32_t> &ins) const {
  if (ins.size() != bases.size())
    throw LayoutError("applyFlat: expected " + std::to_string(bases.size()) +
                      " input values");
  NamedInts named;
  for (size_t i = 0; i < ins.size(); ++i)
    named.push_back({bases[i].first, ins[i]});
  std::vector<int32_t> r;
  for (auto &p : apply(named))
    r.push_back(p.second);
  return r;
}

int64_t LinearLayout::applyLinear(int64_t flatIn) const {
  std::vector<int32_t> ins;
  for (auto &[n, bs] : bases) {
    ins.push_back(int32_t(flatIn & ((int64_t(1) << bs.size()) - 1)));
    flatIn >>= bs.size();
  }
  auto outs = applyFlat(ins);
  int64_t flat = 0;
  for (size_t d = 0; d < outDims.size(); ++d)
    flat = flat * outDims[d].second + outs[d];
  return flat;
}

//===----------------------------------------------------------------------===//
// Algebra
//===----------------------------------------------------------------------===//

LinearLayout LinearLayout::compose(const LinearLayout &outer) const {
  for (auto &[name, size] : outDims) {
    if (!outer.hasInDim(name) && size > 1)
      throw LayoutError("compose: outer layout has no input dim '" + name +
                        "'");
    if (outer.getInDimSize(name) < size)
      throw LayoutError("compose: outer input dim '" + name + "' has size " +
                        std::to_string(outer.getInDimSize(name)) +
                        ", smaller than " + std::to_string(size));
  }
  Bases nb;
  for (auto &[name, bs] : bases) {
    std::vector<Basis> nbs;
    for (auto &b : bs) {
      NamedInts coords;
      for (size_t d = 0; d < outDims.size(); ++d)
        coords.push_back({outDims[d].first, b[d]});
      Basis r;
      for (auto &p : outer.apply(coords))
        r.push_back(p.second);
      nbs.push_back(r);
    }
    nb.push_back({name, nbs});
  }
  return LinearLayout(std::move(nb), outer.outDims);
}

LinearLayout LinearLayout::pseudoinvert() const {
  auto cols = toColumns();
  GF2Solver s = solverFor(cols);
  int outBits = getTotalOutDimSizeLog2();
  if (s.rank() != outBits)
    throw LayoutError("cannot invert layout: it is not surjective (rank " +
                      std::to_string(s.rank()) + " of " +
                      std::to_string(outBits) + " output bits): " + toString());
  // Result: input dims = our output dims, output dims = our input dims.
  NamedInts newOuts = getInDims();
  Bases nb;
  int flatBit = 0;
  for (auto &[name, size] : outDims) {
    std::vector<Basis> nbs;
    int n = log2Exact(size, "size");
    for (int i = 0; i < n; ++i, ++flatBit) {
      uint64_t mask = *s.solve(uint64_t(1) << flatBit);
      Basis b;
      for (auto &[iname, ibs] : bases) {
        b.push_back(int32_t(mask & ((uint64_t(1) << ibs.size()) - 1)));
        mask >>= ibs.size();
      }
      nbs.push_back(b);
    }
    nb.push_back({name, nbs});
  }
  return LinearLayout(std::move(nb), std::move(newOuts));
}

LinearLayout LinearLayout::invert() const {
  if (getTotalInDimSizeLog2() != getTotalOutDimSizeLog2())
    throw LayoutError(
        "cannot invert layout: " + std::to_string(getTotalInDimSize()) +
        " inputs but " + std::to_string(getTotalOutDimSize()) +
        " outputs: " + toString());
  if (!isInjective())
    throw LayoutError("cannot invert layout: it is not injective: " +
                      toString());
  return pseudoinvert();
}

LinearLayout LinearLayout::invertAndCompose(const LinearLayout &outer) const {
  // Express our bases in outer's output-dim order.
  for (auto &[name, size] : outDims)
    if (outer.getOutDimSize(name) < size)
      throw LayoutError("invertAndCompose: output dim '" + name +
                        "' is larger than in the other layout");
  GF2Solver s = solverFor(outer.toColumns());
  Bases nb;
  for (auto &[name, bs] : bases) {
    std::vector<Basis> nbs;
    for (auto &b : bs) {
      Basis ob(outer.outDims.size(), 0);
      for (size_t d = 0; d < outDims.size(); ++d) {
        int od = outer.outDimIndex(outDims[d].first);
        if (od < 0) {
          if (b[d] != 0)
            throw LayoutError("invertAndCompose: no output dim '" +
                              outDims[d].first + "' in the other layout");
          continue;
        }
        ob[od] = b[d];
      }
      auto mask = s.solve(outer.basisToFlatBits(ob));
      if (!mask)
        throw LayoutError("invertAndCompose: the image of this layout is not "
                          "within the image of the other");
      Basis r;
      uint64_t m = *mask;
      for (auto &[iname, ibs] : outer.bases) {
        r.push_back(int32_t(m & ((uint64_t(1) << ibs.size()) - 1)));
        m >>= ibs.size();
      }
      nbs.push_back(r);
    }
    nb.push_back({name, nbs});
  }
  return LinearLayout(std::move(nb), outer.getInDims());
}

LinearLayout operator*(const LinearLayout &a, const LinearLayout &b) {
  NamedInts outs = a.outDims;
  for (auto &[n, s] : b.outDims) {
    int i = a.outDimIndex(n);
    if (i >= 0)
      outs[i].second = a.outDims[i].second * s;
    else
      outs.push_back({n, s});
  }
  auto embed = [&](const LinearLayout &src, const LinearLayout::Basis &v,
                   bool shift) {
    LinearLayout::Basis r(outs.size(), 0);
    for (size_t d = 0; d < src.outDims.size(); ++d) {
      int o = 0;
      while (outs[o].first != src.outDims[d].first)
        ++o;
      r[o] = shift ? v[d] * a.getOutDimSize(src.outDims[d].first) : v[d];
    }
    return r;
  };
  std::vector<std::string> names = a.getInDimNames();
  for (auto &n : b.getInDimNames())
    if (!a.hasInDim(n))
      names.push_back(n);
  LinearLayout::Bases nb;
  for (auto &n : names) {
    std::vector<LinearLayout::Basis> bs;
    if (int i = a.inDimIndex(n); i >= 0)
      for (auto &v : a.bases[i].second)
        bs.push_back(embed(a, v, false));
    if (int i = b.inDimIndex(n); i >= 0)
      for (auto &v : b.bases[i].second)
        bs.push_back(embed(b, v, true));
    nb.push_back({n, bs});
  }
  return LinearLayout(std::move(nb), std::move(outs));
}

std::optional<LinearLayout>
LinearLayout::divideLeft(const LinearLayout &divisor) const {
  for (auto &[n, s] : divisor.outDims)
    if (getOutDimSize(n) % s != 0 || (s > 1 && !hasOutDim(n)))
      return std::nullopt;
  for (auto &[n, bs] : divisor.bases)
    if (getInDimSizeLog2(n) < int(bs.size()))
      return std::nullopt;
  NamedInts outs;
  for (auto &[n, s] : outDims)
    outs.push_back({n, s / divisor.getOutDimSize(n)});
  Bases nb;
  for (auto &[n, bs] : bases) {
    std::vector<Basis> nbs;
    for (size_t i = divisor.getInDimSizeLog2(n); i < bs.size(); ++i) {
      Basis v;
      for (size_t d = 0; d < outDims.size(); ++d) {
        int32_t q = divisor.getOutDimSize(outDims[d].first);
        if (bs[i][d] % q != 0)
          return std::nullopt;
        v.push_back(bs[i][d] / q);
      }
      nbs.push_back(v);
    }
    nb.push_back({n, nbs});
  }
  LinearLayout c(std::move(nb), std::move(outs));
  if (!(divisor * c).equalIgnoringDimOrder(*this))
    return std::nullopt;
  return c;
}

std::optional<LinearLayout>
LinearLayout::divideRight(const LinearLayout &divisor) const {
  for (auto &[n, s] : divisor.outDims)
    if (getOutDimSize(n) % s != 0 || (s > 1 && !hasOutDim(n)))
      return std::nullopt;
  for (auto &[n, bs] : divisor.bases)
    if (getInDimSizeLog2(n) < int(bs.size()))
      return std::nullopt;
  NamedInts outs;
  for (auto &[n, s] : outDims)
    outs.push_back({n, s / divisor.getOutDimSize(n)});
  Bases nb;
  for (auto &[n, bs] : bases) {
    std::vector<Basis> nbs;
    size_t keep = bs.size() - divisor.getInDimSizeLog2(n);
    for (size_t i = 0; i < keep; ++i) {
      for (size_t d = 0; d < outDims.size(); ++d)
        if (bs[i][d] >= outs[d].second)
          return std::nullopt;
      nbs.push_back(bs[i]);
    }
    nb.push_back({n, nbs});
  }
  LinearLayout b(std::move(nb), std::move(outs));
  if (!(b * divisor).equalIgnoringDimOrder(*this))
    return std::nullopt;
  return b;
}

LinearLayout
LinearLayout::sublayout(const std::vector<std::string> &ins,
                        const std::vector<std::string> &outs) const {
  NamedInts no;
  for (auto &n : outs)
    no.push_back({n, getOutDimSize(n)});
  Bases nb;
  for (auto &n : ins) {
    std::vector<Basis> nbs;
    int i = inDimIndex(n);
    if (i >= 0)
      for (auto &b : bases[i].second) {
        Basis v;
        for (auto &o : outs) {
          int d = outDimIndex(o);
          v.push_back(d < 0 ? 0 : b[d]);
        }
        nbs.push_back(v);
      }
    nb.push_back({n, nbs});
  }
  return LinearLayout(std::move(nb), std::move(no));
}

bool LinearLayout::sublayoutIsZero(const std::vector<std::string> &ins,
                                   const std::vector<std::string> &outs) const {
  auto s = sublayout(ins, outs);
  for (auto c : s.toColumns())
    if (c)
      return false;
  return true;
}

bool LinearLayout::isSubLayoutOf(const LinearLayout &other) const {
  for (auto &[n, s] : outDims)
    if (other.getOutDimSize(n) < s || (s > 1 && !other.hasOutDim(n)))
      return false;
  for (auto &[n, bs] : bases) {
    if (other.getInDimSizeLog2(n) < int(bs.size()))
      return false;
    for (size_t i = 0; i < bs.size(); ++i) {
      for (auto &[on, os] : other.outDims) {
        int d = outDimIndex(on);
        int32_t mine = d < 0 ? 0 : bs[i][d];
        if (mine != other.getBasis(n, int(i), on))
          return false;
      }
    }
  }
  return true;
}

LinearLayout
LinearLayout::transposeOuts(const std::vector<std::string> &order) const {
  if (order.size() != outDims.size())
    throw LayoutError("transposeOuts: expected " +
                      std::to_string(outDims.size()) + " dims");
  std::vector<int> idx;
  NamedInts no;
  for (auto &n : order) {
    int d = outDimIndex(n);
    if (d < 0)
      throw LayoutError("transposeOuts: no output dim '" + n + "'");
    idx.push_back(d);
    no.push_back(outDims[d]);
  }
  Bases nb = bases;
  for (auto &[n, bs] : nb)
    for (auto &b : bs) {
      Basis v;
      for (int d : idx)
        v.push_back(b[d]);
      b = v;
    }
  return LinearLayout(std::move(nb), std::move(no));
}

LinearLayout
LinearLayout::transposeIns(const std::vector<std::string> &order) const {
  if (order.size() != bases.size())
    throw LayoutError("transposeIns: expected " + std::to_string(bases.size()) +
                      " dims");
  Bases nb;
  for (auto &n : order) {
    int i = inDimIndex(n);
    if (i < 0)
      throw LayoutError("transposeIns: no input dim '" + n + "'");
    nb.push_back(bases[i]);
  }
  return LinearLayout(std::move(nb), outDims);
}

LinearLayout LinearLayout::reshapeOuts(const NamedInts &newOuts) const {
  int64_t total = 1;
  for (auto &p : newOuts)
    total *= p.second;
  if (total != getTotalOutDimSize())
    throw LayoutError("reshapeOuts: sizes multiply to " +
                      std::to_string(total) + ", expected " +
                      std::to_string(getTotalOutDimSize()));
  Bases nb = bases;
  for (auto &[n, bs] : nb)
    for (auto &b : bs) {
      int64_t flat = 0;
      for (size_t d = 0; d < outDims.size(); ++d)
        flat = flat * outDims[d].second + b[d];
      Basis v(newOuts.size());
      for (size_t d = newOuts.size(); d-- > 0;) {
        v[d] = int32_t(flat % newOuts[d].second);
        flat /= newOuts[d].second;
      }
      b = v;
    }
  return LinearLayout(std::move(nb), newOuts);
}

LinearLayout LinearLayout::reshapeIns(const NamedInts &newIns) const {
  std::vector<Basis> all;
  for (auto &[n, bs] : bases)
    all.insert(all.end(), bs.begin(), bs.end());
  int totalBits = 0;
  for (auto &p : newIns)
    totalBits += log2Exact(p.second, "size of '" + p.first + "'");
  if (totalBits != int(all.size()))
    throw LayoutError("reshapeIns: sizes do not multiply to " +
                      std::to_string(getTotalInDimSize()));
  Bases nb;
  size_t pos = 0;
  for (auto &[n, s] : newIns) {
    int k = log2Exact(s, "size");
    nb.push_back(
        {n, std::vector<Basis>(all.begin() + pos, all.begin() + pos + k)});
    pos += k;
  }
  return LinearLayout(std::move(nb), outDims);
}

LinearLayout LinearLayout::resizeOuts(const NamedInts &newSizes) const {
  NamedInts no = outDims;
  for (auto &[n, s] : newSizes) {
    int d = outDimIndex(n);
    if (d < 0)
      throw LayoutError("resizeOuts: no output dim '" + n + "'");
    log2Exact(s, "size of '" + n + "'");
    no[d].second = s;
  }
  Bases nb = bases;
  for (auto &[n, bs] : nb)
    for (auto &b : bs)
      for (size_t d = 0; d < no.size(); ++d)
        b[d] &= no[d].second - 1;
  return LinearLayout(std::move(nb), std::move(no));
}

//===----------------------------------------------------------------------===//
// Properties
//===----------------------------------------------------------------------===//

int LinearLayout::rank() const { return solverFor(toColumns()).rank(); }
bool LinearLayout::isSurjective() const {
  return rank() == getTotalOutDimSizeLog2();
}
bool LinearLayout::isInjective() const {
  return rank() == getTotalInDimSizeLog2();
}
bool LinearLayout::isInvertible() const {
  return getTotalInDimSizeLog2() == getTotalOutDimSizeLog2() && isInjective();
}

NamedInts LinearLayout::getFreeVariableMasks() const {
  NamedInts r;
  for (auto &[n, bs] : bases) {
    int32_t m = 0;
    for (size_t i = 0; i < bs.size(); ++i)
      if (std::all_of(bs[i].begin(), bs[i].end(),
                      [](int32_t v) { return v == 0; }))
        m |= int32_t(1) << i;
    r.push_back({n, m});
  }
  return r;
}

int32_t LinearLayout::getRedundantMask(const std::string &inDim) const {
  GF2Solver s;
  int col = 0;
  int32_t mask = 0;
  for (auto &[n, bs] : bases)
    for (size_t i = 0; i < bs.size(); ++i, ++col) {
      bool indep = s.add(basisToFlatBits(bs[i]), col);
      if (!indep && n == inDim)
        mask |= int32_t(1) << i;
    }
  return mask;
}

int32_t LinearLayout::getContiguousRegisters(const std::string &outDim,
                                             const std::string &reg) const {
  int d = outDimIndex(outDim);
  int r = inDimIndex(reg);
  if (d < 0 || r < 0)
    return 1;
  int32_t v = 1;
  for (size_t i = 0; i < bases[r].second.size(); ++i) {
    auto &b = bases[r].second[i];
    for (size_t k = 0; k < b.size(); ++k)
      if (b[k] != (int(k) == d ? (int32_t(1) << i) : 0))
        return v;
    v <<= 1;
  }
  return v;
}

bool LinearLayout::operator==(const LinearLayout &o) const {
  return bases == o.bases && outDims == o.outDims;
}

bool LinearLayout::equalIgnoringDimOrder(const LinearLayout &o) const {
  std::set<std::string> outNames, inNames;
  for (auto *l : {this, &o}) {
    for (auto &[n, s] : l->outDims)
      outNames.insert(n);
    for (auto &[n, bs] : l->bases)
      inNames.insert(n);
  }
  for (auto &n : outNames)
    if (getOutDimSize(n) != o.getOutDimSize(n))
      return false;
  for (auto &n : inNames) {
    int k = getInDimSizeLog2(n);
    if (k != o.getInDimSizeLog2(n))
      return false;
    for (int i = 0; i < k; ++i)
      for (auto &on : outNames)
        if (getBasis(n, i, on) != o.getBasis(n, i, on))
          return false;
  }
  return true;
}

std::string LinearLayout::toString() const {
  std::ostringstream os;
  bool firstDim = true;
  for (auto &[n, bs] : bases) {
    os << (firstDim ? "" : " ") << n << "=[";
    firstDim = false;
    for (size_t i = 0; i < bs.size(); ++i) {
      os << (i ? "," : "") << "(";
      for (size_t d = 0; d < bs[i].size(); ++d)
        os << (d ? "," : "") << bs[i][d];
      os << ")";
    }
    os << "]";
  }
  os << " -> ";
  for (size_t d = 0; d < outDims.size(); ++d)
    os << (d ? "," : "") << outDims[d].first << ":" << outDims[d].second;
  return os.str();
}

std::ostream &operator<<(std::ostream &os, const LinearLayout &l) {
  return os << l.toString();
}

} // namespace tessera::layout
