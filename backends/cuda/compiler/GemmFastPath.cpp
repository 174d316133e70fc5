//===- GemmFastPath.cpp - tensor-core kernels for canonical GEMMs ---------===//
//
// Mainloop (Ampere-style, also used on sm_90a for now):
//  - block tile BM x BN (the accumulator's shape), K step BK (the A tile's
//    columns), 4 warps in a 2x2 grid, each owning (BM/2) x (BN/2);
//  - `stages` shared-memory buffers filled by cp.async.cg (16 bytes, zero
//    fill past the edges; element-wise loads where a 16-byte chunk is partial
//    or the row pitch is not 16-byte aligned), one commit group per stage;
//  - A rows are XOR-swizzled in 16-byte chunks so that ldmatrix (8 rows of
//    16 bytes) hits 8 distinct bank groups; B likewise for ldmatrix.trans;
//  - mma.sync.m16n8k16 with f32 accumulators kept as loop-carried SSA values
//    (registers);
//  - the epilogue clones the tile.parallel bodies once per accumulator
//    register, with (i, j) the register's coordinates, then stores with
//    masks and the conversion the tile.copy asks for.
//
//===----------------------------------------------------------------------===//

#include "GemmFastPath.h"

#include "tessera/Dialect/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
namespace tile = tessera::tile;

namespace {

struct GemmMatch {
  tile::AllocOp cAlloc, aAlloc, bAlloc;
  tile::ClearOp clear;
  tile::PipelinedOp loop;
  tile::CopyOp copyA, copyB, copyOut;
  tile::GemmOp gemm;
  SmallVector<tile::ParallelOp> epilogue;
  Value A, B, C;             // memrefs
  int64_t bm, bn, bk, stages;
  bool bf16;
};

Value memrefOf(Value tensor) {
  if (auto cast = tensor.getDefiningOp<UnrealizedConversionCastOp>())
    if (cast.getInputs().size() == 1 && isa<MemRefType>(cast.getInputs()[0].getType()))
      return cast.getInputs()[0];
  return {};
}

bool match(tile::KernelOp kernel, GemmMatch &m) {
  if (kernel.getThreads() != 128)
    return false;
  Block &body = kernel.getBodyBlock();
  // The accumulator: the one f32 fragment tile that a gemm writes.
  tile::GemmOp gemm;
  int gemms = 0;
  kernel.walk([&](tile::GemmOp g) { gemm = g; ++gemms; });
  if (gemms != 1 || gemm.getClear() || gemm.getTransposeA() || gemm.getTransposeB())
    return false;
  auto loop = dyn_cast<tile::PipelinedOp>(gemm->getParentOp());
  if (!loop || loop->getBlock() != &body)
    return false;
  auto at = cast<tile::TileType>(gemm.getA().getType());
  auto bt = cast<tile::TileType>(gemm.getB().getType());
  auto ct = cast<tile::TileType>(gemm.getC().getType());
  if (!at.isShared() || !bt.isShared() || !ct.getElementType().isF32())
    return false;
  Type ae = at.getElementType(), be = bt.getElementType();
  if (ae != be || !(ae.isF16() || ae.isBF16()))
    return false;
  m.bm = ct.getShape()[0];
  m.bn = ct.getShape()[1];
  m.bk = at.getShape()[1];
  if (!(m.bm == 64 || m.bm == 128) || !(m.bn == 64 || m.bn == 128) ||
      !(m.bk == 32 || m.bk == 64))
    return false;
  m.bf16 = ae.isBF16();
  m.stages = std::max<int64_t>(2, std::min<int64_t>(loop.getNumStages(), 4));
  m.gemm = gemm;
  m.loop = loop;
  // Loop body: pure index arithmetic, copy A, copy B, the gemm.
  SmallVector<tile::CopyOp> copies;
  for (Operation &op : loop.getBodyBlock().without_terminator()) {
    if (auto c = dyn_cast<tile::CopyOp>(op)) {
      copies.push_back(c);
      continue;
    }
    if (&op == gemm.getOperation())
      continue;
    if (op.getDialect() && op.getDialect()->getNamespace() == "arith" &&
        op.getNumRegions() == 0)
      continue;
    return false;
  }
  if (copies.size() != 2)
    return false;
  for (tile::CopyOp c : copies) {
    if (c.getTranspose() || !isa<tile::GlobalTensorType>(c.getSrc().getType()))
      return false;
    if (c.getDst() == gemm.getA())
      m.copyA = c;
    else if (c.getDst() == gemm.getB())
      m.copyB = c;
  }
  if (!m.copyA || !m.copyB)
    return false;
  if (cast<tile::GlobalTensorType>(m.copyA.getSrc().getType()).getRank() != 2 ||
      cast<tile::GlobalTensorType>(m.copyB.getSrc().getType()).getRank() != 2 ||
      cast<tile::GlobalTensorType>(m.copyA.getSrc().getType()).getElementType() != ae ||
      cast<tile::GlobalTensorType>(m.copyB.getSrc().getType()).getElementType() != ae)
    return false;
  m.A = memrefOf(m.copyA.getSrc());
  m.B = memrefOf(m.copyB.getSrc());
  m.aAlloc = gemm.getA().getDefiningOp<tile::AllocOp>();
  m.bAlloc = gemm.getB().getDefiningOp<tile::AllocOp>();
  m.cAlloc = gemm.getC().getDefiningOp<tile::AllocOp>();
  if (!m.A || !m.B || !m.aAlloc || !m.bAlloc || !m.cAlloc)
    return false;
  // Every use of the three tiles must be one we replace.
  Value Cf = gemm.getC();
  for (Operation *user : Cf.getUsers()) {
    if (user == gemm.getOperation())
      continue;
    if (auto c = dyn_cast<tile::ClearOp>(user)) {
      if (m.clear || c->getBlock() != &body || !c->isBeforeInBlock(loop))
        return false;
      m.clear = c;
      continue;
    }
    if (auto c = dyn_cast<tile::CopyOp>(user)) {
      if (m.copyOut || c.getSrc() != Cf || c.getTranspose() ||
          c->getBlock() != &body || loop->isBeforeInBlock(c) == false)
        return false;
      auto gt = dyn_cast<tile::GlobalTensorType>(c.getDst().getType());
      if (!gt || gt.getRank() != 2 ||
          !(gt.getElementType().isF16() || gt.getElementType().isBF16() ||
            gt.getElementType().isF32()))
        return false;
      m.copyOut = c;
      continue;
    }
    if (isa<tile::LoadOp, tile::StoreOp>(user)) {
      auto par = user->getParentOfType<tile::ParallelOp>();
      if (!par || par->getBlock() != &body || par.getShape().size() != 2)
        return false;
      if (!llvm::is_contained(m.epilogue, par))
        m.epilogue.push_back(par);
      continue;
    }
    return false;
  }
  if (!m.clear || !m.copyOut)
    return false;
  m.C = memrefOf(m.copyOut.getDst());
  if (!m.C)
    return false;
  for (Value t : {gemm.getA(), gemm.getB()})
    for (Operation *user : t.getUsers())
      if (user != gemm.getOperation() && user != m.copyA.getOperation() &&
          user != m.copyB.getOperation())
        return false;
  // Epilogue regions: between the loop and the copy out, touching only
  // Cf[i, j] at their own induction variables.
  for (tile::ParallelOp par : m.epilogue) {
    if (!loop->isBeforeInBlock(par) || !par->isBeforeInBlock(m.copyOut))
      return false;
    if (par.getShape()[0] != m.bm || par.getShape()[1] != m.bn)
      return false;
    Block &pb = par.getBodyBlock();
    bool ok = true;
    par.walk([&](Operation *op) {
      if (auto l = dyn_cast<tile::LoadOp>(op))
        ok &= l.getTile() == Cf && l.getIndices()[0] == pb.getArgument(0) &&
              l.getIndices()[1] == pb.getArgument(1);
      else if (auto s = dyn_cast<tile::StoreOp>(op))
        ok &= s.getTile() == Cf && s.getIndices()[0] == pb.getArgument(0) &&
              s.getIndices()[1] == pb.getArgument(1);
      else if (op != par.getOperation() && op->getNumRegions())
        ok = false;
    });
    if (!ok)
      return false;
  }
  // No other op in the kernel between the clear and the copy out may touch
  // tiles (it would observe Cf mid-way); plain scalar ops are fine.
  return true;
}

//===----------------------------------------------------------------------===//
// Emission helpers
//===----------------------------------------------------------------------===//

struct Emitter {
  OpBuilder &b;
  Location loc;
  Type i32, i64, f32;

  Emitter(OpBuilder &b, Location loc)
      : b(b), loc(loc), i32(b.getI32Type()), i64(b.getI64Type()),
        f32(b.getF32Type()) {}

  Value c32(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 32); }
  Value c64(int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 64); }
  Value ci(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value xori(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
  Value andi(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value shr(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value ult(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value ule(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, x, y);
  }
  Value toI32(Value index) {
    return arith::IndexCastUIOp::create(b, loc, i32, index);
  }
  Value toI64(Value index) {
    return arith::IndexCastUIOp::create(b, loc, i64, index);
  }

  /// Inline PTX; `results` empty for side-effect-only statements.
  SmallVector<Value> asmOp(StringRef text, StringRef constraints,
                           ValueRange operands, TypeRange results = {}) {
    Type res;
    if (results.size() == 1)
      res = results[0];
    else if (results.size() > 1)
      res = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                             SmallVector<Type>(results));
    auto op = LLVM::InlineAsmOp::create(
        b, loc, res, operands, text, constraints, /*has_side_effects=*/true,
        /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
        ArrayAttr());
    SmallVector<Value> out;
    if (results.size() == 1)
      out.push_back(op.getResult(0));
    else
      for (unsigned i = 0; i < results.size(); ++i)
        out.push_back(LLVM::ExtractValueOp::create(b, loc, op.getResult(0),
                                                   ArrayRef<int64_t>{i}));
    return out;
  }
};

/// Re-computes the loop body's index arithmetic for induction value `iv` and
/// returns the values mapped for the copies' offsets.
IRMapping cloneOffsets(OpBuilder &b, tile::PipelinedOp loop, Value iv) {
  IRMapping map;
  map.map(loop.getBodyBlock().getArgument(0), iv);
  for (Operation &op : loop.getBodyBlock().without_terminator())
    if (op.getDialect() && op.getDialect()->getNamespace() == "arith")
      b.clone(op, map);
  return map;
}

} // namespace

int64_t tessera::cuda::lowerCanonicalGemm(gpu::GPUFuncOp fn, StringRef chip) {
  tile::KernelOp kernel;
  fn.walk([&](tile::KernelOp k) { kernel = k; });
  GemmMatch m;
  if (!kernel || !match(kernel, m))
    return 0;

  const int64_t BM = m.bm, BN = m.bn, BK = m.bk, S = m.stages;
  const int64_t WM = BM / 2, WN = BN / 2, MI = WM / 16, NI = WN / 8;
  const int64_t aBytes = BM * BK * 2, bBytes = BK * BN * 2;
  const int64_t stageBytes = aBytes + bBytes;
  const int64_t smemBytes = S * stageBytes;
  Location loc = m.loop.getLoc();
  OpBuilder b(m.loop);
  Emitter e(b, loc);
  MLIRContext *ctx = fn.getContext();

  // Shared memory base (offset 0 of the dynamic window) as a 32-bit address.
  auto bytesTy = MemRefType::get(
      {ShapedType::kDynamic}, b.getIntegerType(8), MemRefLayoutAttrInterface{},
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  Value smem = gpu::DynamicSharedMemoryOp::create(b, loc, bytesTy);
  Value smemBase = e.toI32(
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, smem));
  Value aPtr = e.toI64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, m.A));
  Value bPtr = e.toI64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, m.B));
  Value M = memref::DimOp::create(b, loc, m.A, 0);
  Value K = memref::DimOp::create(b, loc, m.A, 1);
  Value N = memref::DimOp::create(b, loc, m.B, 1);
  Value kAligned = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(b, loc, K, e.ci(8)), e.ci(0));
  Value nAligned = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(b, loc, N, e.ci(8)), e.ci(0));
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value lane = arith::RemUIOp::create(b, loc, tid, e.ci(32));
  Value warp = arith::DivUIOp::create(b, loc, tid, e.ci(32));
  Value wm = arith::DivUIOp::create(b, loc, warp, e.ci(2));
  Value wn = arith::RemUIOp::create(b, loc, warp, e.ci(2));
  Type elem = m.bf16 ? b.getBF16Type() : b.getF16Type();

  // Swizzled byte offset of 16-byte chunk `ch` in row `r` of a tile whose
  // rows hold `cpr` chunks (index values).
  auto swizzle = [&](Value r, Value ch, int64_t cpr) -> Value {
    Value key = cpr == 4 ? e.andi(e.shr(r, e.ci(1)), e.ci(3))
                         : e.andi(r, e.ci(7));
    return e.add(e.mul(r, e.ci(cpr * 16)), e.mul(e.xori(ch, key), e.ci(16)));
  };

  // One 16-byte chunk global -> shared: cp.async when whole and aligned,
  // element-wise otherwise (zeros outside).
  auto loadChunk = [&](Value mem, Value ptr, Value row, Value col, Value rows,
                       Value cols, Value aligned, Value dst) {
    Value rowIn = e.ult(row, rows);
    Value whole = e.andi(e.andi(rowIn, e.ule(e.add(col, e.ci(8)), cols)), aligned);
    Value colIn = e.ult(col, cols);
    Value outside = arith::XOrIOp::create(
        b, loc, e.andi(rowIn, colIn),
        arith::ConstantIntOp::create(b, loc, 1, 1));
    Value fast = arith::OrIOp::create(b, loc, whole, outside);
    auto ifOp = scf::IfOp::create(b, loc, fast, /*withElse=*/true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value off = e.toI64(e.mul(e.add(e.mul(row, cols), col), e.ci(2)));
      Value src = arith::SelectOp::create(b, loc, whole, e.add(ptr, off), ptr);
      Value size = arith::SelectOp::create(b, loc, whole, e.c32(16), e.c32(0));
      e.asmOp("cp.async.cg.shared.global [$0], [$1], 16, $2;", "r,l,r",
              {dst, src, size});
      b.setInsertionPointToStart(ifOp.elseBlock());
      SmallVector<Value> words;
      for (int64_t w = 0; w < 4; ++w) {
        Value halves[2];
        for (int64_t h = 0; h < 2; ++h) {
          Value c = e.add(col, e.ci(w * 2 + h));
          auto ld = scf::IfOp::create(
              b, loc, e.ult(c, cols),
              [&](OpBuilder &tb, Location l) {
                Value v = memref::LoadOp::create(tb, l, mem, ValueRange{row, c});
                scf::YieldOp::create(tb, l, v);
              },
              [&](OpBuilder &eb, Location l) {
                Value z = arith::ConstantOp::create(eb, l, elem, eb.getZeroAttr(elem));
                scf::YieldOp::create(eb, l, z);
              });
          Value bits = arith::BitcastOp::create(b, loc, b.getI16Type(), ld.getResult(0));
          halves[h] = arith::ExtUIOp::create(b, loc, e.i32, bits);
        }
        words.push_back(arith::OrIOp::create(
            b, loc, halves[0], arith::ShLIOp::create(b, loc, halves[1], e.c32(16))));
      }
      e.asmOp("st.shared.v4.b32 [$0], {$1, $2, $3, $4};", "r,r,r,r,r",
              {dst, words[0], words[1], words[2], words[3]});
    }
  };

  // Issues the loads of iteration `iv` into stage `stage` (i32 value).
  auto issueStage = [&](Value iv, Value stage) {
    IRMapping map = cloneOffsets(b, m.loop, iv);
    Value aRow0 = map.lookupOrDefault(m.copyA.getSrcOffsets()[0]);
    Value aCol0 = map.lookupOrDefault(m.copyA.getSrcOffsets()[1]);
    Value bRow0 = map.lookupOrDefault(m.copyB.getSrcOffsets()[0]);
    Value bCol0 = map.lookupOrDefault(m.copyB.getSrcOffsets()[1]);
    Value sA = e.add(smemBase, arith::MulIOp::create(b, loc, stage, e.c32(stageBytes)));
    Value sB = e.add(sA, e.c32(aBytes));
    int64_t aCpr = BK / 8, bCpr = BN / 8;
    for (int64_t i = 0; i < BM * aCpr / 128; ++i) {
      Value c = e.add(tid, e.ci(i * 128));
      Value r = arith::DivUIOp::create(b, loc, c, e.ci(aCpr));
      Value ch = arith::RemUIOp::create(b, loc, c, e.ci(aCpr));
      Value dst = e.add(sA, e.toI32(swizzle(r, ch, aCpr)));
      loadChunk(m.A, aPtr, e.add(aRow0, r), e.add(aCol0, e.mul(ch, e.ci(8))), M,
                K, kAligned, dst);
    }
    for (int64_t i = 0; i < BK * bCpr / 128; ++i) {
      Value c = e.add(tid, e.ci(i * 128));
      Value r = arith::DivUIOp::create(b, loc, c, e.ci(bCpr));
      Value ch = arith::RemUIOp::create(b, loc, c, e.ci(bCpr));
      Value dst = e.add(sB, e.toI32(swizzle(r, ch, bCpr)));
      loadChunk(m.B, bPtr, e.add(bRow0, r), e.add(bCol0, e.mul(ch, e.ci(8))), K,
                N, nAligned, dst);
    }
  };
  auto commit = [&] { e.asmOp("cp.async.commit_group;", "", {}); };

  Value lb = m.loop.getLowerBound(), ub = m.loop.getUpperBound(),
        step = m.loop.getStep();
  // Prologue: stages 0 .. S-2.
  for (int64_t s = 0; s < S - 1; ++s) {
    Value iv = e.add(lb, e.mul(step, e.ci(s)));
    auto ifOp = scf::IfOp::create(b, loc, e.ult(iv, ub), false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      issueStage(iv, e.c32(s));
    }
    commit();
  }

  // Mainloop with the accumulators as iteration values.
  SmallVector<Value> init(MI * NI * 4,
                          arith::ConstantOp::create(b, loc, e.f32, b.getF32FloatAttr(0)));
  init.push_back(e.c32(0)); // stage being computed
  auto forOp = scf::ForOp::create(b, loc, lb, ub, step, init);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(forOp.getBody());
    Value kt = forOp.getInductionVar();
    auto iter = forOp.getRegionIterArgs();
    Value stage = iter.back();
    e.asmOp("cp.async.wait_group " + std::to_string(S - 2) + ";", "", {});
    gpu::BarrierOp::create(b, loc);
    // Prefetch S-1 iterations ahead into the stage computed last iteration.
    Value nextIv = e.add(kt, e.mul(step, e.ci(S - 1)));
    Value nextStage = arith::RemUIOp::create(b, loc, e.add(stage, e.c32(S - 1)), e.c32(S));
    auto ifOp = scf::IfOp::create(b, loc, e.ult(nextIv, ub), false);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      issueStage(nextIv, nextStage);
    }
    commit();

    Value sA = e.add(smemBase, arith::MulIOp::create(b, loc, stage, e.c32(stageBytes)));
    Value sB = e.add(sA, e.c32(aBytes));
    SmallVector<Value> acc(iter.begin(), iter.end() - 1);
    Value l8 = arith::RemUIOp::create(b, loc, lane, e.ci(8));
    Value lhi = arith::DivUIOp::create(b, loc, lane, e.ci(8)); // 0..3
    std::string mma = std::string("mma.sync.aligned.m16n8k16.row.col.f32.") +
                      (m.bf16 ? "bf16.bf16" : "f16.f16") +
                      ".f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};";
    Type f = e.f32, r = e.i32;
    for (int64_t kk = 0; kk < BK / 16; ++kk) {
      SmallVector<SmallVector<Value>> aF(MI), bF(NI);
      for (int64_t mi = 0; mi < MI; ++mi) {
        Value row = e.add(e.add(e.mul(wm, e.ci(WM)), e.ci(mi * 16)),
                          e.add(l8, e.mul(e.andi(lhi, e.ci(1)), e.ci(8))));
        Value ch = e.add(e.ci(kk * 2), e.shr(lhi, e.ci(1)));
        Value addr = e.add(sA, e.toI32(swizzle(row, ch, BK / 8)));
        aF[mi] = e.asmOp("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0,$1,$2,$3}, [$4];",
                         "=r,=r,=r,=r,r", {addr}, {r, r, r, r});
      }
      for (int64_t nj = 0; nj < NI / 2; ++nj) {
        Value krow = e.add(e.ci(kk * 16), e.add(l8, e.mul(e.andi(lhi, e.ci(1)), e.ci(8))));
        Value ch = e.add(e.add(e.mul(wn, e.ci(WN / 8)), e.ci(nj * 2)), e.shr(lhi, e.ci(1)));
        Value addr = e.add(sB, e.toI32(swizzle(krow, ch, BN / 8)));
        auto v = e.asmOp("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0,$1,$2,$3}, [$4];",
                         "=r,=r,=r,=r,r", {addr}, {r, r, r, r});
        bF[2 * nj] = {v[0], v[1]};
        bF[2 * nj + 1] = {v[2], v[3]};
      }
      for (int64_t mi = 0; mi < MI; ++mi)
        for (int64_t ni = 0; ni < NI; ++ni) {
          int64_t base = (mi * NI + ni) * 4;
          SmallVector<Value> ops = {aF[mi][0], aF[mi][1], aF[mi][2], aF[mi][3],
                                    bF[ni][0], bF[ni][1], acc[base],
                                    acc[base + 1], acc[base + 2], acc[base + 3]};
          auto d = e.asmOp(mma, "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3", ops, {f, f, f, f});
          for (int q = 0; q < 4; ++q)
            acc[base + q] = d[q];
        }
    }
    acc.push_back(arith::RemUIOp::create(b, loc, e.add(stage, e.c32(1)), e.c32(S)));
    scf::YieldOp::create(b, loc, acc);
  }
  e.asmOp("cp.async.wait_group 0;", "", {});
  gpu::BarrierOp::create(b, loc);

  // Epilogue, per accumulator register, right where the copy out was.
  b.setInsertionPoint(m.copyOut);
  Value g = arith::DivUIOp::create(b, loc, lane, e.ci(4));
  Value t4 = arith::RemUIOp::create(b, loc, lane, e.ci(4));
  Value rowC = m.copyOut.getDstOffsets()[0], colC = m.copyOut.getDstOffsets()[1];
  Value Mo = memref::DimOp::create(b, loc, m.C, 0);
  Value No = memref::DimOp::create(b, loc, m.C, 1);
  Type outElem = cast<MemRefType>(m.C.getType()).getElementType();
  for (int64_t mi = 0; mi < MI; ++mi)
    for (int64_t ni = 0; ni < NI; ++ni)
      for (int64_t q = 0; q < 4; ++q) {
        Value v = forOp.getResult((mi * NI + ni) * 4 + q);
        Value i = e.add(e.add(e.mul(wm, e.ci(WM)), e.ci(mi * 16 + (q >= 2 ? 8 : 0))), g);
        Value j = e.add(e.add(e.mul(wn, e.ci(WN)), e.ci(ni * 8 + (q & 1))),
                        e.mul(t4, e.ci(2)));
        for (tile::ParallelOp par : m.epilogue) {
          IRMapping map;
          Block &pb = par.getBodyBlock();
          map.map(pb.getArgument(0), i);
          map.map(pb.getArgument(1), j);
          for (Operation &op : pb.without_terminator()) {
            if (auto l = dyn_cast<tile::LoadOp>(op)) {
              map.map(l.getResult(), v);
              continue;
            }
            if (auto s = dyn_cast<tile::StoreOp>(op)) {
              v = map.lookupOrDefault(s.getValue());
              continue;
            }
            b.clone(op, map);
          }
        }
        Value gi = e.add(rowC, i), gj = e.add(colC, j);
        auto ifOp = scf::IfOp::create(b, loc, e.andi(e.ult(gi, Mo), e.ult(gj, No)), false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        Value out = v;
        if (outElem != e.f32)
          out = arith::TruncFOp::create(b, loc, outElem, v);
        memref::StoreOp::create(b, loc, out, m.C, ValueRange{gi, gj});
      }

  // Drop the tile ops the kernel no longer needs.
  m.copyOut->erase();
  for (tile::ParallelOp par : m.epilogue)
    par->erase();
  m.loop->erase();
  m.clear->erase();
  m.cAlloc->erase();
  m.aAlloc->erase();
  m.bAlloc->erase();
  fn->setAttr("tessera.fast_path", b.getStringAttr("mma.sync"));
  (void)chip;
  return smemBytes;
}
