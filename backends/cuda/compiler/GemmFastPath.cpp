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
#include "CudaTargetHooks.h"
#include "PtxEmitter.h"

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
  Value A, B, C; // memrefs
  int64_t bm, bn, bk, stages;
  bool bf16;
  // fp8 (f8E4M3FN / f8E5M2, any mix): both operands K-major, B stored N x K
  // and read with transpose_b. Only the sm_90a path handles it (wgmma);
  // lowerCanonicalGemm leaves such kernels to the SIMT path.
  bool fp8 = false;
  bool aE5M2 = false, bE5M2 = false;
  // Rank-1 f32 tiles the epilogue reads at its column (bias[j]) or row
  // (scale[i]) induction variable, each filled by one tile.copy from a
  // rank-1 global tensor at the block's column (row) offset.
  struct FragIn {
    Value tile;
    tile::AllocOp alloc;
    tile::CopyOp copy;
    Value mem; // memref of the source tensor
    bool byRow = false;
  };
  SmallVector<FragIn> frags;
};

bool isF8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

Value memrefOf(Value tensor) {
  if (auto cast = tensor.getDefiningOp<UnrealizedConversionCastOp>())
    if (cast.getInputs().size() == 1 &&
        isa<MemRefType>(cast.getInputs()[0].getType()))
      return cast.getInputs()[0];
  return {};
}

/// Checks that `t` (read by `load` in epilogue region `par`) is a rank-1
/// input tile as GemmMatch::frags describes, and records it.
bool matchFragIn(GemmMatch &m, Block &body, Value t, tile::LoadOp load,
                 tile::ParallelOp par) {
  Block &pb = par.getBodyBlock();
  if (load.getIndices().size() != 1)
    return false;
  bool byRow;
  if (load.getIndices()[0] == pb.getArgument(1))
    byRow = false;
  else if (load.getIndices()[0] == pb.getArgument(0))
    byRow = true;
  else
    return false;
  for (GemmMatch::FragIn &f : m.frags)
    if (f.tile == t)
      return f.byRow == byRow && f.copy->isBeforeInBlock(par);
  auto tt = dyn_cast<tile::TileType>(t.getType());
  auto alloc = t.getDefiningOp<tile::AllocOp>();
  if (!tt || !alloc || alloc->getBlock() != &body || tt.getRank() != 1 ||
      !tt.getElementType().isF32() || tt.getShape()[0] != (byRow ? m.bm : m.bn))
    return false;
  tile::CopyOp copy;
  for (Operation *user : t.getUsers()) {
    if (auto c = dyn_cast<tile::CopyOp>(user)) {
      if (copy || c.getDst() != t || c.getTranspose() || c->getBlock() != &body)
        return false;
      copy = c;
      continue;
    }
    if (auto l = dyn_cast<tile::LoadOp>(user)) {
      auto p = dyn_cast<tile::ParallelOp>(l->getParentOp());
      if (!p || !llvm::is_contained(m.epilogue, p))
        return false;
      continue;
    }
    return false;
  }
  if (!copy || !copy->isBeforeInBlock(par))
    return false;
  auto gt = dyn_cast<tile::GlobalTensorType>(copy.getSrc().getType());
  if (!gt || gt.getRank() != 1 ||
      !(gt.getElementType().isF16() || gt.getElementType().isBF16() ||
        gt.getElementType().isF32()))
    return false;
  if (copy.getSrcOffsets()[0] != m.copyOut.getDstOffsets()[byRow ? 0 : 1])
    return false;
  Value mem = memrefOf(copy.getSrc());
  if (!mem)
    return false;
  m.frags.push_back({t, alloc, copy, mem, byRow});
  return true;
}

bool match(tile::KernelOp kernel, GemmMatch &m) {
  if (kernel.getThreads() != 128)
    return false;
  Block &body = kernel.getBodyBlock();
  // The accumulator: the one f32 fragment tile that a gemm writes.
  tile::GemmOp gemm;
  int gemms = 0;
  kernel.walk([&](tile::GemmOp g) {
    gemm = g;
    ++gemms;
  });
  if (gemms != 1 || gemm.getClear() || gemm.getTransposeA())
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
  m.fp8 = isF8(ae) && isF8(be);
  if (m.fp8) {
    // K-major B (N x K tile), as fp8 wgmma reads it.
    if (!gemm.getTransposeB())
      return false;
    m.aE5M2 = isa<Float8E5M2Type>(ae);
    m.bE5M2 = isa<Float8E5M2Type>(be);
  } else if (gemm.getTransposeB() || ae != be || !(ae.isF16() || ae.isBF16())) {
    return false;
  }
  m.bm = ct.getShape()[0];
  m.bn = ct.getShape()[1];
  m.bk = at.getShape()[1];
  if (!(m.bm == 64 || m.bm == 128) || !(m.bn == 64 || m.bn == 128))
    return false;
  if (m.fp8 ? !(m.bk == 64 || m.bk == 128) || bt.getShape()[0] != m.bn ||
                  bt.getShape()[1] != m.bk
            : !(m.bk == 32 || m.bk == 64))
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
      cast<tile::GlobalTensorType>(m.copyA.getSrc().getType())
              .getElementType() != ae ||
      cast<tile::GlobalTensorType>(m.copyB.getSrc().getType())
              .getElementType() != be)
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
  // Cf[i, j] at their own induction variables (and rank-1 input tiles at
  // i or j, see matchFragIn).
  for (tile::ParallelOp par : m.epilogue) {
    if (!loop->isBeforeInBlock(par) || !par->isBeforeInBlock(m.copyOut))
      return false;
    if (par.getShape()[0] != m.bm || par.getShape()[1] != m.bn)
      return false;
    Block &pb = par.getBodyBlock();
    bool ok = true;
    par.walk([&](Operation *op) {
      if (auto l = dyn_cast<tile::LoadOp>(op))
        ok &= l.getTile() == Cf ? l.getIndices()[0] == pb.getArgument(0) &&
                                      l.getIndices()[1] == pb.getArgument(1)
                                : matchFragIn(m, body, l.getTile(), l, par);
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

using Emitter = tessera::cuda::PtxEmitter;

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

/// Clones the epilogue bodies for one accumulator register holding `v` at
/// tile coordinates (i, j) and returns the value stored back. Reads of
/// rank-1 input tiles become masked global loads (zero past the tensor's
/// end) converted to f32, emitted once per (tile, key) in `cache`; rowKey
/// and colKey name the register's row and column among the thread's.
Value cloneEpilogue(OpBuilder &b, Emitter &e, GemmMatch &m, Value v, Value i,
                    Value j, int64_t rowKey, int64_t colKey,
                    DenseMap<std::pair<Value, int64_t>, Value> &cache) {
  auto fragValue = [&](Value t) -> Value {
    GemmMatch::FragIn *f = nullptr;
    for (GemmMatch::FragIn &x : m.frags)
      if (x.tile == t)
        f = &x;
    int64_t key = f->byRow ? rowKey : colKey;
    Value &slot = cache[{t, key}];
    if (slot)
      return slot;
    Value g = e.add(f->copy.getSrcOffsets()[0], f->byRow ? i : j);
    Value n = memref::DimOp::create(b, e.loc, f->mem, 0);
    auto ld = scf::IfOp::create(
        b, e.loc, e.ult(g, n),
        [&](OpBuilder &tb, Location l) {
          Value x = memref::LoadOp::create(tb, l, f->mem, ValueRange{g});
          if (x.getType() != e.f32)
            x = arith::ExtFOp::create(tb, l, e.f32, x);
          scf::YieldOp::create(tb, l, x);
        },
        [&](OpBuilder &eb, Location l) {
          Value z =
              arith::ConstantOp::create(eb, l, e.f32, eb.getF32FloatAttr(0));
          scf::YieldOp::create(eb, l, z);
        });
    return slot = ld.getResult(0);
  };
  Value Cf = m.gemm.getC();
  for (tile::ParallelOp par : m.epilogue) {
    IRMapping map;
    Block &pb = par.getBodyBlock();
    map.map(pb.getArgument(0), i);
    map.map(pb.getArgument(1), j);
    for (Operation &op : pb.without_terminator()) {
      if (auto l = dyn_cast<tile::LoadOp>(op)) {
        map.map(l.getResult(), l.getTile() == Cf ? v : fragValue(l.getTile()));
        continue;
      }
      if (auto s = dyn_cast<tile::StoreOp>(op)) {
        v = map.lookupOrDefault(s.getValue());
        continue;
      }
      b.clone(op, map);
    }
  }
  return v;
}

/// Erases the tile ops a fast path replaced.
void eraseMatched(GemmMatch &m) {
  m.copyOut->erase();
  for (tile::ParallelOp par : m.epilogue)
    par->erase();
  for (GemmMatch::FragIn &f : m.frags) {
    f.copy->erase();
    f.alloc->erase();
  }
  m.loop->erase();
  m.clear->erase();
  m.cAlloc->erase();
  m.aAlloc->erase();
  m.bAlloc->erase();
}

} // namespace

int64_t tessera::cuda::lowerCanonicalGemm(gpu::GPUFuncOp fn, StringRef chip) {
  tile::KernelOp kernel;
  fn.walk([&](tile::KernelOp k) { kernel = k; });
  GemmMatch m;
  if (!kernel || !match(kernel, m) || m.fp8)
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
  Value smemBase =
      e.toI32(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, smem));
  Value aPtr =
      e.toI64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, m.A));
  Value bPtr =
      e.toI64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, m.B));
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
    Value key =
        cpr == 4 ? e.andi(e.shr(r, e.ci(1)), e.ci(3)) : e.andi(r, e.ci(7));
    return e.add(e.mul(r, e.ci(cpr * 16)), e.mul(e.xori(ch, key), e.ci(16)));
  };

  // One 16-byte chunk global -> shared: cp.async when whole and aligned,
  // element-wise otherwise (zeros outside).
  auto loadChunk = [&](Value mem, Value ptr, Value row, Value col, Value rows,
                       Value cols, Value aligned, Value dst) {
    Value rowIn = e.ult(row, rows);
    Value whole =
        e.andi(e.andi(rowIn, e.ule(e.add(col, e.ci(8)), cols)), aligned);
    Value colIn = e.ult(col, cols);
    Value outside =
        arith::XOrIOp::create(b, loc, e.andi(rowIn, colIn),
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
                Value v =
                    memref::LoadOp::create(tb, l, mem, ValueRange{row, c});
                scf::YieldOp::create(tb, l, v);
              },
              [&](OpBuilder &eb, Location l) {
                Value z = arith::ConstantOp::create(eb, l, elem,
                                                    eb.getZeroAttr(elem));
                scf::YieldOp::create(eb, l, z);
              });
          Value bits =
              arith::BitcastOp::create(b, loc, b.getI16Type(), ld.getResult(0));
          halves[h] = arith::ExtUIOp::create(b, loc, e.i32, bits);
        }
        words.push_back(arith::OrIOp::create(
            b, loc, halves[0],
            arith::ShLIOp::create(b, loc, halves[1], e.c32(16))));
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
    Value sA = e.add(smemBase,
                     arith::MulIOp::create(b, loc, stage, e.c32(stageBytes)));
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
  SmallVector<Value> init(
      MI * NI * 4,
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
    Value nextStage =
        arith::RemUIOp::create(b, loc, e.add(stage, e.c32(S - 1)), e.c32(S));
    auto ifOp = scf::IfOp::create(b, loc, e.ult(nextIv, ub), false);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      issueStage(nextIv, nextStage);
    }
    commit();

    Value sA = e.add(smemBase,
                     arith::MulIOp::create(b, loc, stage, e.c32(stageBytes)));
    Value sB = e.add(sA, e.c32(aBytes));
    SmallVector<Value> acc(iter.begin(), iter.end() - 1);
    Value l8 = arith::RemUIOp::create(b, loc, lane, e.ci(8));
    Value lhi = arith::DivUIOp::create(b, loc, lane, e.ci(8)); // 0..3
    std::string mma =
        std::string("mma.sync.aligned.m16n8k16.row.col.f32.") +
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
        aF[mi] = e.asmOp(
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0,$1,$2,$3}, [$4];",
            "=r,=r,=r,=r,r", {addr}, {r, r, r, r});
      }
      for (int64_t nj = 0; nj < NI / 2; ++nj) {
        Value krow = e.add(e.ci(kk * 16),
                           e.add(l8, e.mul(e.andi(lhi, e.ci(1)), e.ci(8))));
        Value ch = e.add(e.add(e.mul(wn, e.ci(WN / 8)), e.ci(nj * 2)),
                         e.shr(lhi, e.ci(1)));
        Value addr = e.add(sB, e.toI32(swizzle(krow, ch, BN / 8)));
        auto v = e.asmOp("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 "
                         "{$0,$1,$2,$3}, [$4];",
                         "=r,=r,=r,=r,r", {addr}, {r, r, r, r});
        bF[2 * nj] = {v[0], v[1]};
        bF[2 * nj + 1] = {v[2], v[3]};
      }
      for (int64_t mi = 0; mi < MI; ++mi)
        for (int64_t ni = 0; ni < NI; ++ni) {
          int64_t base = (mi * NI + ni) * 4;
          SmallVector<Value> ops = {aF[mi][0],    aF[mi][1],     aF[mi][2],
                                    aF[mi][3],    bF[ni][0],     bF[ni][1],
                                    acc[base],    acc[base + 1], acc[base + 2],
                                    acc[base + 3]};
          auto d = e.asmOp(mma, "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3", ops,
                           {f, f, f, f});
          for (int q = 0; q < 4; ++q)
            acc[base + q] = d[q];
        }
    }
    acc.push_back(
        arith::RemUIOp::create(b, loc, e.add(stage, e.c32(1)), e.c32(S)));
    scf::YieldOp::create(b, loc, acc);
  }
  e.asmOp("cp.async.wait_group 0;", "", {});
  gpu::BarrierOp::create(b, loc);

  // Epilogue, per accumulator register, right where the copy out was.
  b.setInsertionPoint(m.copyOut);
  Value g = arith::DivUIOp::create(b, loc, lane, e.ci(4));
  Value t4 = arith::RemUIOp::create(b, loc, lane, e.ci(4));
  Value rowC = m.copyOut.getDstOffsets()[0],
        colC = m.copyOut.getDstOffsets()[1];
  Value Mo = memref::DimOp::create(b, loc, m.C, 0);
  Value No = memref::DimOp::create(b, loc, m.C, 1);
  Type outElem = cast<MemRefType>(m.C.getType()).getElementType();
  DenseMap<std::pair<Value, int64_t>, Value> fragCache;
  for (int64_t mi = 0; mi < MI; ++mi)
    for (int64_t ni = 0; ni < NI; ++ni)
      for (int64_t q = 0; q < 4; ++q) {
        Value v = forOp.getResult((mi * NI + ni) * 4 + q);
        Value i = e.add(
            e.add(e.mul(wm, e.ci(WM)), e.ci(mi * 16 + (q >= 2 ? 8 : 0))), g);
        Value j = e.add(e.add(e.mul(wn, e.ci(WN)), e.ci(ni * 8 + (q & 1))),
                        e.mul(t4, e.ci(2)));
        v = cloneEpilogue(b, e, m, v, i, j, mi * 2 + (q >= 2), ni * 2 + (q & 1),
                          fragCache);
        Value gi = e.add(rowC, i), gj = e.add(colC, j);
        auto ifOp = scf::IfOp::create(
            b, loc, e.andi(e.ult(gi, Mo), e.ult(gj, No)), false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        Value out = v;
        if (outElem != e.f32)
          out = arith::TruncFOp::create(b, loc, outElem, v);
        memref::StoreOp::create(b, loc, out, m.C, ValueRange{gi, gj});
      }

  // Drop the tile ops the kernel no longer needs.
  eraseMatched(m);
  fn->setAttr("tessera.fast_path", b.getStringAttr("mma.sync"));
  (void)chip;
  return smemBytes;
}

//===----------------------------------------------------------------------===//
// sm_90a: TMA + wgmma, warp-specialized
//===----------------------------------------------------------------------===//
//
// 384 threads: warpgroup 0 is the producer (one thread issues the TMA
// copies), warpgroups 1 and 2 are consumers, each owning 64 rows of the
// 128 x 128 accumulator (m64n128k16 wgmma, 64 f32 registers per thread).
// K steps of 64 (one 128-byte swizzle row of A per tile row), kSm90Stages
// stages of [A 128x64 | B 64x64 (cols 0..63) | B 64x64 (cols 64..127)],
// 128-byte swizzled by TMA. full[s] completes on the TMA bytes (expect_tx),
// empty[s] on one arrive per consumer warpgroup once its wgmmas that read
// stage s have retired (released one iteration late: wgmma.wait_group 1).

namespace {

constexpr int64_t kSm90Stages = 4;
constexpr int64_t kSm90BK = 64;
constexpr int64_t kSm90StageBytes = 128 * kSm90BK * 2 + kSm90BK * 128 * 2;

/// `v` is `iv * c` (either operand order) with `c` a constant; returns c or 0.
int64_t scaleOfIv(Value v, Value iv) {
  auto mul = v.getDefiningOp<arith::MulIOp>();
  if (!mul)
    return 0;
  Value o;
  if (mul.getLhs() == iv)
    o = mul.getRhs();
  else if (mul.getRhs() == iv)
    o = mul.getLhs();
  else
    return 0;
  auto c = o.getDefiningOp<arith::ConstantIndexOp>();
  return c ? c.value() : 0;
}

bool constIndex(Value v, int64_t want) {
  auto c = v.getDefiningOp<arith::ConstantIndexOp>();
  return c && c.value() == want;
}

} // namespace

bool tessera::cuda::lowerCanonicalGemmSm90(gpu::GPUFuncOp fn, Sm90Gemm &out) {
  tile::KernelOp kernel;
  fn.walk([&](tile::KernelOp k) { kernel = k; });
  GemmMatch m;
  if (!kernel || !match(kernel, m))
    return false;
  if (m.bm != 128 || m.bn != 128)
    return false;
  // The loop must walk K from 0 in steps of the tile's BK, so that a K step
  // of 64 over all of K computes the same sums.
  // fp8: B is N x K, its K offset is the second.
  const bool fp8 = m.fp8;
  Value bK = m.copyB.getSrcOffsets()[fp8 ? 1 : 0];
  Value bN = m.copyB.getSrcOffsets()[fp8 ? 0 : 1];
  Value iv = m.loop.getBodyBlock().getArgument(0);
  if (!constIndex(m.loop.getLowerBound(), 0) ||
      !constIndex(m.loop.getStep(), 1) ||
      scaleOfIv(m.copyA.getSrcOffsets()[1], iv) != m.bk ||
      scaleOfIv(bK, iv) != m.bk)
    return false;
  for (Value off : {m.copyA.getSrcOffsets()[0], bN})
    if (off.getParentBlock() == &m.loop.getBodyBlock())
      return false; // row/col must not depend on the K step
  int64_t aSlot = kernelSlotOf(m.A), bSlot = kernelSlotOf(m.B);
  if (aSlot < 0 || bSlot < 0)
    return false;

  // K step: 128 bytes of a row (one 128-byte swizzle atom row) either way:
  // 64 16-bit or 128 fp8 elements; a stage is A 128 x BK then B (fp8: one
  // 128 x BK K-major tile; 16-bit: two BK x 64 N-major halves).
  const int64_t S = kSm90Stages, BK = fp8 ? 2 * kSm90BK : kSm90BK;
  const int64_t aBytes = 128 * 128, bHalf = BK * 64 * 2;
  const int64_t barOff = S * kSm90StageBytes;
  const int64_t smemBytes = 1024 /*alignment slack*/ + barOff + 16 * S;
  MLIRContext *ctx = fn.getContext();
  Location loc = m.loop.getLoc();
  // Everything goes where the copy out was: every value the loop, the
  // copies and the epilogue use dominates that point.
  OpBuilder b(m.copyOut);
  Emitter e(b, loc);
  Type i32 = e.i32, i64 = e.i64, f32 = e.f32;

  // The tensor-map placeholders: `__tessera_tma_map(i)` is the address of
  // the i-th extra (128-byte, grid-constant) kernel parameter; NvptxCodegen
  // appends those parameters and replaces the calls.
  auto gpuModule = fn->getParentOfType<gpu::GPUModuleOp>();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto mapFnTy = LLVM::LLVMFunctionType::get(ptrTy, {i32});
  if (!gpuModule.lookupSymbol(kTmaMapFn)) {
    OpBuilder mb(ctx);
    mb.setInsertionPointToStart(&gpuModule.getBodyRegion().front());
    LLVM::LLVMFuncOp::create(mb, loc, kTmaMapFn, mapFnTy);
  }
  auto mapAddr = [&](int64_t i) -> Value {
    auto call = LLVM::CallOp::create(b, loc, TypeRange{ptrTy},
                                     SymbolRefAttr::get(ctx, kTmaMapFn),
                                     ValueRange{e.c32(i)});
    return LLVM::PtrToIntOp::create(b, loc, i64, call.getResult());
  };

  auto bytesTy = MemRefType::get(
      {ShapedType::kDynamic}, b.getIntegerType(8), MemRefLayoutAttrInterface{},
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  Value smem = gpu::DynamicSharedMemoryOp::create(b, loc, bytesTy);
  Value rawBase =
      e.toI32(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, smem));
  // 1024-byte aligned (128-byte swizzle atoms, descriptor base offset 0).
  Value base = e.andi(e.add(rawBase, e.c32(1023)), e.c32(~1023));
  auto stageA = [&](Value s) {
    return e.add(base, e.mul(s, e.c32(kSm90StageBytes)));
  };
  auto fullBar = [&](Value s) {
    return e.add(base, e.add(e.c32(barOff), e.mul(s, e.c32(8))));
  };
  auto emptyBar = [&](Value s) {
    return e.add(base, e.add(e.c32(barOff + 8 * S), e.mul(s, e.c32(8))));
  };

  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value tid32 = e.toI32(tid);
  Value wg = arith::DivUIOp::create(b, loc, tid32, e.c32(128));
  Value isT0 =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid32, e.c32(0));
  Value K = memref::DimOp::create(b, loc, m.A, 1);
  Value nk = e.toI32(arith::CeilDivUIOp::create(b, loc, K, e.ci(BK)));
  IRMapping offs = cloneOffsets(b, m.loop, m.loop.getLowerBound());
  Value rowA = e.toI32(offs.lookupOrDefault(m.copyA.getSrcOffsets()[0]));
  Value colB = e.toI32(offs.lookupOrDefault(bN));

  // Barrier init by thread 0, made visible to the async proxy.
  {
    auto ifOp = scf::IfOp::create(b, loc, isT0, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (int64_t s = 0; s < S; ++s) {
      e.asmOp("mbarrier.init.shared::cta.b64 [$0], 1;", "r",
              {fullBar(e.c32(s))});
      e.asmOp("mbarrier.init.shared::cta.b64 [$0], 2;", "r",
              {emptyBar(e.c32(s))});
    }
    e.asmOp("fence.mbarrier_init.release.cluster;", "", {});
    e.asmOp("fence.proxy.async.shared::cta;", "", {});
  }
  gpu::BarrierOp::create(b, loc);

  auto waitParity = [&](Value bar, Value parity) {
    e.asmOp("{\n.reg .pred P1;\nTESSERA_WAIT:\n"
            "mbarrier.try_wait.parity.shared::cta.b64 P1, [$0], $1;\n"
            "@P1 bra TESSERA_DONE;\nbra TESSERA_WAIT;\nTESSERA_DONE:\n}",
            "r,r", {bar, parity});
  };

  auto roleIf = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, wg, e.c32(0)),
      /*withElse=*/true);
  // ---- producer warpgroup ----
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(roleIf.thenBlock());
    e.asmOp("setmaxnreg.dec.sync.aligned.u32 40;", "", {});
    auto ifOp = scf::IfOp::create(b, loc, isT0, false);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value mapA = mapAddr(0), mapB = mapAddr(1);
    auto loop = scf::ForOp::create(b, loc, e.c32(0), nk, e.c32(1));
    b.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    Value s = arith::RemUIOp::create(b, loc, kt, e.c32(S));
    Value round = arith::DivUIOp::create(b, loc, kt, e.c32(S));
    auto reuse = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, kt, e.c32(S)),
        false);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(reuse.thenBlock());
      waitParity(
          emptyBar(s),
          e.andi(arith::XOrIOp::create(b, loc, round, e.c32(1)), e.c32(1)));
    }
    Value full = fullBar(s);
    e.asmOp("mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r",
            {full, e.c32(kSm90StageBytes)});
    Value k0 = e.mul(kt, e.c32(BK));
    Value sA = stageA(s);
    std::string tma =
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile."
        "mbarrier::complete_tx::bytes [$0], [$1, {$2, $3}], [$4];";
    e.asmOp(tma, "r,l,r,r,r", {sA, mapA, k0, rowA, full});
    Value sB = e.add(sA, e.c32(aBytes));
    if (fp8) {
      // B is N x K: one 128 (N) x 128 (K bytes) box, K-major like A.
      e.asmOp(tma, "r,l,r,r,r", {sB, mapB, k0, colB, full});
    } else {
      e.asmOp(tma, "r,l,r,r,r", {sB, mapB, colB, k0, full});
      e.asmOp(
          tma, "r,l,r,r,r",
          {e.add(sB, e.c32(bHalf)), mapB, e.add(colB, e.c32(64)), k0, full});
    }
  }
  // ---- consumer warpgroups ----
  b.setInsertionPointToStart(roleIf.elseBlock());
  e.asmOp("setmaxnreg.inc.sync.aligned.u32 232;", "", {});
  Value cw = arith::SubIOp::create(b, loc, wg, e.c32(1)); // 0 or 1
  Value leader = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(b, loc, tid32, e.c32(128)), e.c32(0));
  SmallVector<Value> init(
      64, arith::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(0)));
  auto loop = scf::ForOp::create(b, loc, e.c32(0), nk, e.c32(1), init);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    Value s = arith::RemUIOp::create(b, loc, kt, e.c32(S));
    Value round = arith::DivUIOp::create(b, loc, kt, e.c32(S));
    waitParity(fullBar(s), e.andi(round, e.c32(1)));
    Value sA = stageA(s);
    Value aAddr = e.add(sA, e.mul(cw, e.c32(64 * 128)));
    Value bAddr = e.add(sA, e.c32(aBytes));
    // Descriptors: 128-byte swizzle (mode 1 in bits 62-63). A is K-major
    // (SBO = 8 rows of 128 bytes); B is N-major (LBO = the distance between
    // its two 64-column halves, SBO = 8 K-rows of 128 bytes).
    auto desc = [&](Value addr, int64_t lbo, int64_t sbo) -> Value {
      Value a = arith::ExtUIOp::create(
          b, loc, i64, e.shr(e.andi(addr, e.c32(0x3FFFF)), e.c32(4)));
      uint64_t hi = ((uint64_t)(lbo >> 4) << 16) |
                    ((uint64_t)(sbo >> 4) << 32) | (1ull << 62);
      return arith::OrIOp::create(b, loc, a, e.c64((int64_t)hi));
    };
    e.asmOp("wgmma.fence.sync.aligned;", "", {});
    SmallVector<Value> acc(loop.getRegionIterArgs().begin(),
                           loop.getRegionIterArgs().end());
    std::string text =
        fp8 ? std::string("wgmma.mma_async.sync.aligned.m64n128k32.f32.") +
                  (m.aE5M2 ? "e5m2." : "e4m3.") + (m.bE5M2 ? "e5m2" : "e4m3") +
                  " {"
            : std::string("wgmma.mma_async.sync.aligned.m64n128k16.f32.") +
                  (m.bf16 ? "bf16.bf16" : "f16.f16") + " {";
    std::string cons;
    for (int i = 0; i < 64; ++i) {
      text += (i ? ",$" : "$") + std::to_string(i);
      cons += "=f,";
    }
    // fp8 wgmma has no transpose immediates (both operands K-major).
    text +=
        fp8 ? "}, $128, $129, p, 1, 1;\n}" : "}, $128, $129, p, 1, 1, 0, 1;\n}";
    text = "{\n.reg .pred p;\nsetp.ne.b32 p, $130, 0;\n" + text;
    for (int i = 0; i < 64; ++i)
      cons += std::to_string(i) + ",";
    cons += "l,l,r";
    SmallVector<Type> resTys(64, f32);
    // Four wgmmas per stage, each over 32 bytes of K (k16 16-bit, k32 fp8):
    // K-major operands advance their start address by 32 bytes inside the
    // 128-byte swizzle row (the hardware applies the XOR).
    for (int64_t kk = 0; kk < 4; ++kk) {
      Value da = desc(e.add(aAddr, e.c32(kk * 32)), 16, 1024);
      Value db = fp8 ? desc(e.add(bAddr, e.c32(kk * 32)), 16, 1024)
                     : desc(e.add(bAddr, e.c32(kk * 16 * 128)), bHalf, 1024);
      SmallVector<Value> ops(acc.begin(), acc.end());
      ops.push_back(da);
      ops.push_back(db);
      ops.push_back(e.c32(1));
      acc = e.asmOp(text, cons, ops, resTys);
    }
    e.asmOp("wgmma.commit_group.sync.aligned;", "", {});
    e.asmOp("wgmma.wait_group.sync.aligned 1;", "", {});
    // The previous iteration's wgmmas have retired: release its stage.
    Value prev =
        arith::RemUIOp::create(b, loc, e.add(kt, e.c32(S - 1)), e.c32(S));
    auto rel = scf::IfOp::create(
        b, loc,
        e.andi(leader, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                             kt, e.c32(0))),
        false);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(rel.thenBlock());
      e.asmOp("mbarrier.arrive.shared::cta.b64 _, [$0];", "r",
              {emptyBar(prev)});
    }
    scf::YieldOp::create(b, loc, acc);
  }
  // The wait passes the accumulators through, so that nothing reading them
  // (the epilogue) can be scheduled before it.
  SmallVector<Value> fin;
  {
    std::string cons;
    for (int i = 0; i < 64; ++i)
      cons += "=f,";
    for (int i = 0; i < 64; ++i)
      cons += std::to_string(i) + (i < 63 ? "," : "");
    fin = e.asmOp("wgmma.wait_group.sync.aligned 0;", cons,
                  SmallVector<Value>(loop.getResults()),
                  SmallVector<Type>(64, f32));
  }

  // Epilogue: per accumulator register, (i, j) its tile coordinates.
  Value lane = arith::RemUIOp::create(b, loc, tid, e.ci(32));
  Value warpInWg = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, tid, e.ci(32)), e.ci(4));
  Value cwIdx = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), cw);
  Value rowBase = e.add(e.mul(cwIdx, e.ci(64)),
                        e.add(e.mul(warpInWg, e.ci(16)),
                              arith::DivUIOp::create(b, loc, lane, e.ci(4))));
  Value colBase = e.mul(arith::RemUIOp::create(b, loc, lane, e.ci(4)), e.ci(2));
  Value rowC = m.copyOut.getDstOffsets()[0],
        colC = m.copyOut.getDstOffsets()[1];
  Value Mo = memref::DimOp::create(b, loc, m.C, 0);
  Value No = memref::DimOp::create(b, loc, m.C, 1);
  Type outElem = cast<MemRefType>(m.C.getType()).getElementType();
  Value cPtr =
      e.toI64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, m.C));
  Value nEven = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(b, loc, No, e.ci(2)), e.ci(0));
  SmallVector<Value> vals(64);
  DenseMap<std::pair<Value, int64_t>, Value> fragCache;
  for (int64_t r = 0; r < 64; ++r) {
    Value v = fin[r];
    Value i = e.add(rowBase, e.ci(8 * ((r / 2) % 2)));
    Value j = e.add(colBase, e.ci(8 * (r / 4) + (r % 2)));
    vals[r] = cloneEpilogue(b, e, m, v, i, j, (r / 2) % 2, (r / 4) * 2 + r % 2,
                            fragCache);
  }
  for (int64_t r = 0; r < 64; r += 2) {
    Value gi = e.add(rowC, e.add(rowBase, e.ci(8 * ((r / 2) % 2))));
    Value gj = e.add(colC, e.add(colBase, e.ci(8 * (r / 4))));
    Value rowIn = e.ult(gi, Mo);
    auto storeOne = [&](Value val, Value col) {
      auto ifOp =
          scf::IfOp::create(b, loc, e.andi(rowIn, e.ult(col, No)), false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value o = val;
      if (outElem != f32)
        o = arith::TruncFOp::create(b, loc, outElem, val);
      memref::StoreOp::create(b, loc, o, m.C, ValueRange{gi, col});
    };
    if (outElem == f32) {
      storeOne(vals[r], gj);
      storeOne(vals[r + 1], e.add(gj, e.ci(1)));
      continue;
    }
    // Two adjacent 16-bit results as one 4-byte store where both are inside
    // and the address is 4-byte aligned (N even; gj is even).
    Value pair = e.andi(e.andi(rowIn, e.ult(e.add(gj, e.ci(1)), No)), nEven);
    auto ifOp = scf::IfOp::create(b, loc, pair, true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value w[2];
    for (int h = 0; h < 2; ++h) {
      Value t = arith::TruncFOp::create(b, loc, outElem, vals[r + h]);
      Value bits = arith::BitcastOp::create(b, loc, b.getI16Type(), t);
      w[h] = arith::ExtUIOp::create(b, loc, i32, bits);
    }
    Value packed = arith::OrIOp::create(
        b, loc, w[0], arith::ShLIOp::create(b, loc, w[1], e.c32(16)));
    Value off = e.toI64(e.mul(e.add(e.mul(gi, No), gj), e.ci(2)));
    e.asmOp("st.global.b32 [$0], $1;", "l,r", {e.add(cPtr, off), packed});
    b.setInsertionPointToStart(ifOp.elseBlock());
    storeOne(vals[r], gj);
    storeOne(vals[r + 1], e.add(gj, e.ci(1)));
  }

  eraseMatched(m);
  fn->setAttr("tessera.fast_path", b.getStringAttr("wgmma"));
  (void)i32;
  out.sharedBytes = smemBytes;
  out.threads = 384;
  out.bf16 = m.bf16;
  out.fp8 = fp8;
  out.aSlot = aSlot;
  out.bSlot = bSlot;
  out.boxA[0] = BK;
  out.boxA[1] = 128;
  if (fp8) {
    out.boxB[0] = BK;
    out.boxB[1] = 128;
  } else {
    out.boxB[0] = 64;
    out.boxB[1] = BK;
  }
  return true;
}
