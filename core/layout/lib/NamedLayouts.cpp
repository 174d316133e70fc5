//===- NamedLayouts.cpp - vendor fragment layouts and blocked layouts -----===//
#include "tessera/layout/NamedLayouts.h"

#include <algorithm>
#include <numeric>

namespace tessera::layout {

std::string dimName(int d) { return "dim" + std::to_string(d); }

namespace {
using Basis = LinearLayout::Basis;
using BasisList = std::vector<Basis>;

/// A 2-D fragment layout from (register, lane, warp) bases given as
/// (row, col) pairs.
LinearLayout frag(BasisList reg, BasisList lane, BasisList warp, int rows,
                  int cols) {
  return LinearLayout({{kRegister, std::move(reg)},
                       {kLane, std::move(lane)},
                       {kWarp, std::move(warp)}},
                      {{dimName(0), rows}, {dimName(1), cols}});
}
} // namespace

// PTX: groupID = lane>>2 selects the row (A, C) or column (B);
// threadID_in_group = lane%4 selects a pair of columns (A, C) or rows (B).
LinearLayout mmaM16N8K16(MmaOperand op) {
  switch (op) {
  case MmaOperand::A: // a0..a7: i&1 -> col+1, i&2 -> row+8, i&4 -> col+8
    return frag({{0, 1}, {8, 0}, {0, 8}},
                {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}, {}, 16, 16);
  case MmaOperand::B: // b0..b3: i&1 -> row+1, i&2 -> row+8; col = groupID
    return frag({{1, 0}, {8, 0}}, {{2, 0}, {4, 0}, {0, 1}, {0, 2}, {0, 4}}, {},
                16, 8);
  case MmaOperand::C: // c0..c3: i&1 -> col+1, i&2 -> row+8
    return frag({{0, 1}, {8, 0}}, {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}, {},
                16, 8);
  }
  throw LayoutError("bad operand");
}

// PTX "Matrix Fragments for mma.m16n8k32" with 8-bit inputs (s8/u8/e4m3/
// e5m2): four elements per b32 register. A a0..a15: i&1 -> col+1, i&2 ->
// col+2, i&4 -> row+8, i&8 -> col+16; B b0..b7: i&1 -> row+1, i&2 -> row+2,
// i&4 -> row+16; col = groupID. C/D as in m16n8k16.
LinearLayout mmaM16N8K32Byte(MmaOperand op) {
  switch (op) {
  case MmaOperand::A:
    return frag({{0, 1}, {0, 2}, {8, 0}, {0, 16}},
                {{0, 4}, {0, 8}, {1, 0}, {2, 0}, {4, 0}}, {}, 16, 32);
  case MmaOperand::B:
    return frag({{1, 0}, {2, 0}, {16, 0}},
                {{4, 0}, {8, 0}, {0, 1}, {0, 2}, {0, 4}}, {}, 32, 8);
  case MmaOperand::C:
    return mmaM16N8K16(MmaOperand::C);
  }
  throw LayoutError("bad operand");
}

LinearLayout wgmmaM64K16Acc(int n) {
  if (!isPowerOf2(n) || n < 8 || n > 256)
    throw LayoutError("wgmma accumulator: N must be a power of two in "
                      "[8, 256] for a linear layout, got " +
                      std::to_string(n));
  // d_i: i&1 -> col+1, i&2 -> row+8, i>>2 -> col + 8*(i>>2).
  BasisList reg = {{0, 1}, {8, 0}};
  for (int c = 8; c < n; c *= 2)
    reg.push_back({0, c});
  return frag(reg, {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}, {{16, 0}, {32, 0}},
              64, n);
}

LinearLayout wgmmaM64K16A() {
  return frag({{0, 1}, {8, 0}, {0, 8}},
              {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}, {{16, 0}, {32, 0}}, 64,
              16);
}

// CDNA3 32x32x8: A[i][k]: i = lane%32, k = 4*(lane/32) + r.
// C[i][j]: j = lane%32, i = 8*(r/4) + 4*(lane/32) + r%4.
LinearLayout mfma32x32x8F16(MmaOperand op) {
  switch (op) {
  case MmaOperand::A:
    return frag({{0, 1}, {0, 2}},
                {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 4}}, {}, 32, 8);
  case MmaOperand::B:
    return frag({{1, 0}, {2, 0}},
                {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {4, 0}}, {}, 8, 32);
  case MmaOperand::C:
    return frag({{1, 0}, {2, 0}, {8, 0}, {16, 0}},
                {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {4, 0}}, {}, 32, 32);
  }
  throw LayoutError("bad operand");
}

// CDNA3 16x16x16: A[i][k]: i = lane%16, k = 4*(lane/16) + r.
// C[i][j]: j = lane%16, i = 4*(lane/16) + r.
LinearLayout mfma16x16x16F16(MmaOperand op) {
  switch (op) {
  case MmaOperand::A:
    return frag({{0, 1}, {0, 2}},
                {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 4}, {0, 8}}, {}, 16, 16);
  case MmaOperand::B:
  case MmaOperand::C:
    return frag({{1, 0}, {2, 0}},
                {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {4, 0}, {8, 0}}, {}, 16, 16);
  }
  throw LayoutError("bad operand");
}

// RDNA3 wave32: A row = lane%16 with 16 K values in registers (lanes 16..31
// hold a copy); B column = lane%16; C[2r + lane/16][lane%16].
LinearLayout wmma16x16x16F16(MmaOperand op) {
  switch (op) {
  case MmaOperand::A:
    return frag({{0, 1}, {0, 2}, {0, 4}, {0, 8}},
                {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 0}}, {}, 16, 16);
  case MmaOperand::B:
    return frag({{1, 0}, {2, 0}, {4, 0}, {8, 0}},
                {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 0}}, {}, 16, 16);
  case MmaOperand::C:
    return frag({{2, 0}, {4, 0}, {8, 0}},
                {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {1, 0}}, {}, 16, 16);
  }
  throw LayoutError("bad operand");
}

static std::vector<int32_t> defaultOrder(size_t rank) {
  std::vector<int32_t> o(rank);
  for (size_t i = 0; i < rank; ++i)
    o[i] = int32_t(rank - 1 - i);
  return o;
}

static void checkOrder(const std::vector<int32_t> &order, size_t rank) {
  std::vector<int32_t> s = order;
  std::sort(s.begin(), s.end());
  for (size_t i = 0; i < rank; ++i)
    if (s.size() != rank || s[i] != int32_t(i))
      throw LayoutError("order must be a permutation of 0.." +
                        std::to_string(rank - 1));
}

LinearLayout ensureShape(const LinearLayout &l,
                         const std::vector<int32_t> &shape,
                         const std::vector<int32_t> &orderIn) {
  std::vector<int32_t> order =
      orderIn.empty() ? defaultOrder(shape.size()) : orderIn;
  checkOrder(order, shape.size());
  LinearLayout r = l;
  NamedInts sizes;
  for (int32_t d : order) {
    std::string n = dimName(d);
    log2Exact(shape[d], "shape of " + n);
    int32_t have = r.getOutDimSize(n);
    if (have < shape[d] || !r.hasOutDim(n))
      r *= LinearLayout::identity1D(std::max(1, shape[d] / have), kRegister, n);
    sizes.push_back({n, shape[d]});
  }
  r = r.resizeOuts(sizes);
  std::vector<std::string> names;
  for (size_t d = 0; d < shape.size(); ++d)
    names.push_back(dimName(int(d)));
  // Keep the hardware dims in the canonical order.
  std::vector<std::string> ins;
  for (auto *n : {&kRegister, &kLane, &kWarp, &kBlock})
    if (r.hasInDim(*n))
      ins.push_back(*n);
  for (auto &n : r.getInDimNames())
    if (std::find(ins.begin(), ins.end(), n) == ins.end())
      ins.push_back(n);
  return r.transposeOuts(names).transposeIns(ins);
}

LinearLayout blockedLayout(const BlockedSpec &s) {
  size_t rank = s.sizePerThread.size();
  if (rank == 0 || s.threadsPerWarp.size() != rank ||
      s.warpsPerBlock.size() != rank || s.order.size() != rank ||
      (!s.shape.empty() && s.shape.size() != rank))
    throw LayoutError("blocked layout: sizePerThread, threadsPerWarp, "
                      "warpsPerBlock, order (and shape) need the same rank");
  checkOrder(s.order, rank);
  LinearLayout reg, lane, warp;
  for (int32_t d : s.order) {
    reg *= LinearLayout::identity1D(s.sizePerThread[d], kRegister, dimName(d));
    lane *= LinearLayout::identity1D(s.threadsPerWarp[d], kLane, dimName(d));
    warp *= LinearLayout::identity1D(s.warpsPerBlock[d], kWarp, dimName(d));
  }
  LinearLayout l = reg * lane * warp;
  std::vector<int32_t> shape = s.shape;
  if (shape.empty())
    for (size_t d = 0; d < rank; ++d)
      shape.push_back(l.getOutDimSize(dimName(int(d))));
  return ensureShape(l, shape, s.order);
}

LinearLayout vectorizedCopyLayout(const std::vector<int32_t> &shape,
                                  int elemBytes, int warpSize, int numWarps,
                                  const std::vector<int32_t> &orderIn,
                                  int vectorBytes) {
  size_t rank = shape.size();
  std::vector<int32_t> order = orderIn.empty() ? defaultOrder(rank) : orderIn;
  checkOrder(order, rank);
  log2Exact(elemBytes, "element bytes");
  BlockedSpec s;
  s.sizePerThread.assign(rank, 1);
  s.threadsPerWarp.assign(rank, 1);
  s.warpsPerBlock.assign(rank, 1);
  s.order = order;
  s.shape = shape;
  int32_t fast = order[0];
  s.sizePerThread[fast] =
      std::max(1, std::min(vectorBytes / elemBytes, shape[fast]));
  // Lanes fill the fastest dim first, then the next ones.
  int32_t lanes = warpSize;
  std::vector<int32_t> left = shape;
  left[fast] /= s.sizePerThread[fast];
  for (int32_t d : order) {
    int32_t t = std::min(lanes, std::max(1, left[d]));
    s.threadsPerWarp[d] = t;
    lanes /= t;
    left[d] /= t;
  }
  s.threadsPerWarp[order.back()] *= lanes; // leftover lanes broadcast
  // Warps take the slowest dims first.
  int32_t warps = numWarps;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    int32_t w = std::min(warps, std::max(1, left[*it]));
    s.warpsPerBlock[*it] = w;
    warps /= w;
    left[*it] /= w;
  }
  s.warpsPerBlock[order.back()] *= warps;
  return blockedLayout(s);
}

LinearLayout tileAtom(const LinearLayout &atom,
                      const std::vector<int32_t> &warpsPerBlock,
                      const std::vector<int32_t> &shape) {
  LinearLayout l = atom;
  for (size_t i = warpsPerBlock.size(); i-- > 0;)
    l *= LinearLayout::identity1D(warpsPerBlock[i], kWarp, dimName(int(i)));
  return ensureShape(l, shape, {});
}

const char *toString(ConversionKind k) {
  switch (k) {
  case ConversionKind::None:
    return "none";
  case ConversionKind::RegisterPermute:
    return "register-permute";
  case ConversionKind::WarpShuffle:
    return "warp-shuffle";
  case ConversionKind::SharedMemory:
    return "shared-memory";
  case ConversionKind::CrossBlock:
    return "cross-block";
  }
  return "?";
}

namespace {
/// Can every thread of dst find its data within the `local` hardware dims of
/// the same (non-local) position in src? Linear check: each local dst basis
/// and each difference of non-local bases lies in the span of src's local
/// bases.
bool movesOnlyWithin(const LinearLayout &src, const LinearLayout &dst,
                     const std::vector<std::string> &local) {
  std::vector<std::string> hw = {kRegister, kLane, kWarp, kBlock};
  for (auto &n : src.getInDimNames())
    if (std::find(hw.begin(), hw.end(), n) == hw.end())
      hw.push_back(n);
  auto isLocal = [&](const std::string &n) {
    return std::find(local.begin(), local.end(), n) != local.end();
  };
  // Span of src's local columns, all in dst's output bit space.
  LinearLayout s = src.sublayout(local, dst.getOutDimNames());
  std::vector<uint64_t> cols;
  for (auto &[n, bs] : s.getBases())
    for (auto &b : bs)
      cols.push_back(dst.basisToFlatBits(b));
  auto inSpan = [&](uint64_t v) {
    // Small elimination; cols is short.
    std::vector<uint64_t> basis;
    for (uint64_t c : cols) {
      for (uint64_t b : basis)
        c = std::min(c, c ^ b);
      if (c) {
        basis.push_back(c);
        std::sort(basis.rbegin(), basis.rend());
      }
    }
    for (uint64_t b : basis)
      v = std::min(v, v ^ b);
    return v == 0;
  };
  for (auto &n : hw) {
    int k = std::max(src.getInDimSizeLog2(n), dst.getInDimSizeLog2(n));
    if (!isLocal(n) && src.getInDimSizeLog2(n) != dst.getInDimSizeLog2(n))
      return false;
    for (int i = 0; i < k; ++i) {
      uint64_t d = i < dst.getInDimSizeLog2(n)
                       ? dst.basisToFlatBits(dst.getBasis(n, i))
                       : 0;
      if (isLocal(n)) {
        if (!inSpan(d))
          return false;
      } else {
        LinearLayout::Basis sb;
        for (auto &o : dst.getOutDimNames())
          sb.push_back(src.getBasis(n, i, o));
        if (!inSpan(d ^ dst.basisToFlatBits(sb)))
          return false;
      }
    }
  }
  return true;
}
} // namespace

ConversionCost estimateConversionCost(const LinearLayout &src,
                                      const LinearLayout &dst) {
  for (auto &[n, s] : src.getOutDims())
    if (dst.getOutDimSize(n) != s)
      throw LayoutError("conversion between layouts of different shapes");
  for (auto &[n, s] : dst.getOutDims())
    if (src.getOutDimSize(n) != s)
      throw LayoutError("conversion between layouts of different shapes");
  double regs = double(dst.getInDimSize(kRegister));
  if (src.equalIgnoringDimOrder(dst))
    return {ConversionKind::None, 0.0};
  if (movesOnlyWithin(src, dst, {kRegister}))
    return {ConversionKind::RegisterPermute, 0.25 * regs};
  if (movesOnlyWithin(src, dst, {kRegister, kLane}))
    return {ConversionKind::WarpShuffle, 4.0 * regs};
  if (movesOnlyWithin(src, dst, {kRegister, kLane, kWarp}))
    return {ConversionKind::SharedMemory, 12.0 * regs + 20.0};
  return {ConversionKind::CrossBlock, 1200.0 * regs + 2000.0};
}

} // namespace tessera::layout
