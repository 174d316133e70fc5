//===- KSteps.cpp - tessera-k-steps ---------------------------------------===//
//
// Chooses the K step of a pipelined GEMM loop where the program wrote one
// the target runs worse: shortens steps that are too long and lengthens
// steps that are too short. A loop
//
//   tile.pipelined %kt = %lb to %ub step %c1 stages = S {
//     %k0 = arith.muli %kt, %cBK : index
//     tile.copy %A[%row, %k0], %As : ..., !tile.tile<128x128xbf16, shared>
//     tile.copy %B[%k0, %col], %Bs : ..., !tile.tile<128x256xbf16, shared>
//     tile.gemm %As, %Bs, %Cf : ...
//   }
//
// becomes the same loop over [2 lb, 2 ub) with K steps of BK / 2 (the tiles
// copied in it half as deep along K). The rewrite is exact: the two halves
// of a step copy the same elements (masked at the tensor's edges the same
// way) and the gemms accumulate them into C in the same order, so C gets
// the same sequence of multiply-adds; a half past the end of K copies
// zeros, as the masked part of the wider step did. Where the loop runs from
// 0 to ceildiv(D, BK) for a tensor dimension D that every copy's K
// dimension equals (the same symbol or static size), it runs to ceildiv(D,
// BK / 2) instead: the halves that would start past D copy only zeros.
//
// Lengthening is the converse, over [0, ceildiv(D, 2 BK)) with steps of
// 2 BK; it is exact only where the longer last step adds nothing but
// zeros, so only for loops of that form: the part of the last step past
// ceildiv(D, BK) * BK then lies past D.
//
// Which loops: at the top of a loop body only
//   - copies of a global tensor into a shared tile allocated outside the loop
//     whose offsets are loop-invariant except one, `iv * BK` (one constant
//     BK for the loop, the induction variable used nowhere else, step 1), at
//     the tensor dimension the tile covers with extent BK;
//   - gemms whose A and B are such tiles, with K along that dimension (A's
//     columns, or rows with transpose_a; B's rows, or columns with
//     transpose_b), accumulating (no `clear`) into a C defined outside the
//     loop;
//   - side-effect-free index arithmetic.
// Those tiles must have no other users. Anything else keeps the loop as
// written (attention loops, epilogues in the loop, gemms that clear, ...).
//
// When: lengthening where BK is less than two K steps of the gemms' MMA
// atom (wgmma f16: 16; gemm.mlir written with 16-deep steps ran 0.297 ms at
// 4096^3 on an H200, lengthened to 32 0.189, as the program written with
// 32: 0.188-0.190, 2026-11-28), and where the block's gemms do fewer than
// `min_k_step_macs` multiply-adds a step (lengthenForMacs: a 128x128 bf16
// GEMM that cannot be merged into 128x256 blocks ran 32-deep steps in
// 0.308 ms at 4096^3 and 64-deep ones in 0.212, H200, 2026-11-29), in a
// block alone on its multiprocessor by registers, while
// min_pipeline_stages stages still fit. Halving while BK / 2 is a whole number
// of at least two K steps of the MMA atom the gemms' types take (wgmma bf16:
// 16, so down to 32), and either
//   - the loop's shared tiles, multi-buffered, would leave the pipeline
//     fewer than the target's `min_pipeline_stages` stages in the block's
//     shared memory (sm_90a: 4; a merged 128x256 block of gemm_bf16_64x64_
//     rowbias's 128-deep steps holds 96 KiB per stage: two stages), or
//   - an operand row of the step is wider than `max_k_step_bytes` (sm_90a:
//     64), each half still does at least `min_k_step_macs` multiply-adds
//     per block, all the step's gemms together (sm_90a: 128 x 256 x 32;
//     small blocks keep long steps: their waits and barriers cost as much
//     as their MMAs), no gemm reads A with K
//     along its rows (transpose_a) and none has 8-bit operands (both
//     measured slower).
// Measured on an H200 (2026-11-28, same runs): gemm_bf16_64x64_rowbias
// merged to 128x256 blocks, 4096^3: 128-deep steps (2 stages) 0.259 ms,
// 64-deep (4 stages) 0.194, 32-deep 0.186; 8192^3: 2.05 / 1.51 / 1.46 ms.
// 64 -> 32 (bf16) and 128 -> 64 (fp8) on the zoo's other GEMMs at 4096:
// colbias_gelu -2.6%, batched -3.1%, fp8_128x256_scaled -3.9%, splitk_f32
// -1.0%, 128x256_silu +0.2% (time); gemm_bf16_tt (A transposed) +15%;
// gemm_fp8 +0.8% at 4096^3, +5.3% at 8192^3.
//
// TESSERA_K_STEPS=0 turns the pass off, =stages applies only the first rule
// (A/B measurements; both in the compile cache key), =explain puts a remark
// on each pipelined loop saying what it did or why not. A split loop carries
// `tile.k_step_from = BK` (the step the program wrote; --print-ir-after-all).
//
//===----------------------------------------------------------------------===//

#include "PassCommon.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Support/raw_ostream.h"

#include <cassert>
#include <cstdlib>
#include <optional>
#include <string>

using namespace mlir;
using namespace tessera;
using namespace tessera::tile;

namespace tessera::passes {
namespace {

enum class Mode { Off, Stages, All };

/// A pipelined loop the pass may split: its K step, the shared tiles whose
/// dimension `dims[i]` follows it, and the ops to rewrite.
struct KLoop {
  PipelinedOp loop;
  int64_t step = 0;  ///< BK
  arith::MulIOp mul; ///< iv * BK
  unsigned constIdx; ///< which operand of `mul` is BK
  llvm::SmallVector<AllocOp> tiles;
  llvm::SmallVector<int64_t> dims;
  llvm::SmallVector<GemmOp> gemms;
  /// The copies and the tensor dimension each puts iv * BK at.
  llvm::SmallVector<CopyOp> copies;
  llvm::SmallVector<unsigned> tensorDims;
};

/// The tile dimension a copy from a global tensor puts tensor dimension
/// `t` in, or -1 (a leading dimension of a rank-reducing copy).
int64_t tileDimOf(CopyOp c, unsigned t) {
  auto src = cast<GlobalTensorType>(c.getSrc().getType());
  auto dst = cast<TileType>(c.getDst().getType());
  int64_t lead = src.getRank() - dst.getRank();
  int64_t d = int64_t(t) - lead;
  if (d < 0)
    return -1;
  if (c.getTranspose())
    d = dst.getRank() - 1 - d;
  return d;
}

/// Finds whether `p` has the form above; `why` says why not.
std::optional<KLoop> analyze(PipelinedOp p, std::string &why) {
  KLoop k;
  k.loop = p;
  Block &body = p.getBodyBlock();
  if (!matchPattern(p.getStep(), m_One())) {
    why = "the loop's step is not 1";
    return std::nullopt;
  }
  Value iv = p.getInductionVar();
  if (!iv.hasOneUse()) {
    why = "the induction variable is used other than once, as iv * BK";
    return std::nullopt;
  }
  k.mul = dyn_cast<arith::MulIOp>(iv.use_begin()->getOwner());
  APInt bk;
  if (!k.mul || k.mul->getBlock() != &body) {
    why = "the induction variable is not multiplied by a constant K step";
    return std::nullopt;
  }
  k.constIdx = k.mul.getLhs() == iv ? 1 : 0;
  if (!matchPattern(k.mul->getOperand(k.constIdx), m_ConstantInt(&bk)) ||
      bk.getSExtValue() <= 1) {
    why = "the induction variable is not multiplied by a constant K step";
    return std::nullopt;
  }
  k.step = bk.getSExtValue();
  Value k0 = k.mul.getResult();
  llvm::DenseMap<Value, int64_t> dimOf; // shared tile -> dimension along K
  for (Operation &op : body.without_terminator()) {
    if (&op == k.mul.getOperation())
      continue;
    if (auto c = dyn_cast<CopyOp>(&op)) {
      auto dt = dyn_cast<TileType>(c.getDst().getType());
      auto alloc = c.getDst().getDefiningOp<AllocOp>();
      if (!isa<GlobalTensorType>(c.getSrc().getType()) || !dt ||
          !dt.isShared() || !alloc || p->isAncestor(alloc)) {
        why = "a copy in the loop is not from a global tensor into a shared "
              "tile allocated outside it";
        return std::nullopt;
      }
      int64_t dim = -1;
      for (auto [i, o] : llvm::enumerate(c.getSrcOffsets())) {
        if (o == k0) {
          int64_t d = tileDimOf(c, i);
          if (d < 0 || dim >= 0 || dt.getShape()[d] != k.step) {
            why = "a copy's K offset is not at a tile dimension of extent BK";
            return std::nullopt;
          }
          dim = d;
          continue;
        }
        if (Operation *def = o.getDefiningOp(); def && p->isAncestor(def)) {
          why = "a copy's offset other than iv * BK is computed in the loop";
          return std::nullopt;
        }
      }
      if (dim < 0 || !c.getDstOffsets().empty() || dimOf.count(c.getDst())) {
        why = "a copy in the loop does not follow the K step";
        return std::nullopt;
      }
      for (auto [i, o] : llvm::enumerate(c.getSrcOffsets()))
        if (o == k0)
          k.tensorDims.push_back(i);
      k.copies.push_back(c);
      dimOf[c.getDst()] = dim;
      k.tiles.push_back(alloc);
      k.dims.push_back(dim);
      continue;
    }
    if (auto g = dyn_cast<GemmOp>(&op)) {
      if (g.getClear()) {
        why = "a gemm in the loop clears its accumulator";
        return std::nullopt;
      }
      if (Operation *def = g.getC().getDefiningOp();
          !def || p->isAncestor(def)) {
        why = "a gemm's accumulator is not defined outside the loop";
        return std::nullopt;
      }
      k.gemms.push_back(g);
      continue;
    }
    if (isMemoryEffectFree(&op) && op.getNumRegions() == 0 &&
        llvm::all_of(op.getResultTypes(), [](Type t) { return t.isIndex(); })) {
      // Index arithmetic: it must not see the K step.
      for (Value o : op.getOperands())
        if (o == k0) {
          why = "iv * BK is used other than as a copy offset";
          return std::nullopt;
        }
      continue;
    }
    why = "the loop holds an op other than copies, accumulating gemms and "
          "index arithmetic ('" +
          op.getName().getStringRef().str() + "')";
    return std::nullopt;
  }
  if (k.gemms.empty()) {
    why = "the loop has no gemm";
    return std::nullopt;
  }
  for (GemmOp g : k.gemms) {
    auto a = dimOf.find(g.getA()), b = dimOf.find(g.getB());
    if (a == dimOf.end() || b == dimOf.end() ||
        a->second != (g.getTransposeA() ? 0 : 1) ||
        b->second != (g.getTransposeB() ? 1 : 0)) {
      why = "a gemm's A or B is not a tile copied along K in the loop";
      return std::nullopt;
    }
  }
  // The tiles are read by those gemms alone (and written by their copy).
  for (AllocOp a : k.tiles)
    for (OpOperand &u : a.getResult().getUses()) {
      Operation *o = u.getOwner();
      if (auto c = dyn_cast<CopyOp>(o); c && c.getDst() == a.getResult() &&
                                        o->getParentOp() == p.getOperation())
        continue;
      if (auto g = dyn_cast<GemmOp>(o);
          g && llvm::is_contained(k.gemms, g) && g.getC() != a.getResult())
        continue;
      why = "a tile copied in the loop has another user";
      return std::nullopt;
    }
  return k;
}

/// The K step of the gemms' MMA atom (the largest the target has for their
/// types; 1 for vector FMA).
int64_t atomK(const KLoop &k, const target::TargetDescription &tgt) {
  int64_t most = 1;
  for (GemmOp g : k.gemms) {
    auto at = cast<TileType>(g.getA().getType());
    auto ct = cast<TileType>(g.getC().getType());
    for (const target::MmaAtom *atom :
         tgt.findMmaAtoms(dataTypeName(at.getElementType()),
                          dataTypeName(ct.getElementType())))
      if (atom->kind != target::MmaKind::Fma)
        most = std::max<int64_t>(most, atom->k);
  }
  return most;
}

/// How many stages of the loop's tiles at K step `step` fit beside the
/// kernel's other shared tiles, and the widest operand row of a step.
int64_t stagesAt(const KLoop &k, int64_t step, KernelOp kernel,
                 const target::TargetDescription &tgt, int64_t &rowBytes) {
  int64_t buffered = 0;
  rowBytes = 0;
  llvm::SmallPtrSet<Operation *, 4> ours;
  for (auto [alloc, d] : llvm::zip(k.tiles, k.dims)) {
    AllocOp a = alloc;
    TileType t = a.getType();
    buffered += sharedTileBytes(t, 0) / t.getShape()[d] * step;
    rowBytes =
        std::max<int64_t>(rowBytes, step * elementBytes(t.getElementType()));
    ours.insert(a);
  }
  int64_t others = 0;
  kernel.walk([&](AllocOp a) {
    if (a.getType().isShared() && !ours.contains(a))
      others += sharedTileBytes(a.getType(), 0);
  });
  int64_t room = tgt.sharedMemoryPerBlockOptin - others;
  return buffered > 0 ? room / buffered : 0;
}

/// The block's multiply-adds in a K step of `step`: every gemm of the step
/// (two gemms that share a stage's barrier and waits amortize them
/// together).
int64_t macsAt(const KLoop &k, int64_t step) {
  int64_t macs = 0;
  for (GemmOp g : k.gemms)
    macs += cast<TileType>(g.getC().getType()).getNumElements() * step;
  return macs;
}

/// Whether every gemm reads 2-byte or wider operands.
bool wideOperands(const KLoop &k) {
  return llvm::all_of(k.gemms, [](GemmOp g) {
    return elementBytes(cast<TileType>(g.getA().getType()).getElementType()) >=
               2 &&
           elementBytes(cast<TileType>(g.getB().getType()).getElementType()) >=
               2;
  });
}

/// Whether to halve the step, and why (or why not).
bool shouldSplit(const KLoop &k, int64_t step, KernelOp kernel,
                 const target::TargetDescription &tgt, Mode mode,
                 std::string &why) {
  int64_t half = step / 2;
  int64_t ak = atomK(k, tgt);
  // Gemms on vector FMA (no matrix atom) keep their steps: neither rule was
  // measured on them.
  if (ak <= 1) {
    why = "the gemms take vector FMA (no matrix atom for their types)";
    return false;
  }
  if (step % 2 != 0 || half % ak != 0 || half < 2 * ak) {
    why = "a step of " + std::to_string(half) +
          " would be less than two K steps of the MMA atom (" +
          std::to_string(ak) + ")";
    return false;
  }
  int64_t rowBytes = 0;
  int64_t stages = stagesAt(k, step, kernel, tgt, rowBytes);
  if (tgt.minPipelineStages > 0 && stages < tgt.minPipelineStages) {
    why = "K steps of " + std::to_string(step) + " leave room for " +
          std::to_string(stages) + " stages, fewer than the " +
          std::to_string(tgt.minPipelineStages) + " of target '" + tgt.name +
          "'";
    return true;
  }
  // Gemms reading A with K along its rows (transpose_a) keep their steps
  // under this rule: gemm_bf16_tt split from 64 to 32 ran 15% slower on an
  // H200 (2026-11-28) while gemms with K along A's columns gained 1-4%.
  bool kMajorA =
      llvm::none_of(k.gemms, [](GemmOp g) { return g.getTransposeA(); });
  // 8-bit operands likewise: gemm_fp8 at 8192^3 split from 128 to 64 ran
  // 0.800 ms against 0.760 (H200, 2026-11-28; 4096^3 and the zoo's
  // fp8_128x256_scaled within 1-4% either way).
  bool wide = wideOperands(k);
  if (mode == Mode::All && tgt.maxKStepBytes > 0 && kMajorA && wide &&
      rowBytes > tgt.maxKStepBytes) {
    int64_t macs = macsAt(k, half);
    if (macs >= tgt.minKStepMacs) {
      why = "operand rows of " + std::to_string(rowBytes) +
            " bytes per K step, more than the " +
            std::to_string(tgt.maxKStepBytes) + " of target '" + tgt.name + "'";
      return true;
    }
    why = "steps of " + std::to_string(half) + " would do " +
          std::to_string(macs) + " multiply-adds per block, fewer than the " +
          std::to_string(tgt.minKStepMacs) + " of target '" + tgt.name + "'";
    return false;
  }
  if (!kMajorA && tgt.maxKStepBytes > 0 && rowBytes > tgt.maxKStepBytes) {
    why = "a gemm reads A with K along its rows (transpose_a), which ran "
          "slower with shorter steps";
    return false;
  }
  if (!wide && tgt.maxKStepBytes > 0 && rowBytes > tgt.maxKStepBytes) {
    why = "a gemm has 8-bit operands, which ran slower with shorter steps";
    return false;
  }
  why = "K steps of " + std::to_string(step) + " fit " +
        std::to_string(stages) + " stages with operand rows of " +
        std::to_string(rowBytes) + " bytes";
  return false;
}

/// A longer K step for a loop whose steps do fewer than the target's
/// min_k_step_macs multiply-adds per block (all its gemms together): the
/// shortest doubling that does, where min_pipeline_stages stages of it
/// still fit, for a block alone on its multiprocessor; nullopt to keep the
/// step. Only for gemms on matrix atoms with
/// 2-byte operands and K along A's columns (those the shortening rule was
/// measured on), and not with TESSERA_K_STEPS=stages.
/// `from`: the step to start from (the program's, or one already
/// lengthened to two K steps of the atom).
std::optional<int64_t> lengthenForMacs(const KLoop &k, int64_t from,
                                       KernelOp kernel,
                                       const target::TargetDescription &tgt,
                                       Mode mode, int64_t atomK,
                                       std::string &why) {
  // Only a block alone on its multiprocessor by registers (the deeper
  // stages cost no other block its place; two 128x128 blocks per SM
  // overlap each other's waits already).
  if (mode != Mode::All || tgt.minKStepMacs <= 0 || atomK <= 1 ||
      !wideOperands(k) ||
      llvm::any_of(k.gemms, [](GemmOp g) { return g.getTransposeA(); }) ||
      macsAt(k, from) >= tgt.minKStepMacs || blocksByRegisters(kernel, tgt) > 1)
    return std::nullopt;
  int64_t longer = from, rowBytes = 0;
  while (macsAt(k, longer) < tgt.minKStepMacs)
    longer *= 2;
  int64_t stages = stagesAt(k, longer, kernel, tgt, rowBytes);
  if (tgt.minPipelineStages > 0 && stages < tgt.minPipelineStages)
    return std::nullopt;
  why = "steps of " + std::to_string(from) + " do " +
        std::to_string(macsAt(k, from)) +
        " multiply-adds per block, fewer than the " +
        std::to_string(tgt.minKStepMacs) + " of target '" + tgt.name + "'";
  return longer;
}

/// Gives the loop K steps of `step` (a power-of-two multiple or fraction
/// of its own), the copied tiles as deep as a step: over [0, ceildiv(D,
/// step)) where `extent` is the loop's K extent D (kExtent), else (shorter
/// steps only) over [f lb, f ub).
void setStep(KLoop &k, int64_t step, Value extent) {
  PipelinedOp p = k.loop;
  MLIRContext *ctx = p.getContext();
  OpBuilder b(p);
  Location loc = p.getLoc();
  if (extent) {
    // From 0 to ceildiv(D, step) (kExtent): no step past D.
    Value s = arith::ConstantIndexOp::create(b, loc, step);
    p->setOperand(1, arith::CeilDivUIOp::create(b, loc, extent, s));
  } else {
    // Shorter steps over [f lb, f ub): the same range of K.
    assert(step < k.step && "longer steps need the loop's K extent");
    Value f = arith::ConstantIndexOp::create(b, loc, k.step / step);
    p->setOperand(0, arith::MulIOp::create(b, loc, p.getLowerBound(), f));
    p->setOperand(1, arith::MulIOp::create(b, loc, p.getUpperBound(), f));
  }
  b.setInsertionPoint(k.mul);
  k.mul->setOperand(k.constIdx,
                    arith::ConstantIndexOp::create(b, k.mul.getLoc(), step));
  for (auto [alloc, d] : llvm::zip(k.tiles, k.dims)) {
    AllocOp a = alloc;
    TileType t = a.getType();
    SmallVector<int64_t> shape(t.getShape());
    shape[d] = shape[d] / k.step * step;
    a.getResult().setType(TileType::get(ctx, shape, t.getElementType(),
                                        t.getMemorySpace(), t.getLayout()));
  }
  p->setAttr("tile.k_step_from", b.getI64IntegerAttr(k.step));
}

/// The tensor dimension D where the loop runs from 0 to ceildiv(D, BK) and
/// every copy's K dimension equals D (the same symbol, or the same static
/// size), else null with `why`. Then a step of any length may end at
/// ceildiv(D, step): the copies read zeros past D, so a longer last step
/// adds nothing, and no step of a shorter loop starts past D.
Value kExtent(const KLoop &k, std::string &why) {
  PipelinedOp p = k.loop;
  if (!matchPattern(p.getLowerBound(), m_Zero())) {
    why = "the loop does not start at 0";
    return Value();
  }
  auto cd = p.getUpperBound().getDefiningOp<arith::CeilDivUIOp>();
  APInt c;
  auto dim = cd ? cd.getLhs().getDefiningOp<DimOp>() : DimOp();
  if (!cd || !dim || !matchPattern(cd.getRhs(), m_ConstantInt(&c)) ||
      c.getSExtValue() != k.step) {
    why = "the loop does not end at ceildiv(a tensor dimension, BK)";
    return Value();
  }
  auto tt = cast<GlobalTensorType>(dim.getTensor().getType());
  int64_t di = dim.getIndex();
  for (auto [c2, td] : llvm::zip(k.copies, k.tensorDims)) {
    CopyOp copy = c2;
    auto st = cast<GlobalTensorType>(copy.getSrc().getType());
    bool same =
        (!tt.getSymbol(di).empty() && st.getSymbol(td) == tt.getSymbol(di)) ||
        (!tt.isDynamicDim(di) && !st.isDynamicDim(td) &&
         st.getShape()[td] == tt.getShape()[di]);
    if (!same) {
      why = "a copy's K dimension is not the one the loop's bound divides";
      return Value();
    }
  }
  return cd.getLhs();
}

struct KStepsPass : TargetPass<KStepsPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(KStepsPass)
  KStepsPass() = default;
  KStepsPass(const KStepsPass &o) : TargetPass(o) {}
  StringRef getName() const override { return "TesseraKSteps"; }
  StringRef getArgument() const override { return "tessera-k-steps"; }
  StringRef getDescription() const override {
    return "Shorten or lengthen the K step of pipelined GEMM loops written "
           "longer or shorter than the target runs best (exact: the same "
           "multiply-adds in the same order)";
  }
  void runWithTarget(const target::TargetDescription &t) {
    const char *env = std::getenv("TESSERA_K_STEPS");
    std::string e = env ? env : "";
    bool explain = e == "explain";
    Mode mode = e == "0" ? Mode::Off : e == "stages" ? Mode::Stages : Mode::All;
    if (mode == Mode::Off || (t.minPipelineStages <= 0 && t.maxKStepBytes <= 0))
      return;
    for (KernelOp kernel : kernelsOf(getOperation())) {
      SmallVector<PipelinedOp> loops;
      kernel.walk([&](PipelinedOp p) { loops.push_back(p); });
      for (PipelinedOp p : loops) {
        // Once: a loop that records its step was decided before (or the
        // program wrote it to keep its step).
        if (p->hasAttr("tile.k_step_from"))
          continue;
        std::string why;
        std::optional<KLoop> k = analyze(p, why);
        if (!k) {
          if (explain)
            p.emitRemark() << "K step kept: " << why;
          continue;
        }
        // Too short: less than two K steps of the gemms' MMA atom per
        // iteration (each stage's waits and barrier for one instruction).
        int64_t ak = atomK(*k, t);
        if (ak > 1 && k->step < 2 * ak) {
          std::string no;
          int64_t longer = k->step;
          while (longer < 2 * ak)
            longer *= 2;
          Value extent = kExtent(*k, no);
          if (!extent) {
            if (explain)
              p.emitRemark()
                  << "K step " << k->step << " kept, shorter than " << 2 * ak
                  << " (two K steps of the MMA atom): " << no;
            continue;
          }
          std::string more;
          if (std::optional<int64_t> l2 =
                  lengthenForMacs(*k, longer, kernel, t, mode, ak, more))
            longer = *l2;
          setStep(*k, longer, extent);
          if (explain)
            p.emitRemark() << "K step " << k->step << " -> " << longer
                           << ": shorter than two K steps of the MMA atom ("
                           << ak << ")" << (more.empty() ? "" : "; ") << more;
          continue;
        }
        // Too few multiply-adds per step (a block whose gemms cover less
        // than min_k_step_macs a step: each stage's waits and barriers
        // then cost as much as its MMAs): steps doubled until they do, as
        // long as min_pipeline_stages stages still fit.
        if (std::optional<int64_t> longer =
                lengthenForMacs(*k, k->step, kernel, t, mode, ak, why)) {
          std::string no;
          if (Value extent = kExtent(*k, no)) {
            setStep(*k, *longer, extent);
            if (explain)
              p.emitRemark()
                  << "K step " << k->step << " -> " << *longer << ": " << why;
            continue;
          }
          if (explain)
            p.emitRemark() << "K step " << k->step << " kept, " << why << ": "
                           << no;
          continue;
        }
        int64_t step = k->step;
        std::string first;
        while (shouldSplit(*k, step, kernel, t, mode, why)) {
          if (first.empty())
            first = why;
          step /= 2;
        }
        if (step == k->step) {
          if (explain)
            p.emitRemark() << "K step " << k->step << " kept: " << why;
          continue;
        }
        std::string ignored;
        setStep(*k, step, kExtent(*k, ignored));
        if (explain)
          p.emitRemark() << "K step " << k->step << " -> " << step << ": "
                         << first << " (stopped: " << why << ")";
      }
    }
  }
};

} // namespace

std::unique_ptr<Pass> createKStepsPass(const std::string &target) {
  return makeTargetPass<KStepsPass>(target);
}
void registerKStepsPass() { PassRegistration<KStepsPass>(); }

} // namespace tessera::passes
