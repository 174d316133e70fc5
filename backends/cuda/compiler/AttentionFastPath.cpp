//===- AttentionFastPath.cpp - tensor-core flash attention ----------------===//
//
// FlashAttention-2 style forward kernel for the canonical tile IR of
// examples/flash_attention_fwd.mlir (see AttentionFastPath.h):
//  - block: 64 query rows of one (b, h), 4 warps x 16 rows, head dim 128;
//  - shared memory: Q (16 KiB) + 2 stages of K and V (16 KiB each) = 80 KiB,
//    rows of 256 bytes with 16-byte chunk c of row r stored at chunk
//    c ^ (r & 7), so that ldmatrix (8 rows, one chunk each) is conflict-free;
//  - cp.async.cg 16-byte loads, zero-filled past S; block j+1 is loaded
//    while block j is computed (one commit group per block);
//  - S = Q K^T: Q fragments (ldmatrix x4) kept in registers for the whole
//    loop, K fragments by ldmatrix x4 (K rows are the n index: no .trans);
//  - online softmax on the S registers in the log2 domain (scale * log2 e
//    folded, ex2.approx), row max over the 4 lanes of a quad by shfl.bfly;
//    the row sum l is kept per thread and reduced across the quad at the end;
//  - P: the m16n8k16 accumulator layout of two adjacent n-tiles is the A
//    operand layout of one k-step, so P is packed to f16x2 in registers;
//    V fragments by ldmatrix x4 .trans;
//  - masks (keys >= S, causal diagonal) only on the blocks that need them;
//    causal blocks stop at the diagonal (the loop bound of the IR);
//  - O = acc / l, stored as f16x2 words for rows < S.
//
//===----------------------------------------------------------------------===//

#include "AttentionFastPath.h"
#include "PtxEmitter.h"

#include "tessera/Dialect/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <cstdlib>
#include <limits>
#include <string>

using namespace mlir;
namespace tile = tessera::tile;

namespace {

constexpr int64_t kRows = 64, kKeys = 64, kDim = 128;
constexpr int64_t kTileBytes = kRows * kDim * 2; // 16 KiB
constexpr int64_t kSmemBytes = 5 * kTileBytes;   // Q, K x2, V x2

struct AttnMatch {
  tile::KernelOp kernel;
  tile::PipelinedOp loop;
  tile::CopyOp copyQ, copyK, copyV, copyOut;
  Value Q, K, V, O; // memrefs
  Value scale;      // f32 sm_scale
  Value isCausal;   // i1
};

Value memrefOf(Value tensor) {
  if (auto cast = tensor.getDefiningOp<UnrealizedConversionCastOp>())
    if (cast.getInputs().size() == 1 &&
        isa<MemRefType>(cast.getInputs()[0].getType()))
      return cast.getInputs()[0];
  return {};
}

bool isConstIndex(Value v, int64_t want) {
  auto c = v.getDefiningOp<arith::ConstantIndexOp>();
  return c && c.value() == want;
}

/// `v` is `x * c` (either order) with c == want.
bool isScaled(Value v, Value x, int64_t want) {
  auto mul = v.getDefiningOp<arith::MulIOp>();
  if (!mul)
    return false;
  return (mul.getLhs() == x && isConstIndex(mul.getRhs(), want)) ||
         (mul.getRhs() == x && isConstIndex(mul.getLhs(), want));
}

bool isTile(Value v, ArrayRef<int64_t> shape, bool f16, bool shared) {
  auto t = dyn_cast<tile::TileType>(v.getType());
  if (!t || t.getShape() != shape || t.isShared() != shared)
    return false;
  return f16 ? t.getElementType().isF16() : t.getElementType().isF32();
}

/// The op names of a region's body, comma separated (terminator excluded).
std::string signature(tile::ParallelOp par) {
  std::string s;
  for (Operation &op : par.getBodyBlock().without_terminator()) {
    s += op.getName().getStringRef().str();
    s += ",";
  }
  return s;
}

bool isQkvTensor(Value t) {
  auto gt = dyn_cast<tile::GlobalTensorType>(t.getType());
  return gt && gt.getRank() == 4 && gt.getElementType().isF16() &&
         gt.getShape()[3] == kDim;
}

/// Copy `c` reads/writes [bb, bh, row0, 0] of a [B, H, S, 128] f16 tensor.
bool headOffsets(ValueRange offs, Value bb, Value bh, Value row0) {
  return offs.size() == 4 && offs[0] == bb && offs[1] == bh &&
         offs[2] == row0 && isConstIndex(offs[3], 0);
}

bool match(tile::KernelOp kernel, AttnMatch &m) {
  if (kernel.getThreads() != 128 || kernel.getGrid().size() != 3)
    return false;
  Block &body = kernel.getBodyBlock();
  Value bq = body.getArgument(0), bh = body.getArgument(1),
        bb = body.getArgument(2);
  // Top level: arith, 10 allocs, fill m, clear l, clear acc, copy Q,
  // pipelined, parallel (O = acc / l), copy out.
  SmallVector<Operation *> tops;
  for (Operation &op : body.without_terminator()) {
    if (op.getDialect() && op.getDialect()->getNamespace() == "arith" &&
        op.getNumRegions() == 0)
      continue;
    tops.push_back(&op);
  }
  if (tops.size() != 17)
    return false;
  SmallVector<Value> allocs;
  for (int i = 0; i < 10; ++i) {
    auto a = dyn_cast<tile::AllocOp>(tops[i]);
    if (!a)
      return false;
    allocs.push_back(a.getResult());
  }
  Value Qs = allocs[0], Ks = allocs[1], Vs = allocs[2], Sf = allocs[3],
        Pf = allocs[4], acc = allocs[5], mT = allocs[6], mPrev = allocs[7],
        lT = allocs[8], alpha = allocs[9];
  if (!isTile(Qs, {64, 128}, true, true) ||
      !isTile(Ks, {64, 128}, true, true) ||
      !isTile(Vs, {64, 128}, true, true) ||
      !isTile(Sf, {64, 64}, false, false) ||
      !isTile(Pf, {64, 64}, true, false) ||
      !isTile(acc, {64, 128}, false, false) ||
      !isTile(mT, {64}, false, false) || !isTile(mPrev, {64}, false, false) ||
      !isTile(lT, {64}, false, false) || !isTile(alpha, {64}, false, false))
    return false;
  auto fill = dyn_cast<tile::FillOp>(tops[10]);
  auto clearL = dyn_cast<tile::ClearOp>(tops[11]);
  auto clearAcc = dyn_cast<tile::ClearOp>(tops[12]);
  m.copyQ = dyn_cast<tile::CopyOp>(tops[13]);
  m.loop = dyn_cast<tile::PipelinedOp>(tops[14]);
  auto fin = dyn_cast<tile::ParallelOp>(tops[15]);
  m.copyOut = dyn_cast<tile::CopyOp>(tops[16]);
  if (!fill || !clearL || !clearAcc || !m.copyQ || !m.loop || !fin ||
      !m.copyOut)
    return false;
  if (fill.getDst() != mT || clearL.getDst() != lT || clearAcc.getDst() != acc)
    return false;
  {
    auto c = fill.getValue().getDefiningOp<arith::ConstantOp>();
    auto fa = c ? dyn_cast<FloatAttr>(c.getValue()) : FloatAttr();
    if (!fa || !fa.getValue().isInfinity() || !fa.getValue().isNegative())
      return false;
  }
  // Q copy: Q[bb, bh, bq * 64, 0] -> Qs.
  Value q0 = m.copyQ.getSrcOffsets().size() == 4 ? m.copyQ.getSrcOffsets()[2]
                                                 : Value();
  if (!q0 || !isScaled(q0, bq, kRows) || m.copyQ.getDst() != Qs ||
      m.copyQ.getTranspose() || !isQkvTensor(m.copyQ.getSrc()) ||
      !headOffsets(m.copyQ.getSrcOffsets(), bb, bh, q0))
    return false;
  // Copy out: acc -> O[bb, bh, q0, 0].
  if (m.copyOut.getSrc() != acc || m.copyOut.getTranspose() ||
      !isQkvTensor(m.copyOut.getDst()) ||
      !headOffsets(m.copyOut.getDstOffsets(), bb, bh, q0))
    return false;
  // Final region: O = acc / l.
  if (fin.getShape().size() != 2 || fin.getShape()[0] != 64 ||
      fin.getShape()[1] != 128 ||
      signature(fin) != "tile.load,tile.load,arith.divf,tile.store,")
    return false;
  {
    auto ops = fin.getBodyBlock().without_terminator();
    auto it = ops.begin();
    auto la = cast<tile::LoadOp>(*it++);
    auto ll = cast<tile::LoadOp>(*it++);
    auto dv = cast<arith::DivFOp>(*it++);
    auto st = cast<tile::StoreOp>(*it++);
    if (la.getTile() != acc || ll.getTile() != lT ||
        dv.getLhs() != la.getResult() || dv.getRhs() != ll.getResult() ||
        st.getTile() != acc || st.getValue() != dv.getResult())
      return false;
  }

  // The loop: from 0 step 1 over key blocks.
  if (!isConstIndex(m.loop.getLowerBound(), 0) ||
      !isConstIndex(m.loop.getStep(), 1))
    return false;
  Value j = m.loop.getInductionVar();
  SmallVector<Operation *> ops;
  Value k0;
  for (Operation &op : m.loop.getBodyBlock().without_terminator()) {
    if (auto mul = dyn_cast<arith::MulIOp>(op);
        mul && !k0 && isScaled(mul, j, kKeys)) {
      k0 = mul.getResult();
      continue;
    }
    ops.push_back(&op);
  }
  if (!k0 || ops.size() != 12)
    return false;
  m.copyK = dyn_cast<tile::CopyOp>(ops[0]);
  m.copyV = dyn_cast<tile::CopyOp>(ops[1]);
  auto g1 = dyn_cast<tile::GemmOp>(ops[2]);
  auto pMask = dyn_cast<tile::ParallelOp>(ops[3]);
  auto cpM = dyn_cast<tile::CopyOp>(ops[4]);
  auto rMax = dyn_cast<tile::ReduceOp>(ops[5]);
  auto pExp = dyn_cast<tile::ParallelOp>(ops[6]);
  auto pAlpha = dyn_cast<tile::ParallelOp>(ops[7]);
  auto rSum = dyn_cast<tile::ReduceOp>(ops[8]);
  auto pScale = dyn_cast<tile::ParallelOp>(ops[9]);
  auto cpP = dyn_cast<tile::CopyOp>(ops[10]);
  auto g2 = dyn_cast<tile::GemmOp>(ops[11]);
  if (!m.copyK || !m.copyV || !g1 || !pMask || !cpM || !rMax || !pExp ||
      !pAlpha || !rSum || !pScale || !cpP || !g2)
    return false;
  // K, V copies: [bb, bh, k0, 0] -> Ks, Vs.
  if (m.copyK.getDst() != Ks || m.copyV.getDst() != Vs ||
      m.copyK.getTranspose() || m.copyV.getTranspose() ||
      !isQkvTensor(m.copyK.getSrc()) || !isQkvTensor(m.copyV.getSrc()) ||
      !headOffsets(m.copyK.getSrcOffsets(), bb, bh, k0) ||
      !headOffsets(m.copyV.getSrcOffsets(), bb, bh, k0))
    return false;
  // Sf = Qs Ks^T (cleared).
  if (g1.getA() != Qs || g1.getB() != Ks || g1.getC() != Sf ||
      !g1.getTransposeB() || g1.getTransposeA() || !g1.getClear())
    return false;
  // acc += Pf Vs.
  if (g2.getA() != Pf || g2.getB() != Vs || g2.getC() != acc ||
      g2.getTransposeB() || g2.getTransposeA() || g2.getClear())
    return false;
  if (cpM.getSrc() != mT || cpM.getDst() != mPrev || cpP.getSrc() != Sf ||
      cpP.getDst() != Pf || cpM.getTranspose() || cpP.getTranspose())
    return false;
  if (rMax.getKind() != tile::ReduceKind::Max || rMax.getSrc() != Sf ||
      rMax.getDst() != mT || rMax.getDim() != 1 || !rMax.getAccumulate())
    return false;
  if (rSum.getKind() != tile::ReduceKind::Sum || rSum.getSrc() != Sf ||
      rSum.getDst() != lT || rSum.getDim() != 1 || !rSum.getAccumulate())
    return false;
  auto shapeIs = [](tile::ParallelOp p, ArrayRef<int64_t> s) {
    return p.getShape() == s;
  };
  if (!shapeIs(pMask, {64, 64}) || !shapeIs(pExp, {64, 64}) ||
      !shapeIs(pAlpha, {64}) || !shapeIs(pScale, {64, 128}))
    return false;
  // The mask: s * scale; keep = (k0 + jj < seq) && !(causal && k0 + jj > q0 +
  // i).
  if (signature(pMask) !=
      "tile.load,arith.mulf,arith.addi,arith.addi,arith.cmpi,arith.cmpi,"
      "arith.andi,arith.xori,arith.andi,arith.select,tile.store,")
    return false;
  {
    Block &pb = pMask.getBodyBlock();
    Value i = pb.getArgument(0), jj = pb.getArgument(1);
    SmallVector<Operation *> o;
    for (Operation &op : pb.without_terminator())
      o.push_back(&op);
    auto ld = cast<tile::LoadOp>(o[0]);
    auto mul = cast<arith::MulFOp>(o[1]);
    auto kpos = cast<arith::AddIOp>(o[2]);
    auto qpos = cast<arith::AddIOp>(o[3]);
    auto inSeq = cast<arith::CmpIOp>(o[4]);
    auto future = cast<arith::CmpIOp>(o[5]);
    auto hidden = cast<arith::AndIOp>(o[6]);
    auto visible = cast<arith::XOrIOp>(o[7]);
    auto keep = cast<arith::AndIOp>(o[8]);
    auto sel = cast<arith::SelectOp>(o[9]);
    auto st = cast<tile::StoreOp>(o[10]);
    if (ld.getTile() != Sf || ld.getIndices()[0] != i ||
        ld.getIndices()[1] != jj)
      return false;
    if (mul.getLhs() != ld.getResult())
      return false;
    m.scale = mul.getRhs();
    if (kpos.getLhs() != k0 || kpos.getRhs() != jj || qpos.getLhs() != q0 ||
        qpos.getRhs() != i)
      return false;
    auto seqDim = inSeq.getRhs().getDefiningOp<tile::DimOp>();
    if (inSeq.getPredicate() != arith::CmpIPredicate::ult ||
        inSeq.getLhs() != kpos.getResult() || !seqDim)
      return false;
    if (future.getPredicate() != arith::CmpIPredicate::ugt ||
        future.getLhs() != kpos.getResult() ||
        future.getRhs() != qpos.getResult())
      return false;
    if (hidden.getRhs() != future.getResult())
      return false;
    m.isCausal = hidden.getLhs();
    if (kernel.getBody().isAncestor(m.isCausal.getParentRegion()) ||
        kernel.getBody().isAncestor(m.scale.getParentRegion()) ||
        !m.isCausal.getType().isInteger(1))
      return false;
    auto tru = visible.getRhs().getDefiningOp<arith::ConstantOp>();
    if (visible.getLhs() != hidden.getResult() || !tru ||
        tru.getValue() != BoolAttr::get(kernel.getContext(), true))
      return false;
    if (keep.getLhs() != inSeq.getResult() ||
        keep.getRhs() != visible.getResult())
      return false;
    auto ni = sel.getFalseValue().getDefiningOp<arith::ConstantOp>();
    auto nia = ni ? dyn_cast<FloatAttr>(ni.getValue()) : FloatAttr();
    if (sel.getCondition() != keep.getResult() ||
        sel.getTrueValue() != mul.getResult() || !nia ||
        !nia.getValue().isInfinity() || !nia.getValue().isNegative())
      return false;
    if (st.getTile() != Sf || st.getValue() != sel.getResult() ||
        st.getIndices()[0] != i || st.getIndices()[1] != jj)
      return false;
    // seq must be the dimension 2 of Q.
    if (seqDim.getIndex() != 2 ||
        memrefOf(seqDim.getTensor()) != memrefOf(m.copyQ.getSrc()))
      return false;
  }
  if (signature(pExp) != "tile.load,tile.load,arith.subf,math.exp,tile.store,")
    return false;
  {
    Block &pb = pExp.getBodyBlock();
    SmallVector<Operation *> o;
    for (Operation &op : pb.without_terminator())
      o.push_back(&op);
    auto ls = cast<tile::LoadOp>(o[0]);
    auto lm = cast<tile::LoadOp>(o[1]);
    auto sub = cast<arith::SubFOp>(o[2]);
    auto st = cast<tile::StoreOp>(o[4]);
    if (ls.getTile() != Sf || lm.getTile() != mT ||
        lm.getIndices()[0] != pb.getArgument(0) ||
        ls.getIndices()[0] != pb.getArgument(0) ||
        ls.getIndices()[1] != pb.getArgument(1) ||
        sub.getLhs() != ls.getResult() || sub.getRhs() != lm.getResult() ||
        o[3]->getOperand(0) != sub.getResult() || st.getTile() != Sf ||
        st.getValue() != o[3]->getResult(0) ||
        st.getIndices()[0] != pb.getArgument(0) ||
        st.getIndices()[1] != pb.getArgument(1))
      return false;
  }
  if (signature(pAlpha) != "tile.load,tile.load,arith.subf,math.exp,tile.store,"
                           "tile.load,arith.mulf,tile.store,")
    return false;
  {
    Block &pb = pAlpha.getBodyBlock();
    SmallVector<Operation *> o;
    for (Operation &op : pb.without_terminator())
      o.push_back(&op);
    auto lo = cast<tile::LoadOp>(o[0]);
    auto ln = cast<tile::LoadOp>(o[1]);
    auto sub = cast<arith::SubFOp>(o[2]);
    auto sa = cast<tile::StoreOp>(o[4]);
    auto ll = cast<tile::LoadOp>(o[5]);
    auto mul = cast<arith::MulFOp>(o[6]);
    auto sl = cast<tile::StoreOp>(o[7]);
    if (lo.getTile() != mPrev || ln.getTile() != mT ||
        sub.getLhs() != lo.getResult() || sub.getRhs() != ln.getResult() ||
        o[3]->getOperand(0) != sub.getResult() || sa.getTile() != alpha ||
        sa.getValue() != o[3]->getResult(0) || ll.getTile() != lT ||
        sl.getTile() != lT || sl.getValue() != mul.getResult() ||
        !((mul.getLhs() == ll.getResult() &&
           mul.getRhs() == o[3]->getResult(0)) ||
          (mul.getRhs() == ll.getResult() &&
           mul.getLhs() == o[3]->getResult(0))))
      return false;
  }
  if (signature(pScale) != "tile.load,tile.load,arith.mulf,tile.store,")
    return false;
  {
    Block &pb = pScale.getBodyBlock();
    SmallVector<Operation *> o;
    for (Operation &op : pb.without_terminator())
      o.push_back(&op);
    auto lo = cast<tile::LoadOp>(o[0]);
    auto la = cast<tile::LoadOp>(o[1]);
    auto mul = cast<arith::MulFOp>(o[2]);
    auto st = cast<tile::StoreOp>(o[3]);
    if (lo.getTile() != acc || la.getTile() != alpha || st.getTile() != acc ||
        mul.getLhs() != lo.getResult() || mul.getRhs() != la.getResult() ||
        st.getValue() != mul.getResult() ||
        la.getIndices()[0] != pb.getArgument(0) ||
        lo.getIndices()[0] != pb.getArgument(0) ||
        lo.getIndices()[1] != pb.getArgument(1) ||
        st.getIndices()[0] != pb.getArgument(0) ||
        st.getIndices()[1] != pb.getArgument(1))
      return false;
  }
  // The loop bound: kv blocks, or min(bq + 1, kv blocks) when causal (we
  // take the IR's bound as is; causal blocks before the diagonal need no
  // mask, the diagonal block j == bq does).
  m.Q = memrefOf(m.copyQ.getSrc());
  m.K = memrefOf(m.copyK.getSrc());
  m.V = memrefOf(m.copyV.getSrc());
  m.O = memrefOf(m.copyOut.getDst());
  if (!m.Q || !m.K || !m.V || !m.O || !m.scale.getType().isF32())
    return false;
  m.kernel = kernel;
  return true;
}

} // namespace

namespace {

/// The shared builders plus the few instructions only attention needs.
struct Emitter : tessera::cuda::PtxEmitter {
  using tessera::cuda::PtxEmitter::PtxEmitter;
  Value ex2(Value x) {
    return pureAsm("ex2.approx.ftz.f32 $0, $1;", "=f,f", {x}, f32);
  }
  Value shflXor(Value x, int lanes) {
    return pureAsm("shfl.sync.bfly.b32 $0, $1, " + std::to_string(lanes) +
                       ", 31, -1;",
                   "=f,f", {x}, f32);
  }
  /// Two f32 -> one f16x2 word, `lo` in the low half.
  Value pack(Value lo, Value hi) {
    return pureAsm("cvt.rn.f16x2.f32 $0, $2, $1;", "=r,f,f", {lo, hi}, i32);
  }
};

} // namespace

int64_t tessera::cuda::lowerCanonicalAttention(gpu::GPUFuncOp fn,
                                               StringRef chip) {
  (void)chip;
  if (const char *off = std::getenv("TESSERA_CUDA_NO_ATTENTION_FAST_PATH"))
    if (*off && std::string(off) != "0")
      return 0;
  tile::KernelOp kernel;
  int kernels = 0;
  fn.walk([&](tile::KernelOp k) {
    kernel = k;
    ++kernels;
  });
  AttnMatch m;
  if (kernels != 1 || !match(kernel, m))
    return 0;

  using P = arith::CmpIPredicate;
  MLIRContext *ctx = fn.getContext();
  Location loc = m.loop.getLoc();
  OpBuilder b(m.copyOut);
  Emitter e(b, loc);
  Type f32 = e.f32, i32 = e.i32;
  Block &kb = kernel.getBodyBlock();
  Value bq = kb.getArgument(0), bh = kb.getArgument(1), bb = kb.getArgument(2);

  auto bytesTy = MemRefType::get(
      {ShapedType::kDynamic}, b.getIntegerType(8), MemRefLayoutAttrInterface{},
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  Value smem = gpu::DynamicSharedMemoryOp::create(b, loc, bytesTy);
  Value base =
      e.toI32(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, smem));
  auto ptrOf = [&](Value mr) {
    return e.toI64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, mr));
  };
  Value qPtr = ptrOf(m.Q), kPtr = ptrOf(m.K), vPtr = ptrOf(m.V),
        oPtr = ptrOf(m.O);
  Value H = memref::DimOp::create(b, loc, m.Q, 1);
  Value S = memref::DimOp::create(b, loc, m.Q, 2);
  Value head = e.mul(e.add(e.mul(bb, H), bh), S); // first row of this (b, h)
  Value q0 = e.mul(bq, e.ci(kRows));
  Value kvEnd = m.loop.getUpperBound();
  Value scaleLog2 = e.fmul(m.scale, e.cf(1.4426950408889634f));
  Value negInf = e.cf(-std::numeric_limits<float>::infinity());
  Value zero = e.cf(0.0f);

  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value lane = e.remu(tid, 32), warp = e.divu(tid, 32);
  Value g = e.divu(lane, 4), t4 = e.remu(lane, 4);
  Value l8 = e.remu(lane, 8), lhi = e.divu(lane, 8);

  // Byte offset of chunk `ch` of row `r` (256-byte rows, XOR swizzle).
  auto swz = [&](Value r, Value ch) -> Value {
    return e.add(e.mul(r, e.ci(256)),
                 e.mul(e.xori(ch, e.andi(r, e.ci(7))), e.ci(16)));
  };
  // Per-thread load slots: 8 chunks of a 64 x 128 tile.
  SmallVector<Value> slotRow, slotOff;
  Value myCh = e.remu(tid, 16);
  for (int64_t i = 0; i < 8; ++i) {
    Value r = e.add(e.divu(tid, 16), e.ci(i * 8));
    slotRow.push_back(r);
    slotOff.push_back(e.toI32(swz(r, myCh)));
  }
  auto loadTile = [&](Value ptr, Value row0, Value dst) {
    for (int64_t i = 0; i < 8; ++i) {
      Value row = e.add(row0, slotRow[i]);
      Value in = e.cmp(P::ult, row, S);
      Value off = e.toI64(e.mul(
          e.add(e.mul(e.add(head, row), e.ci(kDim)), e.mul(myCh, e.ci(8))),
          e.ci(2)));
      Value src = e.sel(in, e.add(ptr, off), ptr);
      Value size = e.sel(in, e.c32(16), e.c32(0));
      e.asmOp("cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r",
              {e.add(dst, slotOff[i]), src, size});
    }
  };
  auto commit = [&] { e.asmOp("cp.async.commit_group;", "", {}); };
  Value sQ = base;
  auto sK = [&](Value stage) {
    return e.add(
        base, e.add(e.c32(kTileBytes),
                    arith::MulIOp::create(b, loc, stage, e.c32(kTileBytes))));
  };
  auto sV = [&](Value stage) {
    return e.add(
        base, e.add(e.c32(3 * kTileBytes),
                    arith::MulIOp::create(b, loc, stage, e.c32(kTileBytes))));
  };

  // Prologue: Q, then key block 0.
  loadTile(qPtr, q0, sQ);
  commit();
  {
    auto ifOp = scf::IfOp::create(b, loc, e.cmp(P::ult, e.ci(0), kvEnd), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    loadTile(kPtr, e.ci(0), sK(e.c32(0)));
    loadTile(vPtr, e.ci(0), sV(e.c32(0)));
  }
  commit();
  e.asmOp("cp.async.wait_group 1;", "", {});
  gpu::BarrierOp::create(b, loc);
  // Q fragments: 8 k-steps of 16 head dims, rows warp*16 .. +15.
  SmallVector<SmallVector<Value>> qf(8);
  {
    Value row = e.add(e.mul(warp, e.ci(16)),
                      e.add(l8, e.mul(e.andi(lhi, e.ci(1)), e.ci(8))));
    for (int64_t kk = 0; kk < 8; ++kk) {
      Value ch = e.add(e.ci(kk * 2), e.divu(lhi, 2));
      Value addr = e.add(sQ, e.toI32(swz(row, ch)));
      qf[kk] = e.asmOp(
          "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0,$1,$2,$3}, [$4];",
          "=r,=r,=r,=r,r", {addr}, {i32, i32, i32, i32});
    }
  }
  Value qRow0 =
      e.add(q0, e.add(e.mul(warp, e.ci(16)), g)); // rows qRow0, qRow0 + 8
  Value qRow1 = e.add(qRow0, e.ci(8));

  // Per-thread ldmatrix offsets (bytes from a K or V stage's base). K rows
  // (keys) np*16 + (lhi/2)*8 + l8, chunk kk*2 + lhi%2: row & 7 == l8, so
  // np only adds np * 4096. V rows kk*16 + (lhi%2)*8 + l8, chunk
  // nj*2 + lhi/2: kk only adds kk * 4096.
  SmallVector<Value> kOff, vOff;
  {
    Value kRow = e.add(e.mul(e.divu(lhi, 2), e.ci(8)), l8);
    Value vRow = e.add(e.mul(e.andi(lhi, e.ci(1)), e.ci(8)), l8);
    for (int64_t kk = 0; kk < 8; ++kk)
      kOff.push_back(
          e.toI32(swz(kRow, e.add(e.ci(kk * 2), e.andi(lhi, e.ci(1))))));
    for (int64_t nj = 0; nj < 8; ++nj)
      vOff.push_back(e.toI32(swz(vRow, e.add(e.ci(nj * 2), e.divu(lhi, 2)))));
  }
  auto ldsm = [&](Value addr, int64_t imm, bool trans) {
    std::string t =
        std::string("ldmatrix.sync.aligned.m8n8.x4") + (trans ? ".trans" : "") +
        ".shared.b16 {$0,$1,$2,$3}, [$4+" + std::to_string(imm) + "];";
    return e.asmOp(t, "=r,=r,=r,=r,r", {addr}, {i32, i32, i32, i32});
  };

  const std::string mma =
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0,$1,$2,$3}, "
      "{$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};";
  auto mmaOp = [&](ArrayRef<Value> a, Value b0, Value b1, ArrayRef<Value> c) {
    return e.asmOp(mma, "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3",
                   {a[0], a[1], a[2], a[3], b0, b1, c[0], c[1], c[2], c[3]},
                   {f32, f32, f32, f32});
  };

  // Main loop: iteration values acc[64], m0, m1, l0, l1.
  SmallVector<Value> init(64, zero);
  init.append({negInf, negInf, zero, zero});
  auto forOp = scf::ForOp::create(b, loc, e.ci(0), kvEnd, e.ci(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    Value j = forOp.getInductionVar();
    auto iter = forOp.getRegionIterArgs();
    SmallVector<Value> acc(iter.begin(), iter.begin() + 64);
    Value mOld[2] = {iter[64], iter[65]}, lOld[2] = {iter[66], iter[67]};
    Value stage = e.toI32(e.remu(j, 2));
    e.asmOp("cp.async.wait_group 0;", "", {});
    gpu::BarrierOp::create(b, loc);
    {
      Value next = e.add(j, e.ci(1));
      auto ifOp = scf::IfOp::create(b, loc, e.cmp(P::ult, next, kvEnd), false);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value ns = arith::SubIOp::create(b, loc, e.c32(1), stage);
      Value row0 = e.mul(next, e.ci(kKeys));
      loadTile(kPtr, row0, sK(ns));
      loadTile(vPtr, row0, sV(ns));
    }
    commit();
    Value k0 = e.mul(j, e.ci(kKeys));
    Value kS = sK(stage), vS = sV(stage);

    // S = Q K^T: 8 n-tiles of 8 keys, 4 registers each.
    SmallVector<Value> s(32, zero);
    for (int64_t kk = 0; kk < 8; ++kk)
      for (int64_t np = 0; np < 4; ++np) {
        auto v = ldsm(e.add(kS, kOff[kk]), np * 16 * 256, false);
        for (int64_t h = 0; h < 2; ++h) {
          int64_t ni = np * 2 + h;
          auto d = mmaOp(qf[kk], v[2 * h], v[2 * h + 1],
                         ArrayRef<Value>(s).slice(ni * 4, 4));
          for (int q = 0; q < 4; ++q)
            s[ni * 4 + q] = d[q];
        }
      }
    for (Value &x : s)
      x = e.fmul(x, scaleLog2);
    // Masks: keys >= S (last block) and keys after the query (causal, blocks
    // from the diagonal on).
    Value lastBlock = e.cmp(P::ugt, e.add(k0, e.ci(kKeys)), S);
    Value diag = e.andi(m.isCausal, e.cmp(P::uge, j, bq));
    auto maskIf =
        scf::IfOp::create(b, loc, TypeRange(SmallVector<Type>(32, f32)),
                          e.ori(lastBlock, diag), /*withElse=*/true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(maskIf.thenBlock());
      SmallVector<Value> masked;
      for (int64_t ni = 0; ni < 8; ++ni)
        for (int64_t q = 0; q < 4; ++q) {
          Value kpos =
              e.add(k0, e.add(e.ci(ni * 8 + (q & 1)), e.mul(t4, e.ci(2))));
          Value qpos = q >= 2 ? qRow1 : qRow0;
          Value hidden = e.andi(m.isCausal, e.cmp(P::ugt, kpos, qpos));
          Value keep = e.andi(
              e.cmp(P::ult, kpos, S),
              e.xori(hidden, arith::ConstantIntOp::create(b, loc, 1, 1)));
          masked.push_back(e.sel(keep, s[ni * 4 + q], negInf));
        }
      scf::YieldOp::create(b, loc, masked);
      b.setInsertionPointToStart(maskIf.elseBlock());
      scf::YieldOp::create(b, loc, s);
    }
    for (int64_t i = 0; i < 32; ++i)
      s[i] = maskIf.getResult(i);

    // Online softmax (log2 domain) for rows g (h = 0) and g + 8 (h = 1).
    Value alpha[2], mNew[2], mUse[2];
    for (int h = 0; h < 2; ++h) {
      Value mx = s[h * 2];
      for (int64_t ni = 0; ni < 8; ++ni)
        for (int q = 0; q < 2; ++q)
          if (ni || q)
            mx = e.fmax(mx, s[ni * 4 + h * 2 + q]);
      mx = e.fmax(mx, e.shflXor(mx, 1));
      mx = e.fmax(mx, e.shflXor(mx, 2));
      mNew[h] = e.fmax(mOld[h], mx);
      Value isInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                          mNew[h], negInf);
      mUse[h] = e.sel(isInf, zero, mNew[h]);
      alpha[h] = e.ex2(e.fsub(mOld[h], mUse[h]));
    }
    Value rowSum[2] = {zero, zero};
    for (int64_t ni = 0; ni < 8; ++ni)
      for (int q = 0; q < 4; ++q) {
        int h = q / 2;
        Value p = e.ex2(e.fsub(s[ni * 4 + q], mUse[h]));
        s[ni * 4 + q] = p;
        rowSum[h] = e.fadd(rowSum[h], p);
      }
    Value lNew[2];
    for (int h = 0; h < 2; ++h)
      lNew[h] = e.fadd(e.fmul(lOld[h], alpha[h]), rowSum[h]);
    for (int64_t i = 0; i < 64; ++i)
      acc[i] = e.fmul(acc[i], alpha[(i % 4) / 2]);

    // O += P V: 4 k-steps of 16 keys, 16 n-tiles of 8 head dims.
    for (int64_t kk = 0; kk < 4; ++kk) {
      Value a[4] = {e.pack(s[(2 * kk) * 4 + 0], s[(2 * kk) * 4 + 1]),
                    e.pack(s[(2 * kk) * 4 + 2], s[(2 * kk) * 4 + 3]),
                    e.pack(s[(2 * kk + 1) * 4 + 0], s[(2 * kk + 1) * 4 + 1]),
                    e.pack(s[(2 * kk + 1) * 4 + 2], s[(2 * kk + 1) * 4 + 3])};
      for (int64_t nj = 0; nj < 8; ++nj) {
        auto v = ldsm(e.add(vS, vOff[nj]), kk * 16 * 256, true);
        for (int64_t h = 0; h < 2; ++h) {
          int64_t dt = nj * 2 + h;
          auto d = mmaOp(a, v[2 * h], v[2 * h + 1],
                         ArrayRef<Value>(acc).slice(dt * 4, 4));
          for (int q = 0; q < 4; ++q)
            acc[dt * 4 + q] = d[q];
        }
      }
    }
    SmallVector<Value> yield(acc);
    yield.append({mNew[0], mNew[1], lNew[0], lNew[1]});
    scf::YieldOp::create(b, loc, yield);
  }
  e.asmOp("cp.async.wait_group 0;", "", {});

  // O = acc / l, f16x2 stores of the rows < S.
  for (int h = 0; h < 2; ++h) {
    Value l = forOp.getResult(66 + h);
    l = e.fadd(l, e.shflXor(l, 1));
    l = e.fadd(l, e.shflXor(l, 2));
    Value inv = arith::DivFOp::create(b, loc, e.cf(1.0f), l);
    Value row = h ? qRow1 : qRow0;
    auto ifOp = scf::IfOp::create(b, loc, e.cmp(P::ult, row, S), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value rowOff = e.mul(e.add(head, row), e.ci(kDim));
    for (int64_t dt = 0; dt < 16; ++dt) {
      Value col = e.add(e.ci(dt * 8), e.mul(t4, e.ci(2)));
      Value addr = e.add(oPtr, e.toI64(e.mul(e.add(rowOff, col), e.ci(2))));
      Value w = e.pack(e.fmul(forOp.getResult(dt * 4 + h * 2), inv),
                       e.fmul(forOp.getResult(dt * 4 + h * 2 + 1), inv));
      e.asmOp("st.global.b32 [$0], $1;", "l,r", {addr, w});
    }
  }

  // Drop the tile ops of the kernel body (users first).
  SmallVector<Operation *> dead;
  for (Operation &op : kb.without_terminator())
    if (op.getDialect() && op.getDialect()->getNamespace() == "tile")
      dead.push_back(&op);
  for (Operation *op : llvm::reverse(dead))
    op->erase();
  fn->setAttr("tessera.fast_path", b.getStringAttr("attention.mma.sync"));
  return kSmemBytes;
}
