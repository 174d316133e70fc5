//===- InferLayouts.cpp - tessera-infer-layouts ---------------------------===//
//
// Gives every fragment tile a linear layout (#tile.layout on its type):
//  1. anchors: each tile.gemm picks the largest MMA atom of the target whose
//     dtypes match and that divides the tile, tiles it over the kernel's
//     warps (threads / warp_size) and registers; C and fragment A/B operands
//     get the tiled atom layouts. Without an atom: a vector-FMA layout.
//  2. propagation: tile.reduce gives its 1-D result the slice layout of its
//     source; fragment-to-fragment copies pass layouts on; element-wise
//     tile.parallel regions give every tile they touch the layout of the
//     first laid-out tile of the region's rank (broadcasts: the projection).
//  3. copies: a fragment first filled from global memory gets a vectorized
//     blocked layout; copies between global and shared memory record the
//     thread distribution (`layout`) and `vector_bytes` they will use.
//  4. conflicts: where an op demands another layout than the tile has, a
//     temporary tile and tile.convert_layout ops are inserted around it;
//     except a gemm operand held in fewer registers than its atom's layout
//     (which repeats it across lanes) that the gemm can gather by lane
//     shuffles (LaneGather.h): the gemm records the atom's layout instead.
//
//===----------------------------------------------------------------------===//

#include "LaneGather.h"
#include "PassCommon.h"

#include "tessera/Passes/FmaLayout.h"

#include "tessera/layout/NamedLayouts.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/MapVector.h"

#include <cstdlib>
#include <string>

using namespace mlir;
using namespace tessera;
using namespace tessera::tile;
using layout::LinearLayout;

namespace tessera::passes {
namespace {

using Basis = LinearLayout::Basis;

bool allPow2(ArrayRef<int64_t> shape) {
  return llvm::all_of(shape, [](int64_t d) { return layout::isPowerOf2(d); });
}

layout::NamedInts outDimsOf(ArrayRef<int64_t> shape) {
  layout::NamedInts outs;
  for (size_t i = 0; i < shape.size(); ++i)
    outs.push_back({layout::dimName(int(i)), int32_t(shape[i])});
  return outs;
}

/// Keeps the bases of `dims` (in that order) of `l`; register bases that
/// become redundant (in the span of the kept ones, e.g. zero) are dropped,
/// lane/warp/block bases stay (a zero one is a broadcast). A negative entry
/// of `dims` is an output dimension of size 1 (coordinate 0 in every basis).
LinearLayout project(const LinearLayout &l, ArrayRef<int> dims,
                     ArrayRef<int64_t> outShape) {
  LinearLayout::Bases out;
  for (auto &[name, bases] : l.getBases()) {
    std::vector<Basis> kept;
    std::vector<uint64_t> span; // GF(2) row-reduced packed vectors
    for (const Basis &b : bases) {
      Basis nb;
      uint64_t packed = 0;
      for (int d : dims) {
        int32_t v = d < 0 ? 0 : b[d];
        nb.push_back(v);
        packed = (packed << 20) | uint64_t(v);
      }
      if (name == layout::kRegister) {
        uint64_t v = packed;
        for (uint64_t s : span)
          v = std::min(v, v ^ s);
        if (v == 0)
          continue;
        span.push_back(v);
      }
      kept.push_back(nb);
    }
    out.push_back({name, kept});
  }
  return LinearLayout(out, outDimsOf(outShape));
}

/// An operand of a matrix instruction tiled over warps and registers:
/// `extraWarps` are appended to the atom's own warp bases.
LinearLayout tileOperand(const LinearLayout &atom,
                         const std::vector<Basis> &extraWarps,
                         ArrayRef<int64_t> shape) {
  LinearLayout::Bases bases = atom.getBases();
  for (const char *n : {"register", "lane", "warp"})
    if (!atom.hasInDim(n))
      bases.push_back({n, {}});
  layout::NamedInts outs = atom.getOutDims();
  for (auto &[name, bs] : bases)
    if (name == layout::kWarp)
      for (const Basis &b : extraWarps) {
        bs.push_back(b);
        for (size_t d = 0; d < outs.size(); ++d)
          while (outs[d].second <= b[d])
            outs[d].second *= 2;
      }
  LinearLayout l(bases, outs);
  std::vector<int32_t> s(shape.begin(), shape.end());
  return layout::ensureShape(l, s, {1, 0});
}

struct GemmChoice {
  const target::MmaAtom *atom = nullptr; // null: vector FMA
  int wm = 1, wn = 1;
};

class KernelLayouts {
public:
  KernelLayouts(KernelOp k, const target::TargetDescription &t, bool fma,
                const AtomFilter &filter)
      : kernel(k), tgt(t), allowFma(fma), atomFilter(filter) {}

  LogicalResult run();

private:
  KernelOp kernel;
  const target::TargetDescription &tgt;
  bool allowFma;
  const AtomFilter &atomFilter;
  int numWarps = 1;
  /// Opaque-operand atoms may split warps over N as well (squareWarps).
  bool warps2d = false;
  llvm::MapVector<Value, LinearLayout> assigned;
  /// (op, tile, demanded layout) collected while checking.
  struct Demand {
    Operation *op;
    Value tile;
    LinearLayout layout;
    bool reads, writes;
  };
  std::vector<Demand> gemmDemands;

  bool isFragment(Value v) {
    auto t = dyn_cast<TileType>(v.getType());
    return t && t.isFragment();
  }
  ArrayRef<int64_t> shapeOf(Value v) {
    return cast<TileType>(v.getType()).getShape();
  }
  bool has(Value v) { return assigned.count(v); }
  bool assign(Value v, const LinearLayout &l) {
    if (!isFragment(v) || has(v))
      return false;
    assigned.insert({v, l});
    return true;
  }

  LinearLayout balancedBlocked(Value tile, int maxVectorBytes) {
    auto t = cast<TileType>(tile.getType());
    int eb = elementBytes(t.getElementType());
    int64_t perThread =
        std::max<int64_t>(1, t.getNumElements() / (numWarps * tgt.warpSize));
    int64_t vec = std::min<int64_t>(maxVectorBytes / eb, perThread);
    vec = std::min<int64_t>(vec, t.getShape().back());
    int64_t p = 1;
    while (p * 2 <= vec)
      p *= 2;
    std::vector<int32_t> s(t.getShape().begin(), t.getShape().end());
    return layout::vectorizedCopyLayout(s, eb, tgt.warpSize, numWarps, {},
                                        int(p * eb));
  }

  LinearLayout fmaAccumulator(GemmOp g, bool aFrag, bool bFrag);
  LogicalResult anchorGemm(GemmOp g);
  /// The best atom for `g` if its A and B were (or were not) fragments;
  /// no atom: vector FMA.
  GemmChoice chooseAtom(GemmOp g, bool aFrag, bool bFrag);
  void stageFragmentOperands(GemmOp g);
  bool propagate();
  bool propagateParallel(ParallelOp p);
  bool readByGather(const Demand &d);
  void checkAndConvert();
  void insertConversion(Operation *op, Value tile, const LinearLayout &want,
                        bool reads, bool writes, Region *region = nullptr);
  void annotateCopies();
};

/// Splits `groups` warp groups over a tm x tn grid of atom tiles, along M
/// first: row statistics (softmax, attention) then stay within a warp and
/// successive gemms agree on rows.
static bool splitWarps(int64_t groups, int64_t tm, int64_t tn, int &wm,
                       int &wn) {
  wm = wn = 1;
  while (groups > 1) {
    bool canM = tm % (2 * wm) == 0, canN = tn % (2 * wn) == 0;
    if (!canM && !canN)
      return false;
    if (canM)
      wm *= 2;
    else
      wn *= 2;
    groups /= 2;
  }
  return true;
}

/// Atoms that read both operands themselves from shared memory (a_layout =
/// b_layout = "opaque": Vulkan's cooperative matrices) load one A per row of
/// atom tiles and one B per column in each K step, so a warp holding
/// tm x tn of them loads tm + tn matrices per step: splitting the warps over
/// both dims (2 x 2 warps of 4 x 4 instances instead of 4 x 1 of 2 x 8 for
/// 8 x 8 tiles) loads fewer. The split with the fewest loads, M first on
/// ties. Kernels that reduce keep splitWarps' rows within a warp (row
/// statistics would cross warps), and TESSERA_SPIRV_WARPS2D=0 turns this
/// off (A/B measurements).
static bool squareWarps(int64_t groups, int64_t tm, int64_t tn, int &wm,
                        int &wn) {
  int64_t best = -1;
  for (int64_t m = 1; m <= groups; m *= 2) {
    int64_t n = groups / m;
    if (tm % m || tn % n)
      continue;
    int64_t loads = tm / m + tn / n;
    if (best < 0 || loads < best || (loads == best && m > wm)) {
      best = loads;
      wm = int(m);
      wn = int(n);
    }
  }
  return best >= 0;
}

static bool readsOwnOperands(const target::MmaAtom &a) {
  return a.aLayoutName == "opaque" && a.bLayoutName == "opaque";
}

GemmChoice KernelLayouts::chooseAtom(GemmOp g, bool aFrag, bool bFrag) {
  auto at = cast<TileType>(g.getA().getType());
  auto ct = cast<TileType>(g.getC().getType());
  int64_t M = ct.getShape()[0], N = ct.getShape()[1];
  int64_t K = g.getTransposeA() ? at.getShape()[0] : at.getShape()[1];
  std::string ab = dataTypeName(at.getElementType());
  std::string c = dataTypeName(ct.getElementType());
  GemmChoice best;
  int64_t bestScore = -1;
  for (const target::MmaAtom *a : tgt.findMmaAtoms(ab, c)) {
    if (!a->cLayout || M % a->m || N % a->n || K % a->k || numWarps % a->warps)
      continue;
    if (atomFilter &&
        !atomFilter(*a, target::MmaUse{g.getTransposeA(), g.getTransposeB(),
                                       aFrag, bFrag}))
      continue;
    if ((aFrag && !a->aLayout) || (bFrag && !a->bLayout))
      continue;
    int wm, wn;
    if (!(readsOwnOperands(*a) && warps2d
              ? squareWarps(numWarps / a->warps, M / a->m, N / a->n, wm, wn)
              : splitWarps(numWarps / a->warps, M / a->m, N / a->n, wm, wn)))
      continue;
    int64_t score = int64_t(a->m) * a->n * a->k * 4;
    // Prefer reading shared operands by descriptor when the atom can.
    if (!aFrag && a->aLayoutName == "shared")
      score += 1;
    if (score > bestScore) {
      bestScore = score;
      best = {a, wm, wn};
    }
  }
  return best;
}

/// A fragment operand that no atom of the target reads from registers, where
/// an atom would read it from shared memory (Vulkan's cooperative matrices
/// load both operands themselves), is copied to a shared tile of its own
/// before the gemm: one round trip through shared memory instead of the
/// vector FMA the gemm would take (and its registers).
void KernelLayouts::stageFragmentOperands(GemmOp g) {
  bool aFrag = isFragment(g.getA()), bFrag = isFragment(g.getB());
  if ((!aFrag && !bFrag) || chooseAtom(g, aFrag, bFrag).atom)
    return;
  bool stageA = false, stageB = false;
  if (aFrag && chooseAtom(g, false, bFrag).atom) {
    stageA = true;
  } else if (bFrag && chooseAtom(g, aFrag, false).atom) {
    stageB = true;
  } else if (chooseAtom(g, false, false).atom) {
    stageA = aFrag, stageB = bFrag;
  } else {
    // Vector FMA either way: a fragment operand holds every K of its rows
    // (A) or columns (B) in registers; past half the register budget it is
    // read from shared memory instead.
    if (tgt.registersPerThread <= 0)
      return;
    auto ct = cast<TileType>(g.getC().getType());
    auto at = cast<TileType>(g.getA().getType());
    int64_t M = ct.getShape()[0], N = ct.getShape()[1];
    int64_t K = g.getTransposeA() ? at.getShape()[0] : at.getShape()[1];
    if (!allPow2({M, N, K}))
      return;
    LinearLayout lc = fmaAccumulator(g, aFrag, bFrag);
    int64_t regsA = project(lc, {0}, {M}).getInDimSize(layout::kRegister) * K;
    int64_t regsB = project(lc, {1}, {N}).getInDimSize(layout::kRegister) * K;
    stageA = aFrag && regsA > tgt.registersPerThread / 2;
    stageB = bFrag && regsB > tgt.registersPerThread / 2;
    if (!stageA && !stageB)
      return;
  }
  for (OpOperand *operand : {&g.getAMutable(), &g.getBMutable()}) {
    bool isA = operand == &g.getAMutable();
    if (!(isA ? stageA : stageB))
      continue;
    Value frag = operand->get();
    auto t = cast<TileType>(frag.getType());
    OpBuilder b(g);
    if (Operation *def = frag.getDefiningOp())
      b.setInsertionPointAfter(def);
    auto staged = AllocOp::create(
        b, g.getLoc(),
        TileType::get(t.getShape(), t.getElementType(), MemorySpace::Shared));
    b.setInsertionPoint(g);
    CopyOp::create(b, g.getLoc(), frag, ValueRange{}, staged.getResult(),
                   ValueRange{}, /*transpose=*/false);
    operand->set(staged.getResult());
  }
}

/// The vector-FMA accumulator: split over registers, lanes and warps so
/// that the operands' shared reads are few and free of bank conflicts, for
/// the way each operand is stored (FmaLayout.h). TESSERA_FMA_LAYOUT=0 keeps
/// the plain blocked layout (row-major vectors of 16 bytes over the lanes).
LinearLayout KernelLayouts::fmaAccumulator(GemmOp g, bool aFrag, bool bFrag) {
  if (!fmaLayoutEnabled())
    return balancedBlocked(g.getC(), 16);
  auto ct = cast<TileType>(g.getC().getType());
  auto at = cast<TileType>(g.getA().getType());
  int64_t K = g.getTransposeA() ? at.getShape()[0] : at.getShape()[1];
  auto operand = [&](Value v, bool frag, bool kContiguous) {
    FmaOperand op;
    auto t = cast<TileType>(v.getType());
    op.elemBytes = elementBytes(t.getElementType());
    // The gemm's K loop reads up to four elements of a row at once, within
    // one chunk of the swizzle (the copies' vector: at most 16 bytes).
    int chunkBytes = std::clamp(tgt.globalLoadVectorBytes, op.elemBytes, 16);
    op.vectorElems = std::max(1, std::min(chunkBytes / op.elemBytes, 4));
    if (frag || !t.isShared()) {
      op.read = FmaOperandRead::Registers;
    } else if (kContiguous) {
      op.read = FmaOperandRead::KContiguous;
      op.vectorElems = int(std::min<int64_t>(op.vectorElems, K));
    } else {
      op.read = FmaOperandRead::MNContiguous;
    }
    return op;
  };
  FmaOperand a = operand(g.getA(), aFrag, !g.getTransposeA());
  FmaOperand b = operand(g.getB(), bFrag, g.getTransposeB());
  std::optional<FmaTiling> t =
      chooseFmaTiling(ct.getShape()[0], ct.getShape()[1], tgt.warpSize,
                      numWarps, a, b, tgt.banks);
  if (!t)
    return balancedBlocked(g.getC(), 16);
  return fmaAccumulatorLayout(*t);
}

/// The way out for a tile that is not a power of two in every dimension:
/// the next powers of two, which copies allow where the tensor's dim is
/// symbolic (they read zeros past a tensor's edge and store nothing there,
/// so a head dim of 96 in 128-wide tiles is exact).
static void padNote(InFlightDiagnostic &d, ArrayRef<int64_t> shape) {
  std::string padded;
  for (int64_t e : shape)
    padded += (padded.empty() ? "" : "x") +
              std::to_string(int64_t(llvm::PowerOf2Ceil(uint64_t(e))));
  d.attachNote() << "pad the tile to " << padded
                 << ": a copy may cover more than a tensor dim of symbolic "
                    "size (it reads zeros past the tensor's edge and stores "
                    "nothing there), so e.g. a head dim of 96 runs exactly in "
                    "128-wide tiles of a [B, H, S, D] tensor";
}

LogicalResult KernelLayouts::anchorGemm(GemmOp g) {
  auto at = cast<TileType>(g.getA().getType());
  auto ct = cast<TileType>(g.getC().getType());
  int64_t M = ct.getShape()[0], N = ct.getShape()[1];
  int64_t K = g.getTransposeA() ? at.getShape()[0] : at.getShape()[1];
  for (Value v : {g.getA(), g.getB(), g.getC()})
    if (!allPow2(shapeOf(v))) {
      auto d = g.emitOpError("tile shape of an operand is not a power of two "
                             "in every dimension: no linear layout fits");
      padNote(d, shapeOf(v));
      return d;
    }
  std::string ab = dataTypeName(at.getElementType());
  std::string c = dataTypeName(ct.getElementType());
  bool aFrag = at.isFragment(),
       bFrag = cast<TileType>(g.getB().getType()).isFragment();

  GemmChoice best = chooseAtom(g, aFrag, bFrag);
  Builder b(g.getContext());
  LinearLayout lc, la, lb;
  if (best.atom) {
    const target::MmaAtom &a = *best.atom;
    std::vector<Basis> wc, wa, wb;
    for (int i = 0; (1 << i) < best.wm; ++i) {
      wc.push_back({int32_t(a.m << i), 0});
      wa.push_back({int32_t(a.m << i), 0});
      wb.push_back({0, 0});
    }
    for (int i = 0; (1 << i) < best.wn; ++i) {
      wc.push_back({0, int32_t(a.n << i)});
      wa.push_back({0, 0});
      wb.push_back({0, int32_t(a.n << i)});
    }
    lc = tileOperand(*a.cLayout, wc, {M, N});
    if (a.aLayout)
      la = tileOperand(*a.aLayout, wa, {M, K});
    if (a.bLayout)
      lb = tileOperand(*a.bLayout, wb, {K, N});
    g->setAttr("atom", b.getStringAttr(a.name));
  } else {
    if (!allowFma)
      return g.emitOpError("no MMA atom of target '")
             << tgt.name << "' computes " << ab << " x " << ab << " -> " << c
             << " on a " << M << "x" << N << "x" << K << " tile with "
             << numWarps << " warps";
    // Vector FMA: each thread holds a block of the accumulator and the rows
    // of A and columns of B its elements need.
    lc = fmaAccumulator(g, aFrag, bFrag);
    auto withK = [&](const LinearLayout &p, int kDim, ArrayRef<int64_t> shape) {
      LinearLayout::Bases bases = p.getBases();
      for (auto &[name, bs] : bases)
        if (name == layout::kRegister)
          for (int64_t s = 1; s < K; s *= 2) {
            Basis v(2, 0);
            v[kDim] = int32_t(s);
            bs.push_back(v);
          }
      return LinearLayout(bases, outDimsOf(shape));
    };
    // project keeps dim0 (M) for A and dim1 (N) for B as a 1-D layout; the
    // K coordinate is added as a zero column, then swept by registers.
    auto widen = [&](const LinearLayout &p, int at) {
      LinearLayout::Bases bases = p.getBases();
      for (auto &[name, bs] : bases)
        for (Basis &v : bs)
          v = at == 0 ? Basis{v[0], 0} : Basis{0, v[0]};
      return bases;
    };
    LinearLayout pa = project(lc, {0}, {M}), pb = project(lc, {1}, {N});
    la = withK(LinearLayout(widen(pa, 0), outDimsOf({M, K})), 1, {M, K});
    lb = withK(LinearLayout(widen(pb, 1), outDimsOf({K, N})), 0, {K, N});
    g->setAttr("atom", b.getStringAttr("fma"));
  }
  g->setAttr("warps", b.getDenseI64ArrayAttr({best.wm, best.wn}));
  if (g.getTransposeA() && la.getTotalInDimSize() > 1)
    la = la.transposeOuts({"dim1", "dim0"});
  if (g.getTransposeB() && lb.getTotalInDimSize() > 1)
    lb = lb.transposeOuts({"dim1", "dim0"});
  auto demand = [&](Value v, const LinearLayout &l, bool reads, bool writes) {
    if (!isFragment(v))
      return;
    assign(v, l);
    gemmDemands.push_back({g, v, l, reads, writes});
  };
  demand(g.getC(), lc, !g.getClear(), true);
  if (aFrag)
    demand(g.getA(), la, true, false);
  if (bFrag)
    demand(g.getB(), lb, true, false);
  return success();
}

/// Tile accesses of a parallel region: for each tile, which region dim each
/// of its dims is indexed by (parallelAccessDims: -1 not a plain induction
/// variable, kUnitAccessDim the constant 0 into a dim of size 1).
static void collectAccesses(ParallelOp p,
                            llvm::MapVector<Value, SmallVector<int>> &acc,
                            llvm::DenseMap<Value, std::pair<bool, bool>> &rw) {
  Block &body = p.getBody().front();
  auto dimsOf = [&](Value tile, ValueRange idx) {
    return parallelAccessDims(body, idx,
                              cast<TileType>(tile.getType()).getShape());
  };
  p.getBody().walk([&](Operation *op) {
    if (auto l = dyn_cast<LoadOp>(op)) {
      acc.insert({l.getTile(), dimsOf(l.getTile(), l.getIndices())});
      rw[l.getTile()].first = true;
    } else if (auto s = dyn_cast<StoreOp>(op)) {
      acc.insert({s.getTile(), dimsOf(s.getTile(), s.getIndices())});
      rw[s.getTile()].second = true;
    }
  });
}

/// The layout a region with reference layout `ref` (over the region's index
/// space) demands of a tile indexed by region dims `dims`; nullopt when the
/// indices are not plain induction variables. A tile dim longer than the
/// region dim indexing it (both powers of two: the region reads its first
/// elements) holds those elements where the region's threads use them and
/// the rest in further registers of the same threads.
static std::optional<LinearLayout> demandedBy(const LinearLayout &ref,
                                              ArrayRef<int> dims,
                                              ArrayRef<int64_t> regionShape,
                                              ArrayRef<int64_t> tileShape) {
  SmallVector<int64_t> part(tileShape.begin(), tileShape.end());
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == kUnitAccessDim ? tileShape[i] != 1 : dims[i] < 0)
      return std::nullopt;
    if (dims[i] == kUnitAccessDim || regionShape[dims[i]] == tileShape[i])
      continue;
    if (regionShape[dims[i]] > tileShape[i] ||
        !llvm::isPowerOf2_64(regionShape[dims[i]]) ||
        !llvm::isPowerOf2_64(tileShape[i]))
      return std::nullopt;
    part[i] = regionShape[dims[i]];
  }
  if (ArrayRef<int64_t>(part) == tileShape)
    return project(ref, dims, tileShape);
  LinearLayout::Bases bases = project(ref, dims, part).getBases();
  auto reg = llvm::find_if(
      bases, [](const auto &e) { return e.first == layout::kRegister; });
  if (reg == bases.end())
    reg = bases.insert(bases.begin(), {layout::kRegister, {}});
  for (size_t i = 0; i < part.size(); ++i)
    for (int64_t bit = part[i]; bit < tileShape[i]; bit *= 2) {
      LinearLayout::Basis b(part.size(), 0);
      b[i] = int32_t(bit);
      reg->second.push_back(b);
    }
  return LinearLayout(bases, outDimsOf(tileShape));
}

bool KernelLayouts::propagateParallel(ParallelOp p) {
  llvm::MapVector<Value, SmallVector<int>> acc;
  llvm::DenseMap<Value, std::pair<bool, bool>> rw;
  collectAccesses(p, acc, rw);
  ArrayRef<int64_t> rs = p.getShape();
  if (!allPow2(rs))
    return false;
  std::optional<LinearLayout> ref;
  SmallVector<int> identity;
  for (size_t i = 0; i < rs.size(); ++i)
    identity.push_back(int(i));
  for (auto &[tile, dims] : acc)
    if (has(tile) && ArrayRef<int>(dims) == ArrayRef<int>(identity) &&
        shapeOf(tile) == rs) {
      ref = assigned.find(tile)->second;
      break;
    }
  if (!ref)
    return false;
  bool changed = false;
  for (auto &[tile, dims] : acc)
    if (isFragment(tile) && !has(tile))
      if (auto l = demandedBy(*ref, dims, rs, shapeOf(tile)))
        changed |= assign(tile, *l);
  return changed;
}

bool KernelLayouts::propagate() {
  bool changed = false;
  kernel.walk([&](Operation *op) {
    if (auto r = dyn_cast<ReduceOp>(op)) {
      if (has(r.getSrc()) && !has(r.getDst())) {
        SmallVector<int> keep;
        for (int i = 0; i < int(shapeOf(r.getSrc()).size()); ++i)
          if (i != int(r.getDim()))
            keep.push_back(i);
        changed |= assign(r.getDst(), project(assigned.find(r.getSrc())->second,
                                              keep, shapeOf(r.getDst())));
      }
    } else if (auto c = dyn_cast<CopyOp>(op)) {
      if (isFragment(c.getSrc()) && isFragment(c.getDst())) {
        auto pass = [&](Value from, Value to) {
          if (!has(from) || has(to))
            return;
          LinearLayout l = assigned.find(from)->second;
          if (c.getTranspose())
            l = LinearLayout(l.transposeOuts({"dim1", "dim0"}).getBases(),
                             outDimsOf(shapeOf(to)));
          changed |= assign(to, l);
        };
        pass(c.getSrc(), c.getDst());
        pass(c.getDst(), c.getSrc());
      }
    } else if (auto p = dyn_cast<ParallelOp>(op)) {
      changed |= propagateParallel(p);
    }
  });
  return changed;
}

void KernelLayouts::insertConversion(Operation *op, Value tile,
                                     const LinearLayout &want, bool reads,
                                     bool writes, Region *region) {
  auto t = cast<TileType>(tile.getType());
  OpBuilder b(op);
  Operation *def = tile.getDefiningOp();
  if (def)
    b.setInsertionPointAfter(def);
  auto tmp = AllocOp::create(b, op->getLoc(), t);
  assigned.insert({tmp.getResult(), want});
  auto kind = layout::estimateConversionCost(assigned.find(tile)->second, want);
  auto kindAttr = b.getStringAttr(layout::toString(kind.kind));
  if (reads) {
    b.setInsertionPoint(op);
    auto cv = ConvertLayoutOp::create(b, op->getLoc(), tile, tmp);
    cv->setAttr("kind", kindAttr);
  }
  if (writes) {
    b.setInsertionPointAfter(op);
    auto cv = ConvertLayoutOp::create(b, op->getLoc(), tmp, tile);
    cv->setAttr("kind", kindAttr);
  }
  if (region)
    replaceAllUsesInRegionWith(tile, tmp, *region);
  else
    op->replaceUsesOfWith(tile, tmp);
}

/// A gemm operand held in fewer registers than its atom's layout takes
/// (the atom repeats elements across lanes) is read by lane shuffles each
/// k-step instead of converted into a repeated copy (LaneGather.h): the
/// gemm records the layout its atom reads as `a_layout` / `b_layout`.
bool KernelLayouts::readByGather(const Demand &d) {
  auto g = dyn_cast<GemmOp>(d.op);
  // Vector FMA (atom "fma") reads fragment operands by register directly.
  auto atom = g ? g->getAttrOfType<StringAttr>("atom") : StringAttr();
  if (!g || !atom || atom.getValue() == "fma" || d.writes ||
      (d.tile != g.getA() && d.tile != g.getB()) || g.getA() == g.getB())
    return false;
  // Shuffles move 32-bit words of whole registers.
  unsigned bits =
      cast<TileType>(d.tile.getType()).getElementType().getIntOrFloatBitWidth();
  const LinearLayout &held = assigned.find(d.tile)->second;
  if (bits > 32 || 32 % bits ||
      held.getInDimSize(layout::kRegister) % (32 / bits) ||
      held.getInDimSize(layout::kRegister) >=
          d.layout.getInDimSize(layout::kRegister) ||
      !planLaneGather(held, d.layout))
    return false;
  g->setAttr(d.tile == g.getA() ? "a_layout" : "b_layout",
             toLayoutAttr(g.getContext(), d.layout));
  return true;
}

void KernelLayouts::checkAndConvert() {
  auto differs = [&](Value v, const LinearLayout &l) {
    return isFragment(v) && has(v) && !(assigned.find(v)->second == l);
  };
  for (Demand &d : gemmDemands)
    if (differs(d.tile, d.layout) && !readByGather(d))
      insertConversion(d.op, d.tile, d.layout, d.reads, d.writes);
  SmallVector<ReduceOp> reduces;
  SmallVector<ParallelOp> pars;
  kernel.walk([&](Operation *op) {
    if (auto r = dyn_cast<ReduceOp>(op))
      reduces.push_back(r);
    else if (auto p = dyn_cast<ParallelOp>(op))
      pars.push_back(p);
  });
  for (ReduceOp r : reduces) {
    if (!has(r.getSrc()))
      continue;
    SmallVector<int> keep;
    for (int i = 0; i < int(shapeOf(r.getSrc()).size()); ++i)
      if (i != int(r.getDim()))
        keep.push_back(i);
    LinearLayout want =
        project(assigned.find(r.getSrc())->second, keep, shapeOf(r.getDst()));
    if (differs(r.getDst(), want))
      insertConversion(r, r.getDst(), want, r.getAccumulate(), true);
  }
  for (ParallelOp p : pars) {
    llvm::MapVector<Value, SmallVector<int>> acc;
    llvm::DenseMap<Value, std::pair<bool, bool>> rw;
    collectAccesses(p, acc, rw);
    ArrayRef<int64_t> rs = p.getShape();
    SmallVector<int> identity;
    for (size_t i = 0; i < rs.size(); ++i)
      identity.push_back(int(i));
    std::optional<LinearLayout> ref;
    for (auto &[tile, dims] : acc)
      if (has(tile) && ArrayRef<int>(dims) == ArrayRef<int>(identity) &&
          shapeOf(tile) == rs) {
        ref = assigned.find(tile)->second;
        break;
      }
    if (!ref)
      continue;
    for (auto &[tile, dims] : acc) {
      auto want = demandedBy(*ref, dims, rs, shapeOf(tile));
      if (want && differs(tile, *want))
        insertConversion(p, tile, *want, rw[tile].first, rw[tile].second,
                         &p.getBody());
    }
  }
}

void KernelLayouts::annotateCopies() {
  Builder b(kernel.getContext());
  kernel.walk([&](CopyOp c) {
    auto st = dyn_cast<TileType>(c.getSrc().getType());
    auto dt = dyn_cast<TileType>(c.getDst().getType());
    if (st && dt) {
      if (isFragment(c.getSrc()) && isFragment(c.getDst()) && has(c.getSrc()) &&
          has(c.getDst())) {
        LinearLayout s = assigned.find(c.getSrc())->second;
        if (c.getTranspose())
          s = LinearLayout(s.transposeOuts({"dim1", "dim0"}).getBases(),
                           outDimsOf(dt.getShape()));
        auto k = layout::estimateConversionCost(
            s, assigned.find(c.getDst())->second);
        c->setAttr("conversion", b.getStringAttr(layout::toString(k.kind)));
      }
      return;
    }
    TileType t = st ? st : dt;
    Value tile = st ? c.getSrc() : c.getDst();
    int eb = elementBytes(t.getElementType());
    if (t.isShared() && allPow2(t.getShape())) {
      LinearLayout l = balancedBlocked(tile, tgt.globalLoadVectorBytes);
      c->setAttr("layout", toLayoutAttr(b.getContext(), l));
      c->setAttr("vector_bytes",
                 b.getI64IntegerAttr(l.getContiguousRegisters(layout::dimName(
                                         int(t.getRank() - 1))) *
                                     eb));
    } else if (has(tile)) {
      const LinearLayout &l = assigned.find(tile)->second;
      int64_t v =
          l.getContiguousRegisters(layout::dimName(int(t.getRank() - 1))) * eb;
      v = std::min<int64_t>(v, tgt.globalLoadVectorBytes);
      c->setAttr("vector_bytes", b.getI64IntegerAttr(std::max<int64_t>(v, eb)));
    }
  });
}

LogicalResult KernelLayouts::run() {
  int64_t threads = kernel.getThreads();
  if (threads % tgt.warpSize)
    return kernel.emitOpError("threads = ")
           << threads << " is not a multiple of the warp size " << tgt.warpSize
           << " of target '" << tgt.name << "'";
  if (threads > tgt.maxThreadsPerBlock)
    return kernel.emitOpError("threads = ")
           << threads << " exceeds the " << tgt.maxThreadsPerBlock
           << " threads per block of target '" << tgt.name << "'";
  numWarps = int(threads / tgt.warpSize);
  if (!layout::isPowerOf2(numWarps))
    return kernel.emitOpError("threads = ")
           << threads << " gives " << numWarps
           << " warps, not a power of two: no linear layout fits";
  Builder b(kernel.getContext());
  kernel->setAttr("tile.warps", b.getI64IntegerAttr(numWarps));

  // Layouts forced by the author.
  kernel.walk([&](AllocOp a) {
    if (a.getType().isFragment() && a.getType().getLayout())
      assigned.insert({a.getResult(), fromLayoutAttr(a.getType().getLayout(),
                                                     a.getType().getShape())});
  });
  const char *env = std::getenv("TESSERA_SPIRV_WARPS2D");
  warps2d = !(env && std::string(env) == "0") &&
            !kernel.walk([](ReduceOp) { return WalkResult::interrupt(); })
                 .wasInterrupted();
  // 1. anchors.
  SmallVector<GemmOp> gemms;
  kernel.walk([&](GemmOp g) { gemms.push_back(g); });
  for (GemmOp g : gemms)
    stageFragmentOperands(g);
  for (GemmOp g : gemms)
    if (failed(anchorGemm(g)))
      return failure();
  while (propagate()) {
  }
  // 2. copies from global memory seed what the anchors did not reach.
  SmallVector<CopyOp> copies;
  kernel.walk([&](CopyOp c) { copies.push_back(c); });
  for (CopyOp c : copies) {
    Value tile = isa<TileType>(c.getDst().getType()) ? c.getDst() : c.getSrc();
    if (isa<GlobalTensorType>(c.getSrc().getType()) ||
        isa<GlobalTensorType>(c.getDst().getType()))
      if (isFragment(tile) && !has(tile) && allPow2(shapeOf(tile))) {
        assign(tile, balancedBlocked(tile, tgt.globalLoadVectorBytes));
        while (propagate()) {
        }
      }
  }
  // 3. the rest: a blocked layout over the block's threads.
  SmallVector<AllocOp> allocs;
  kernel.walk([&](AllocOp a) { allocs.push_back(a); });
  for (AllocOp a : allocs)
    if (a.getType().isFragment() && !has(a.getResult())) {
      if (!allPow2(a.getType().getShape())) {
        auto d = a.emitOpError("fragment shape is not a power of two in every "
                               "dimension: no linear layout fits");
        padNote(d, a.getType().getShape());
        return d;
      }
      assign(a.getResult(), balancedBlocked(a.getResult(), 16));
      while (propagate()) {
      }
    }
  // 4. conflicts, then write the types.
  checkAndConvert();
  annotateCopies();
  for (auto &[v, l] : assigned) {
    auto t = cast<TileType>(v.getType());
    v.setType(withLayout(t, toLayoutAttr(v.getContext(), l)));
  }
  return success();
}

struct InferLayoutsPass : TargetPass<InferLayoutsPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(InferLayoutsPass)
  InferLayoutsPass() = default;
  InferLayoutsPass(const InferLayoutsPass &o)
      : TargetPass(o), atomFilter(o.atomFilter) {}
  StringRef getName() const override { return "TesseraInferLayouts"; }
  StringRef getArgument() const override { return "tessera-infer-layouts"; }
  StringRef getDescription() const override {
    return "Give every fragment tile a linear layout chosen from the target's "
           "MMA atoms, copies and element-wise uses";
  }
  Option<bool> fmaFallback{
      *this, "fma-fallback",
      llvm::cl::desc("lay out a gemm with no matching MMA atom for vector FMA "
                     "(otherwise: an error)"),
      llvm::cl::init(true)};
  /// Atoms the backend can emit (all when empty); set from C++ only.
  AtomFilter atomFilter;

  void runWithTarget(const target::TargetDescription &t) {
    for (KernelOp k : kernelsOf(getOperation()))
      if (failed(inferKernelLayouts(k, t, fmaFallback, atomFilter)))
        return signalPassFailure();
  }
};

} // namespace

LogicalResult inferKernelLayouts(KernelOp kernel,
                                 const target::TargetDescription &target,
                                 bool allowFma, const AtomFilter &filter) {
  KernelLayouts kl(kernel, target, allowFma, filter);
  try {
    return kl.run();
  } catch (const layout::LayoutError &e) {
    return kernel.emitOpError("layout inference failed: ") << e.what();
  }
}

std::unique_ptr<Pass> createInferLayoutsPass(const std::string &target,
                                             AtomFilter filter) {
  auto p = makeTargetPass<InferLayoutsPass>(target);
  p->atomFilter = std::move(filter);
  return p;
}
void registerInferLayoutsPass() { PassRegistration<InferLayoutsPass>(); }

} // namespace tessera::passes
