//===- Pipeline.cpp - tessera-pipeline-loops: software pipelining ---------===//
//
// A tile.pipelined loop with S stages becomes an scf.for over S-buffered
// shared tiles (a leading stage dim, tile.stage_view per iteration):
//   prologue:  for s in 0..S-2: if (lb + s*step < ub) async_copy -> slot s;
//              commit_group
//   loop:      wait_group pending = S-2 stage(i % S, (i / S) % 2)
//                                              (iteration i's data landed)
//              compute on slot i % S
//              if (i + (S-1)*step < ub) async_copy -> slot (i + S-1) % S
//              commit_group
//   epilogue:  wait_group pending = 0
// Only global->shared copies at the top level of the body whose shared tile
// is used only inside the loop, and whose offsets are pure functions of the
// induction variable and loop-invariant values, are pipelined. S is lowered
// to 1 when the target has no asynchronous copy (`async_copy = "none"`) and
// to what fits in the target's shared memory beside the scratch that
// distribution stages reductions and conversions through
// (stagingScratchBytes); S = 1 gives a plain scf.for.
// The copies, commits and waits of the k-th pipelined loop of a kernel carry
// `tile.pipeline = k`, and the loop's wait names the slot and the phase of
// its stage, so that distribution may give the loop per-stage transaction
// barriers instead of group counts (TargetHooks::canBulkCopy).
//
// Paired blocks (Clusters.cpp): on a target with multicast copies
// (`cluster_multicast = 2`) the pass pairs the blocks of a kernel whose one
// pipelined loop has a stage to spare (min_pipeline_stages deepened it past
// what the program asked for), unless the program says `tile.cluster = 1`;
// `tile.cluster = 2` pairs them regardless (on a target with clusters; others
// ignore it). A refill then also writes into
// the partner block, which must have released the stage first, so the copies
// run D = S-2 iterations ahead instead of S-1 (with S >= 3): a refill at
// iteration i overwrites the stage read at i - 2, which the partner released
// an iteration earlier, and its release is not waited for on the critical
// path. (Measured on the H100: pairing where that costs the loop a stage of
// distance lost 6-50%; see docs/benchmarks.md.)
//
//===----------------------------------------------------------------------===//

#include "MmaOverlap.h"
#include "PassCommon.h"
#include "tessera/Passes/Distribute.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"

#include <cstdlib>
#include <numeric>
#include <string>

using namespace mlir;
using namespace tessera;
using namespace tessera::tile;

namespace tessera::passes {
namespace {

/// Ops of `body` that `v` depends on, in block order; false if one has side
/// effects or regions.
bool sliceOf(Value v, Block *body, llvm::SetVector<Operation *> &slice) {
  Operation *d = v.getDefiningOp();
  if (!d || d->getBlock() != body)
    return true;
  if (slice.contains(d))
    return true;
  if (!isMemoryEffectFree(d) || d->getNumRegions())
    return false;
  for (Value o : d->getOperands())
    if (!sliceOf(o, body, slice))
      return false;
  slice.insert(d);
  return true;
}

/// The number of the pipelined loop (within its kernel) that an async copy,
/// commit or wait belongs to.
constexpr llvm::StringLiteral kPipelineAttr = "tile.pipeline";

struct Candidate {
  CopyOp copy;
  AllocOp alloc;
  llvm::SetVector<Operation *> slice;
};

/// Copies of a global tensor at the top level of loop `loop`'s `body` into
/// a tile `dstOk` accepts, written only by that copy and used only inside
/// the loop, whose offsets are pure functions of the induction variable and
/// loop-invariant values (with those pure ops as the candidate's slice).
SmallVector<Candidate>
loopCopies(Operation *loop, Block *body,
           llvm::function_ref<bool(CopyOp, TileType)> dstOk) {
  SmallVector<Candidate> cands;
  for (Operation &op : body->without_terminator()) {
    auto c = dyn_cast<CopyOp>(&op);
    if (!c || !isa<GlobalTensorType>(c.getSrc().getType()))
      continue;
    auto dt = dyn_cast<TileType>(c.getDst().getType());
    auto alloc = c.getDst().getDefiningOp<AllocOp>();
    if (!dt || !alloc || !dstOk(c, dt))
      continue;
    bool local = llvm::all_of(c.getDst().getUses(), [&](OpOperand &u) {
      return loop->isProperAncestor(u.getOwner());
    });
    int writers = 0;
    for (OpOperand &u : c.getDst().getUses())
      if (auto cc = dyn_cast<CopyOp>(u.getOwner()))
        writers += cc.getDst() == c.getDst();
    Candidate cand{c, alloc, {}};
    bool pure = true;
    for (Value o : c.getSrcOffsets())
      pure &= sliceOf(o, body, cand.slice);
    if (local && writers == 1 && pure)
      cands.push_back(std::move(cand));
  }
  return cands;
}

/// The copies a pipelined loop multi-buffers: into shared tiles of rank 1
/// or 2, not transposed (loopCopies' `dstOk`).
bool pipelinedShared(CopyOp c, TileType dt) {
  return dt.isShared() && dt.getRank() <= 2 && !c.getTranspose();
}

/// The source offsets of candidate `c`'s copy at iteration `at` of the loop
/// with induction variable `iv`: its slice cloned at `ob` with `at` for `iv`.
SmallVector<Value> offsetsAt(OpBuilder &ob, Candidate &c, Value iv, Value at) {
  IRMapping map;
  map.map(iv, at);
  for (Operation *op : c.slice)
    ob.clone(*op, map);
  SmallVector<Value> offs;
  for (Value o : c.copy.getSrcOffsets())
    offs.push_back(map.lookupOrDefault(o));
  return offs;
}

/// TESSERA_PREFETCH_FRAGMENTS=1 (opt-in until measured): a small copy of a
/// global tensor into a fragment at the top level of a pipelined loop's
/// body (a block-scaled GEMM's scales: at most 8 words a thread), whose
/// offsets are pure functions of the induction variable, loads one
/// iteration ahead into a second fragment: the iteration takes the value
/// the previous one loaded (a copy between registers) and issues the next
/// load at once, so its latency hides behind a whole iteration instead of
/// the iteration's first gemm. Past the last iteration the load reads
/// outside the tensor, which copies mask, or values no iteration uses.
bool prefetchFragmentsEnabled() {
  const char *e = std::getenv("TESSERA_PREFETCH_FRAGMENTS");
  return e && std::string(e) == "1";
}

void prefetchFragmentCopies(scf::ForOp forOp) {
  Block *nb = forOp.getBody();
  auto kernel = forOp->getParentOfType<KernelOp>();
  int64_t threads = kernel ? kernel.getThreads() : 1;
  Value iv = forOp.getInductionVar();
  Location loc = forOp.getLoc();
  SmallVector<Candidate> cands =
      loopCopies(forOp, nb, [&](CopyOp c, TileType dt) {
        // A tensor the loop also writes could change between the early
        // load and the iteration that reads it: only tensors the loop
        // merely copies from.
        bool onlyRead = llvm::all_of(c.getSrc().getUses(), [&](OpOperand &u) {
          auto cc = dyn_cast<CopyOp>(u.getOwner());
          return !forOp->isAncestor(u.getOwner()) ||
                 (cc && cc.getSrc() == c.getSrc() && cc.getDst() != c.getSrc());
        });
        return onlyRead && dt.isFragment() && c.getDstOffsets().empty() &&
               !c.getTranspose() && tileBytes(dt) <= 8 * 4 * threads;
      });
  auto issue = [&](OpBuilder &ob, Candidate &c, Value at, Value into) {
    auto cp = CopyOp::create(ob, loc, c.copy.getSrc(), offsetsAt(ob, c, iv, at),
                             into, ValueRange{},
                             /*transpose=*/false);
    cp->setAttrs(c.copy->getAttrs());
    cp->setAttr("tile.prefetch", ob.getUnitAttr());
  };
  for (Candidate &c : cands) {
    OpBuilder ab(c.alloc);
    ab.setInsertionPointAfter(c.alloc);
    auto next = AllocOp::create(ab, c.alloc.getLoc(), c.alloc.getType());
    next->setAttrs(c.alloc->getAttrs());
    OpBuilder pb(forOp);
    issue(pb, c, forOp.getLowerBound(), next);
    OpBuilder lb(c.copy);
    CopyOp::create(lb, loc, next, ValueRange{}, c.copy.getDst(), ValueRange{},
                   /*transpose=*/false);
    Value ahead = arith::AddIOp::create(lb, loc, iv, forOp.getStep());
    issue(lb, c, ahead, next);
    c.copy.erase();
  }
  // Two copies of the body: each loads into the register the other reads
  // (one body would move the loaded value into the loop-carried register,
  // and that move waits for the load). TESSERA_PREFETCH_UNROLL=1 keeps one.
  const char *u = std::getenv("TESSERA_PREFETCH_UNROLL");
  if (!cands.empty() && !(u && std::string(u) == "1"))
    forOp->setAttr(kUnrollAttr, OpBuilder(forOp).getI64IntegerAttr(2));
}

/// Fragment copies through the stages (TESSERA_STAGE_FRAGMENTS=0: off): on
/// a target whose pipelines run on bulk copies (`async_copy = "tma"`), a
/// small copy of a global tensor into a rank-1 or rank-2 fragment at the
/// top level of a pipelined loop that also pipelines shared tiles (a
/// block-scaled GEMM's per-step scales: at most 8 words a thread, the
/// tensor's own element type, a fragment the loop reads) goes through a
/// shared tile that the loop pipelines like the others: the copy fills the
/// shared tile iterations ahead (a bulk copy, completing on the stage's
/// barrier), and a copy or parallel region reads it into the fragment where
/// the program read the tensor. The consumers then wait for no load from
/// global memory inside the loop. A box's rows start on 16-byte boundaries
/// of the tensor's rows: from an offset not provably on one, the shared
/// tile starts at the boundary below and the fragment reads at the
/// remainder. A box also lands 128-byte aligned: rows are padded
/// (`tile.row_pad`) to whole 16-byte pieces, so many that a stage is a
/// multiple of 128 bytes. docs/passes.md "Fragment copies through the
/// stages". Returns whether any copy was staged.
bool stageFragmentsEnabled() {
  const char *e = std::getenv("TESSERA_STAGE_FRAGMENTS");
  return !(e && std::string(e) == "0");
}

bool stageFragmentCopies(PipelinedOp p, const target::TargetDescription &tgt) {
  if (tgt.asyncCopy != target::AsyncCopyKind::Tma || !stageFragmentsEnabled() ||
      p.getNumStages() < 2)
    return false;
  Block *body = &p.getBodyBlock();
  // Only where the loop pipelines shared tiles anyway.
  if (loopCopies(p, body, pipelinedShared).empty())
    return false;
  auto kernel = p->getParentOfType<KernelOp>();
  int64_t threads = kernel ? kernel.getThreads() : 1;
  SmallVector<Candidate> cands =
      loopCopies(p, body, [&](CopyOp c, TileType dt) {
        auto gt = cast<GlobalTensorType>(c.getSrc().getType());
        Type elem = dt.getElementType();
        // The loop must not write the tensor it reads ahead of time.
        bool onlyRead = llvm::all_of(c.getSrc().getUses(), [&](OpOperand &u) {
          auto cc = dyn_cast<CopyOp>(u.getOwner());
          return !p->isAncestor(u.getOwner()) ||
                 (cc && cc.getSrc() == c.getSrc());
        });
        // A fragment nothing reads (its loads die in LLVM) is not worth a
        // copy that stays.
        bool read = llvm::any_of(c.getDst().getUsers(), [&](Operation *u) {
          return u != c.getOperation();
        });
        if (!onlyRead || !read || !dt.isFragment() ||
            !c.getDstOffsets().empty() || c.getTranspose() ||
            dt.getRank() > 2 || gt.getRank() < 2 ||
            gt.getElementType() != elem || !elem.isIntOrFloat() ||
            tileBytes(dt) > 8 * 4 * threads)
          return false;
        // Rows of whole 16-byte pieces (a bulk copy's box), or shorter rows
        // padded up to one; a box of at most 256 rows and 256 columns (the
        // pad's too) of a tensor of rank 2-5: otherwise the copy would take
        // the whole loop off bulk copies.
        int64_t eb = elementBytes(elem);
        int64_t rows = dt.getRank() == 2 ? dt.getShape()[0] : 1;
        int64_t rowBytes = dt.getShape().back() * eb;
        return (eb == 1 || eb == 2 || eb == 4 || eb == 8) && rows <= 256 &&
               gt.getRank() <= 5 && (rowBytes + 16 + 128) / eb <= 256 &&
               (rowBytes % 16 == 0 || (rowBytes < 16 && 16 % rowBytes == 0));
      });
  for (Candidate &c : cands) {
    TileType ft = c.alloc.getType();
    Location loc = c.copy.getLoc();
    int64_t eb = elementBytes(ft.getElementType());
    // A rank-1 fragment (the tensor's last dim) is staged as one row.
    bool rank1 = ft.getRank() == 1;
    int64_t rows = rank1 ? 1 : ft.getShape()[0], cols = ft.getShape().back();
    // A box's rows start on 16-byte boundaries of the tensor's rows (the
    // copy engine faults on others). Where the program's arithmetic does
    // not show that of the copy's column, the box starts at the boundary
    // below it, W = 16 bytes of elements wide, and spans the tile's
    // columns from there: the fragment reads its columns at the remainder.
    int64_t W = boxAlignElements(eb);
    Value col = c.copy.getSrcOffsets().back();
    bool aligned = provablyMultipleOf(col, W);
    int64_t width = aligned ? cols : llvm::alignTo(cols + W - 1, W);
    OpBuilder ab(c.alloc);
    ab.setInsertionPointAfter(c.alloc);
    auto staged = AllocOp::create(
        ab, c.alloc.getLoc(),
        TileType::get(ft.getContext(), {rows, width}, ft.getElementType(),
                      MemorySpace::Shared, LayoutAttr()));
    staged->setAttr(kStagedFragmentAttr, ab.getUnitAttr());
    // A box lands at a 128-byte aligned address: rows padded to whole
    // 16-byte pieces, and so many that a stage is a multiple of 128 bytes
    // (one row: 128 bytes; the pad's columns come from the tensor or are
    // zeros past its edge).
    int64_t pieces = llvm::alignTo(llvm::divideCeil(width * eb, 16),
                                   8 / std::gcd<int64_t>(rows, 8));
    if (pieces * 16 > width * eb)
      staged->setAttr("tile.row_pad",
                      ab.getI64IntegerAttr((pieces * 16 - width * eb) / eb));
    OpBuilder cb(c.copy);
    if (aligned && !rank1) {
      cb.setInsertionPointAfter(c.copy);
      CopyOp::create(cb, loc, staged, ValueRange{}, c.copy.getDst(),
                     ValueRange{}, /*transpose=*/false);
      c.copy.getDstMutable().assign(staged);
      continue;
    }
    Value rem;
    if (!aligned) {
      Value w = arith::ConstantIndexOp::create(cb, loc, W);
      rem = arith::RemUIOp::create(cb, loc, col, w);
      Value base = arith::MulIOp::create(
          cb, loc, arith::DivUIOp::create(cb, loc, col, w), w);
      c.copy.getSrcOffsetsMutable()
          .slice(c.copy.getSrcOffsets().size() - 1, 1)
          .assign(base);
    }
    c.copy.getDstMutable().assign(staged);
    // fragment[i, j] = staged[i, j + rem] (rank 1: fragment[j] =
    // staged[0, j + rem]).
    cb.setInsertionPointAfter(c.copy);
    SmallVector<int64_t> shape(ft.getShape());
    auto par = ParallelOp::create(cb, loc, cb.getDenseI64ArrayAttr(shape));
    Block *blk = new Block();
    par.getBody().push_back(blk);
    SmallVector<Value> ivs;
    for (size_t d = 0; d < shape.size(); ++d)
      ivs.push_back(blk->addArgument(cb.getIndexType(), loc));
    OpBuilder pb = OpBuilder::atBlockBegin(blk);
    Value j = ivs.back();
    if (rem)
      j = arith::AddIOp::create(pb, loc, j, rem);
    Value i = rank1 ? arith::ConstantIndexOp::create(pb, loc, 0).getResult()
                    : ivs.front();
    Value v =
        LoadOp::create(pb, loc, ft.getElementType(), staged, ValueRange{i, j});
    StoreOp::create(pb, loc, v, c.alloc.getResult(), ivs);
    YieldOp::create(pb, loc);
  }
  return !cands.empty();
}

/// Persistent blocks (tile.persistent): a block that walks several tiles
/// lets its copy warp fill the next tile's stages, and the next tile's early
/// tile (one the kernel copies from a global tensor before the loop:
/// attention's Q, which distribution then keeps in two copies the tiles
/// take turns in), while the consumers finish this one, so a tile's fixed
/// cost outside the loop (Q's arrival, the epilogue) overlaps work.
/// Measured on the H200 (2026-11-28, docs/benchmarks.md): the q128 flash
/// program at B4 H16 9% faster at S 1024, 16% causal, 3-12% at 2048,
/// within 2% at 4096-8192; the zoo's GQA within 1%; GEMMs, which have no
/// early tile, ran 8-11% slower persistent, so they stay one block a tile.
/// When: the target has `persistent_blocks`, the block is alone on its
/// multiprocessor, and the loop's stages (`shared` bytes with the rest of
/// the kernel's tiles), the early tiles' second copies, the epilogue's
/// staging (the largest fragment stored to a tensor after the loop) and
/// the barriers fit shared memory beside `scratch`. The kernel's loop
/// overlap (MmaOverlap.cpp) is then off: its third stage does not fit.
/// TESSERA_PERSISTENT=1: every kernel with a pipelined loop (where the
/// backend can walk tiles), =0: none.
bool persistentPays(KernelOp k, PipelinedOp p,
                    const target::TargetDescription &tgt, int64_t shared,
                    int64_t scratch, bool alone) {
  const char *e = std::getenv("TESSERA_PERSISTENT");
  if (k.getGrid().empty() || (e && std::string(e) == "0"))
    return false;
  if (e && std::string(e) == "1")
    return true;
  if (!tgt.persistentBlocks || !alone || p->getBlock() != &k.getBodyBlock())
    return false;
  int64_t loops = 0;
  k.walk([&](Operation *op) {
    loops += isa<PipelinedOp>(op) || op->hasAttr("tile.num_stages");
  });
  if (loops != 1)
    return false;
  int64_t early = 0, staging = 0;
  for (Operation &op : k.getBodyBlock()) {
    auto cp = dyn_cast<CopyOp>(op);
    if (!cp)
      continue;
    auto a = cp.getDst().getDefiningOp<AllocOp>();
    if (op.isBeforeInBlock(p) && isa<GlobalTensorType>(cp.getSrc().getType()) &&
        a && a.getType().isShared())
      early +=
          llvm::alignTo(sharedTileBytes(a.getType(), sharedRowPad(a)), 1024);
    auto g = dyn_cast<GlobalTensorType>(cp.getDst().getType());
    auto from = dyn_cast<TileType>(cp.getSrc().getType());
    if (p->isBeforeInBlock(&op) && g && from)
      staging = std::max<int64_t>(
          staging, from.getNumElements() * elementBytes(g.getElementType()));
  }
  // A loop that waits for its MMAs within each iteration (a gemm whose
  // accumulator a later op of the body reads: a block-scaled step) pays
  // for each tile's pipeline fill and epilogue with idle tensor cores that
  // the next tile's copies can fill (H200: the zoo's block-scaled fp8 GEMM
  // 2.6% faster at 8192, 4.1% at 4096; GEMMs whose MMAs run on across
  // iterations lose 6-8% on persistent blocks and stay one block a tile).
  bool waitsEachIteration = false;
  for (Operation &op : p.getBodyBlock().without_terminator()) {
    auto g = dyn_cast<GemmOp>(op);
    if (!g || !asyncAtom(g, tgt))
      continue;
    llvm::SmallPtrSet<Value, 1> acc{g.getC()};
    for (Operation *n = g->getNextNode(); n && !waitsEachIteration;
         n = n->getNextNode())
      waitsEachIteration = touches(n, acc);
  }
  constexpr int64_t kBarrierBytes = 1024;
  return (early > 0 || waitsEachIteration) &&
         tgt.sharedMemoryPerBlockOptin > 0 &&
         shared + kBarrierBytes + int64_t(llvm::alignTo(staging, 1024)) +
                 early + scratch <=
             tgt.sharedMemoryPerBlockOptin;
}

void pipelineLoop(PipelinedOp p, const target::TargetDescription &tgt,
                  int64_t kernelSharedBytes, int64_t scratch, int64_t id,
                  bool mayPair) {
  Block *body = &p.getBodyBlock();
  int64_t S = p.getNumStages();
  SmallVector<Candidate> cands = loopCopies(p, body, pipelinedShared);
  OpBuilder b(p);
  Location loc = p.getLoc();
  int64_t requested = S;
  if (tgt.asyncCopy == target::AsyncCopyKind::None)
    S = 1;
  // Register staging keeps one group in flight (its registers are fixed):
  // two stages at most.
  bool registers = tgt.asyncCopy == target::AsyncCopyKind::Registers;
  if (registers)
    S = std::min<int64_t>(S, 2);
  int64_t buffered = 0;
  for (auto &c : cands)
    buffered += sharedTileBytes(c.alloc.getType(), sharedRowPad(c.alloc));
  // The stages must fit beside the scratch distribution stages reductions
  // and layout conversions through (stagingScratchBytes): a stage is worth
  // less than a kernel that compiles. With one stage the scratch may still
  // go into a tile dead at those ops (tessera-plan-shared).
  while (S > 1 && kernelSharedBytes + (S - 1) * buffered + scratch >
                      tgt.sharedMemoryPerBlockOptin)
    --S;
  // A target that hides its memory latency only with deeper pipelines
  // (min_pipeline_stages) gets them where two blocks still fit per
  // multiprocessor.
  if (S > 1 && !registers && tgt.minPipelineStages > S) {
    int64_t deeper = kernelSharedBytes + (tgt.minPipelineStages - 1) * buffered;
    int64_t now = kernelSharedBytes + (S - 1) * buffered;
    // Blocks per multiprocessor as shared memory and (estimated) registers
    // allow: deepen only while at least two stay resident and shared memory
    // does not become the tighter limit.
    int64_t byRegs = blocksByRegisters(p->getParentOfType<KernelOp>(), tgt);
    int64_t smem = tgt.sharedMemoryPerBlockOptin;
    int64_t byShared = smem / std::max<int64_t>(1, deeper);
    if (byShared >= 2 && deeper + scratch <= smem &&
        (byShared >= std::min(byRegs, smem / std::max<int64_t>(1, now))))
      S = tgt.minPipelineStages;
  }
  if (cands.empty())
    S = 1;
  // Iterations the copies run ahead (see the file comment): pair the blocks
  // where a stage is to spare.
  auto kernelOp = p->getParentOfType<KernelOp>();
  // Paired blocks wait for each other; with one block per multiprocessor
  // nothing runs while a block waits for its partner (measured on the H100:
  // a 128x256 gemm with one resident block ran 1.35x slower paired).
  if (mayPair && kernelOp && S > requested && S >= 3 &&
      blocksByRegisters(kernelOp, tgt) >= 2 &&
      2 * (kernelSharedBytes + (S - 1) * buffered) <=
          tgt.sharedMemoryPerBlockOptin &&
      pairableBlocks(kernelOp))
    pairBlocks(kernelOp);
  auto cluster = kernelOp ? kernelOp->getAttrOfType<IntegerAttr>("tile.cluster")
                          : IntegerAttr();
  int64_t D = S - 1;
  if (cluster && cluster.getInt() == 2 && S >= 3)
    D = S - 2;
  // The last gemm beside the next iteration's work (MmaOverlap.cpp): its
  // stage is refilled only after it, so the copies need a third stage to
  // run an iteration ahead; two are deepened to three where that keeps as
  // many blocks per multiprocessor (by shared memory and registers).
  std::optional<MmaOverlapPlan> overlap;
  MmaOverlapMode overlapMode = mmaOverlapMode();
  bool alone =
      blocksByRegisters(kernelOp, tgt) <= 1 ||
      tgt.sharedMemoryPerBlockOptin /
              std::max<int64_t>(1, kernelSharedBytes + (S - 1) * buffered) <=
          1;
  if (kernelOp && S >= 2 && !cands.empty() &&
      persistentPays(kernelOp, p, tgt, kernelSharedBytes + (S - 1) * buffered,
                     scratch, alone))
    kernelOp->setAttr(kPersistentAttr, b.getUnitAttr());
  // TESSERA_MMA_OVERLAP=explain: a remark on each loop of two or more gemms.
  bool explain = mmaOverlapExplain() &&
                 llvm::count_if(body->without_terminator(), [](Operation &op) {
                   return isa<GemmOp>(op);
                 }) >= 2;
  std::string why;
  if (overlapMode == MmaOverlapMode::Off)
    why = "TESSERA_MMA_OVERLAP=0";
  else if (!(S >= 2 && D == S - 1 && !cands.empty()))
    why = "the loop pipelines no copies S - 1 stages ahead";
  else if (overlapMode == MmaOverlapMode::Alone && !alone)
    why = "more than one block fits per multiprocessor (their MMAs overlap "
          "each other's element-wise work; TESSERA_MMA_OVERLAP=1 forces it)";
  else {
    SmallVector<Operation *> copies;
    for (auto &c : cands)
      copies.push_back(c.copy);
    overlap = planMmaOverlap(p, copies, tgt, &why);
  }
  if (overlap && S == 2) {
    int64_t smem = tgt.sharedMemoryPerBlockOptin;
    int64_t now = kernelSharedBytes + buffered;
    int64_t deeper = kernelSharedBytes + 2 * buffered;
    int64_t byRegs = blocksByRegisters(kernelOp, tgt);
    if (deeper + scratch <= smem &&
        smem / deeper >= std::min(byRegs, smem / std::max<int64_t>(1, now))) {
      S = 3;
      D = 2;
    }
  }
  if (overlap && S < 3) {
    overlap.reset();
    why = "three stages do not fit beside the kernel's other shared tiles "
          "without fewer blocks per multiprocessor";
  }
  if (explain) {
    if (overlap)
      p.emitRemark("the last gemm runs beside the next iteration's work "
                   "(three stages)");
    else
      p.emitRemark("the last gemm stays in its iteration: ") << why;
  }

  auto forOp = scf::ForOp::create(b, loc, p.getLowerBound(), p.getUpperBound(),
                                  p.getStep());
  forOp->setAttr("tile.num_stages", b.getI64IntegerAttr(S));
  if (S != requested)
    forOp->setAttr("tile.requested_stages", b.getI64IntegerAttr(requested));
  Block *nb = forOp.getBody();
  nb->getOperations().splice(nb->begin(), body->getOperations(), body->begin(),
                             std::prev(body->end()));
  p.getInductionVar().replaceAllUsesWith(forOp.getInductionVar());
  if (S == 1) {
    p.erase();
    return;
  }
  if (prefetchFragmentsEnabled())
    prefetchFragmentCopies(forOp);

  // Multi-buffers replace the single shared tiles.
  SmallVector<AllocOp> buffers;
  for (auto &c : cands) {
    TileType t = c.alloc.getType();
    SmallVector<int64_t> shape{S};
    shape.append(t.getShape().begin(), t.getShape().end());
    OpBuilder ab(c.alloc);
    auto buf =
        AllocOp::create(ab, c.alloc.getLoc(),
                        TileType::get(t.getContext(), shape, t.getElementType(),
                                      MemorySpace::Shared, LayoutAttr()));
    buf->setAttrs(c.alloc->getAttrs());
    buffers.push_back(buf);
  }
  Value lb = p.getLowerBound(), ub = p.getUpperBound(), step = p.getStep();
  auto cst = [&](OpBuilder &ob, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ob, loc, v);
  };
  // Issues the copies of iteration `iv` into `slot` when iv < ub.
  auto issue = [&](OpBuilder &ob, Value iv, Value slot) {
    Value inRange =
        arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::ult, iv, ub);
    auto ifOp = scf::IfOp::create(ob, loc, inRange, /*withElse=*/false);
    OpBuilder ib = ifOp.getThenBodyBuilder();
    for (size_t i = 0; i < cands.size(); ++i) {
      SmallVector<Value> offs =
          offsetsAt(ib, cands[i], forOp.getInductionVar(), iv);
      TileType t = cands[i].alloc.getType();
      Value view = StageViewOp::create(ib, loc, t, buffers[i], slot);
      auto ac =
          AsyncCopyOp::create(ib, loc, cands[i].copy.getSrc(), offs, view);
      // Keep what layout inference recorded (thread layout, vector width).
      for (NamedAttribute a : cands[i].copy->getDiscardableAttrs())
        ac->setAttr(a.getName(), a.getValue());
      for (const char *n : {"layout", "vector_bytes"})
        if (Attribute a = cands[i].copy->getAttr(n))
          ac->setAttr(n, a);
      ac->setAttr(kPipelineAttr, ib.getI64IntegerAttr(id));
    }
    CommitGroupOp::create(ob, loc)->setAttr(kPipelineAttr,
                                            ob.getI64IntegerAttr(id));
  };
  // Prologue: the first D stages.
  b.setInsertionPoint(forOp);
  for (int64_t s = 0; s < D; ++s) {
    Value iv = s == 0 ? lb
                      : arith::AddIOp::create(
                            b, loc, lb,
                            arith::MulIOp::create(b, loc, step, cst(b, s)));
    issue(b, iv, cst(b, s));
  }
  // Steady state.
  OpBuilder fb = OpBuilder::atBlockBegin(nb);
  Value iv = forOp.getInductionVar();
  Value t = arith::DivUIOp::create(
      fb, loc, arith::SubIOp::create(fb, loc, iv, lb), step);
  Value slot = arith::RemUIOp::create(fb, loc, t, cst(fb, S));
  // The stage this iteration reads and the parity of its barrier's phase
  // (how often the slot was filled before, mod 2).
  Value phase = arith::RemUIOp::create(
      fb, loc, arith::DivUIOp::create(fb, loc, t, cst(fb, S)), cst(fb, 2));
  WaitGroupOp::create(fb, loc, D - 1, ValueRange{slot, phase})
      ->setAttr(kPipelineAttr, fb.getI64IntegerAttr(id));
  for (size_t i = 0; i < cands.size(); ++i) {
    Value view = StageViewOp::create(fb, loc, cands[i].alloc.getType(),
                                     buffers[i], slot);
    cands[i].alloc.getResult().replaceUsesWithIf(view, [&](OpOperand &u) {
      return u.getOwner() != cands[i].copy.getOperation();
    });
  }
  fb.setInsertionPoint(nb->getTerminator());
  Value next = arith::AddIOp::create(
      fb, loc, iv, arith::MulIOp::create(fb, loc, step, cst(fb, D)));
  Value nslot = arith::RemUIOp::create(
      fb, loc, arith::AddIOp::create(fb, loc, t, cst(fb, D)), cst(fb, S));
  issue(fb, next, nslot);
  // Epilogue: drain.
  b.setInsertionPointAfter(forOp);
  WaitGroupOp::create(b, loc, 0, ValueRange{})
      ->setAttr(kPipelineAttr, b.getI64IntegerAttr(id));
  for (auto &c : cands) {
    c.copy.erase();
    c.alloc.erase();
  }
  p.erase();
  if (overlap)
    rotateLastGemm(forOp, *overlap, t, S);
}

struct PipelinePass : TargetPass<PipelinePass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PipelinePass)
  PipelinePass() = default;
  PipelinePass(const PipelinePass &o) : TargetPass(o) {}
  StringRef getName() const override { return "TesseraPipelineLoops"; }
  StringRef getArgument() const override { return "tessera-pipeline-loops"; }
  StringRef getDescription() const override {
    return "Software-pipeline tile.pipelined loops into multi-buffered async "
           "copy groups";
  }
  void getDependentDialects(DialectRegistry &r) const override {
    r.insert<scf::SCFDialect, arith::ArithDialect>();
  }
  void runWithTarget(const target::TargetDescription &t) {
    for (KernelOp k : kernelsOf(getOperation())) {
      bool mayPair = false;
      if (failed(clusterRequest(k, t, mayPair)))
        return signalPassFailure();
      k.walk([&](PipelinedOp p) { stageFragmentCopies(p, t); });
      int64_t shared = 0;
      k.walk([&](AllocOp a) {
        if (a.getType().isShared())
          shared += sharedTileBytes(a.getType(), sharedRowPad(a));
      });
      int64_t scratch = reservedScratchBytes(k);
      SmallVector<PipelinedOp> loops;
      k.walk([&](PipelinedOp p) { loops.push_back(p); });
      int64_t id = 0;
      for (PipelinedOp p : loops)
        pipelineLoop(p, t, shared, scratch, id++, mayPair);
    }
  }

  /// Checks a program's `tile.cluster` and pairs the blocks it asks to;
  /// sets `mayPair` where the pass may decide itself.
  LogicalResult clusterRequest(KernelOp k, const target::TargetDescription &t,
                               bool &mayPair) {
    if (k->hasAttr("tile.cluster_rounded"))
      return success();
    auto a = k->getAttrOfType<IntegerAttr>("tile.cluster");
    if (a && a.getInt() != 1 && a.getInt() != 2)
      return k.emitOpError("tile.cluster must be 1 or 2, got ") << a.getInt();
    if (a && a.getInt() == 2) {
      // A request a target without clusters ignores: the program stays
      // portable, its blocks unpaired there.
      if (t.clusterMulticast < 2)
        return success();
      if (k.getGrid().size() < 2)
        return k.emitOpError("tile.cluster = 2 needs a grid of two or "
                             "three dimensions");
      pairBlocks(k);
      return success();
    }
    // TESSERA_CLUSTERS=0 keeps blocks unpaired (for A/B measurements).
    const char *env = std::getenv("TESSERA_CLUSTERS");
    mayPair =
        !a && t.clusterMulticast >= 2 && !(env && std::string(env) == "0");
    return success();
  }
};

} // namespace

std::unique_ptr<Pass> createPipelinePass(const std::string &target) {
  return makeTargetPass<PipelinePass>(target);
}
void registerPipelinePass() { PassRegistration<PipelinePass>(); }

} // namespace tessera::passes
