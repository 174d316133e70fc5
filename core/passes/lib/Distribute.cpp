//===- Distribute.cpp - every tile op to per-thread code ------------------===//
//
// Each tile op is lowered by itself from what the core passes recorded:
//  - a fragment is a private array of the thread's registers, register i
//    holding the element its layout maps (register i, lane, warp) to; every
//    access uses a compile-time register index, so LLVM keeps it in registers;
//  - a shared tile is a view of the kernel's dynamic shared memory at the
//    planned offset, its rank-2 elements placed by the recorded XOR swizzle;
//  - tile.parallel runs its body once per register of the fragment it is
//    laid out by (its lane/warp part is computed once per layout);
//  - tile.reduce combines in registers, then across the lanes (shuffles) and
//    the warps (shared memory) its layout spreads the reduced dim over;
//  - tile.gemm walks the atom instances of its accumulator layout and calls
//    the backend's emitMma, loading operands with loadMmaOperand (or element
//    by element from their layouts);
//  - copies move vectors as the layouts and `vector_bytes` say, masked at
//    tensor edges; async copies go through the backend's emitAsyncCopy.
// Shared memory written by one op and read by another is ordered by block
// barriers around the writing op.
//
//===----------------------------------------------------------------------===//

#include "tessera/Passes/Distribute.h"

#include "FragmentLiveness.h"
#include "LaneGather.h"
#include "MmaOverlap.h"
#include "PassCommon.h"
#include "TileLoweringUtils.h"
#include "UniformConditions.h"

#include "tessera/Passes/FmaLayout.h"
#include "tessera/layout/NamedLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include <cstdlib>
#include <map>
#include <string>

using namespace mlir;
using namespace tessera;
using namespace tessera::tile;
using namespace tessera::lowering;
using layout::LinearLayout;

void TargetHooks::emitBarrier(OpBuilder &b, Location loc) {
  gpu::BarrierOp::create(b, loc);
}

Value TargetHooks::emitShuffleXor(OpBuilder &b, Location loc, Value v, int mask,
                                  int warpSize) {
  Value m = arith::ConstantIntOp::create(b, loc, mask, 32);
  Value w = arith::ConstantIntOp::create(b, loc, warpSize, 32);
  return gpu::ShuffleOp::create(b, loc, v, m, w, gpu::ShuffleMode::XOR)
      .getShuffleResult();
}

namespace tessera::passes {
namespace {

struct PortableHooks final : TargetHooks {
  bool canEmitAtom(const target::MmaAtom &) const override { return false; }
  SmallVector<Value> emitMma(OpBuilder &, Location, const target::MmaAtom &,
                             ArrayRef<Value>, ArrayRef<Value>,
                             ArrayRef<Value> c) override {
    return SmallVector<Value>(c);
  }
};

/// TESSERA_MMA_ZERO_START=0: a `clear` gemm zeroes its accumulator
/// registers and its atoms accumulate onto them, even where the backend's
/// atoms can start from zero (TargetHooks::mmaStartsFromZero); for A/B.
bool mmaZeroStartEnabled() {
  const char *env = std::getenv("TESSERA_MMA_ZERO_START");
  return !env || std::string(env) != "0";
}

/// TESSERA_DEFER_STORE_WAIT=0: a persistent kernel's bulk stores wait for
/// their reads right after the store, as other kernels' do; for A/B.
bool deferStoreWaitsOff() {
  const char *env = std::getenv("TESSERA_DEFER_STORE_WAIT");
  return env && std::string(env) == "0";
}

int64_t product(ArrayRef<int64_t> s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

/// A shared tile (or a stage of one): a flat workgroup memref and the
/// element offset of the view.
struct SharedTile {
  Value mem;
  Value base;
  SmallVector<int64_t> shape;
  int64_t vec = 0, perPhase = 1, maxPhase = 1; // vec 0: not swizzled
  int64_t blockCols = 0;                       // 0: one column block
  int64_t rowPad = 0; // elements after each row (unswizzled tiles only)
  Type elem;
  /// Elements the tile (or stage) takes with its rows padded.
  int64_t storedElems() const {
    int64_t n = product(shape);
    if (rowPad > 0 && shape.size() >= 2)
      n = n / shape.back() * (shape.back() + rowPad);
    return n;
  }
};

struct FragTile {
  Value mem;
  LinearLayout layout;
  int64_t regs = 0;
  Type elem;
  /// The accumulator of gemms whose atom keeps an opaque register order
  /// (MmaAtom::cOpaque): which order the registers are in now. Uniform: all
  /// equal (just filled), so in both. Between ops the order is Opaque.
  const target::MmaAtom *opaqueAtom = nullptr;
  /// Which of the reorder regions it moves through (one per accumulator).
  int64_t reorderSlot = 0;
  enum class Order { Layout, Opaque, Uniform };
  std::shared_ptr<Order> order;
};

struct LocalTile {
  Value mem;
  SmallVector<int64_t> shape;
  Type elem;
};

using Coords = SmallVector<int64_t, 4>;

Coords regCoords(const LinearLayout &l, int64_t reg) {
  Coords c(l.getOutDims().size(), 0);
  if (!l.hasInDim(layout::kRegister))
    return c;
  int bits = l.getInDimSizeLog2(layout::kRegister);
  for (int i = 0; i < bits; ++i)
    if (reg >> i & 1) {
      const LinearLayout::Basis &bs = l.getBasis(layout::kRegister, i);
      for (size_t d = 0; d < c.size(); ++d)
        c[d] ^= bs[d];
    }
  return c;
}

/// Whether two layouts put the same element at the same lane and warp bits
/// once `b`'s dims are taken as `dims` of `a` (b's dim k is a's dims[k];
/// a negative dims[k]: b's dim k has size 1).
bool sameThreadPart(const LinearLayout &a, const LinearLayout &b,
                    ArrayRef<int> dims) {
  for (const std::string &n : {layout::kLane, layout::kWarp}) {
    int na = a.hasInDim(n) ? a.getInDimSizeLog2(n) : 0;
    int nb = b.hasInDim(n) ? b.getInDimSizeLog2(n) : 0;
    for (int i = 0; i < std::max(na, nb); ++i)
      for (size_t k = 0; k < dims.size(); ++k) {
        int32_t va = i < na && dims[k] >= 0 ? a.getBasis(n, i)[dims[k]] : 0;
        int32_t vb = i < nb ? b.getBasis(n, i)[k] : 0;
        if (va != vb)
          return false;
      }
  }
  return true;
}

class Distributor {
public:
  Distributor(Region &body, const target::TargetDescription &t, TargetHooks &h)
      : body(body), tgt(t), hooks(h), b(body.getContext()),
        eb(body.getContext()) {}

  LogicalResult run(DistributedKernel &out);

private:
  Region &body;
  const target::TargetDescription &tgt;
  TargetHooks &hooks;
  OpBuilder b;  // where the op being lowered was
  OpBuilder eb; // the entry block: thread ids, private arrays
  Location loc = UnknownLoc::get(body.getContext());
  Value tid, lane, warp, smemBytes;
  int64_t threads = 0, warpSize = 32, numWarps = 1;
  int64_t scratchBase = 0, scratchBytes = 0, fragmentWords = 0;
  llvm::DenseMap<Value, SharedTile> shared;
  llvm::DenseMap<Value, FragTile> frags;
  llvm::DenseMap<Value, LocalTile> locals;
  std::map<std::string, SmallVector<Value>> dynParts;
  std::map<std::string, std::map<Coords, int64_t>> regIndex;
  struct FragmentUse {
    Location where;
    std::string what;
    int64_t words;
  };
  /// The fragments live at each op of the kernel (FragmentLiveness, taken
  /// on the tile IR before lowering replaces it), in program order: the
  /// register budget holds at the peak, not for the sum of every fragment.
  struct LivePoint {
    Location where;
    int64_t words = 0;
    SmallVector<FragmentUse, 8> fragments;
  };
  std::vector<LivePoint> livePoints;
  /// The most fragment registers live at each op of the tile IR.
  llvm::DenseMap<Operation *, int64_t> liveWordsAt;
  /// Where the registers staging a multi-stage buffer's copies are live:
  /// the first and last point, from its first copy (the prologue's) to the
  /// end of the loop refilling it.
  llvm::DenseMap<Value, std::pair<int64_t, int64_t>> stagingRange;
  void measureLiveness(KernelOp kernel);
  /// The point with the most registers live, counting `staging(buffer)`
  /// registers for each multi-stage buffer where its staging is live:
  /// (point, registers); point -1 when there are none.
  std::pair<int64_t, int64_t>
  registerPeak(llvm::function_ref<int64_t(Value)> staging) const;
  Location kernelLoc = UnknownLoc::get(body.getContext());
  SmallVector<Operation *> deadTiles;
  /// Pipelined loops (by `tile.pipeline`) whose copies are whole-tile bulk
  /// copies completing on per-stage barriers: where their barriers are
  /// (bytes from the start of shared memory) and how many copies arrive on
  /// each per stage.
  struct BulkPipeline {
    int64_t barriers = 0, stages = 0, copiesPerStage = 0;
    /// The consumers' release barriers of a warp-specialized loop (bytes
    /// from the start of shared memory), or -1.
    int64_t empties = -1;
    /// Paired blocks with multicast copies: per stage, the barrier the
    /// partner block arrives on once it has finished reading the stage (a
    /// multicast refill writes into both blocks), or -1.
    int64_t peers = -1;
    /// Copies before the loop that the copy warp issues first (specialize:
    /// early bulk copies) complete on one barrier here, or -1; `early`
    /// of them arrive on it.
    int64_t prologue = -1, early = 0;
    /// Persistent blocks: the consumers' release of the early copies' tiles
    /// (one arrival per consumer warp each tile), which the copy warp waits
    /// for before it copies the next tile's; or -1.
    int64_t prologueEmpty = -1;
    /// Persistent blocks: how many copies of the early copies' tiles the
    /// tiles a block walks take turns in (earlyCopies), each with a full
    /// and a release barrier (tile k uses copy k % earlyCopies).
    int64_t earlyCopies = 1;
  };
  /// Persistent blocks: a second copy of an early bulk copy's tile (by its
  /// alloc; bytes from the start of shared memory, after everything else
  /// the kernel places), so that the copy warp fills the next tile's while
  /// the consumers read this one's (planEarlyCopies).
  llvm::DenseMap<Operation *, int64_t> earlyAlt;
  void planEarlyCopies(KernelOp kernel);
  /// The tile walks (persistent blocks) whose tiles take turns in the
  /// copies of these allocs: at the start of each tile, the allocs' base
  /// moves to the tile's copy (lowerBlock).
  llvm::DenseMap<Operation *, SmallVector<Value>> turnLoops;
  /// The copy warp's early copies of a tile that takes turns: the copy
  /// (0 or 1) they fill, a value where the copy is issued.
  llvm::DenseMap<Operation *, Value> earlySlot;
  /// The kernel's blocks are paired along y (tile.cluster = 2, see
  /// RasterOrder.cpp); `clusterRank` is the block's rank in its pair.
  bool paired = false;
  /// Some copies are multicast: the kernel launches in clusters of two.
  bool clustered = false;
  Value clusterRank;
  /// Bulk copies whose tile both blocks of a pair read (offsets independent
  /// of the y block index): each block copies half into both.
  llvm::DenseSet<Operation *> multicastCopies;
  /// Issues (scf.if) of a loop's refill whose partner release was emitted.
  llvm::DenseSet<Operation *> releasedIssues;
  int64_t planMulticast(KernelOp kernel, int64_t base);
  LogicalResult releasePartnerStage(AsyncCopyOp ac, const BulkPipeline &p);
  /// >0: the kernel is warp-specialized; its own threads (this many) are
  /// the consumers and block barriers are among them only.
  int64_t consumerThreads = 0;
  void specialize(KernelOp kernel);
  SmallVector<CopyOp> earlyBulkCopies(KernelOp kernel, scf::ForOp loop,
                                      ArrayRef<Operation *> prologue,
                                      const std::function<void(Value)> &need,
                                      bool &pure);
  /// Persistent blocks (TargetHooks::persistentBlocks / persistentTwin):
  /// loops over the program's blocks, each with the linear block index as
  /// its induction variable (run() derives the block ids from it).
  SmallVector<scf::ForOp> tileLoops;
  bool persistent = false;
  /// The kernel walks its tiles on persistent blocks where it gets a copy
  /// warp: the backend can (TargetHooks::persistentBlocks) and
  /// tessera-pipeline-loops chose it (tile.persistent).
  bool persistBlocks = false;
  /// The kernel gets a copy warp (decided before the shared-memory plan of
  /// its barriers): copyWarpPays.
  bool copyWarp = false;
  /// Early bulk copies and no drain barrier after a warp-specialized loop
  /// (TESSERA_EARLY_BULK=0 turns both off): earlyBulkCopies.
  bool earlyBulk = true;
  bool copyWarpPays(KernelOp kernel, int64_t sharedBytes);
  /// Turns of two consumer warpgroups (planTurns): whether this thread is
  /// in the first group; gemms marked `tile.turn` issue in turns.
  Value turnFirst;
  void planTurns(scf::ForOp loop);
  /// This thread's group waits for its turn (`wait`) or passes it on.
  void emitTurn(bool wait) {
    auto i = scf::IfOp::create(b, loc, turnFirst, /*withElse=*/true);
    // (Touches no tile: in-flight gemms need not finish before it.)
    i->setAttr("tile.turn_op", b.getUnitAttr());
    OpBuilder::InsertionGuard g(b);
    for (int64_t group : {0, 1}) {
      b.setInsertionPoint(group ? i.elseBlock()->getTerminator()
                                : i.thenBlock()->getTerminator());
      if (wait)
        hooks.emitTurnWait(b, loc, group, threads);
      else
        hooks.emitTurnPass(b, loc, 1 - group, threads);
    }
  }
  scf::ForOp beginTileLoop(KernelOp kernel, Location l, ValueRange inits);
  bool stagesExclusive(KernelOp kernel);
  bool bytesExclusive(KernelOp kernel, AllocOp a);
  void persistTwin(KernelOp kernel);
  void hoistRefills(KernelOp kernel);
  /// Gemms that accumulate across the iterations of a pipelined loop into
  /// a tile nothing else in the loop touches (decided on the tile IR, before
  /// lowering replaces the other users): their atoms may run on into the
  /// next iteration (TargetHooks::deferMmaWait).
  llvm::DenseSet<Operation *> deferrable;
  /// Gemms marked `tile.mma_async` (MmaOverlap.cpp) that were issued and
  /// committed (TargetHooks::commitMma) but not waited for, oldest first.
  /// Distribution waits (TargetHooks::waitMma) before the first op that
  /// touches a tile one of them reads or writes, before structured control
  /// flow, and at the end of the block that issued them.
  struct PendingMma {
    const target::MmaAtom *atom = nullptr;
    Value acc;
    /// Every tile it reads or writes, stage views as their buffers.
    SmallVector<Value, 3> tiles;
    bool readsShared = false;
  };
  SmallVector<PendingMma> pendingMma;
  /// Shared tiles (buffers) that waited-for asynchronous gemms of this
  /// warpgroup read, which other warpgroups may still be reading: a block
  /// barrier comes before anything writes them (awaitMma).
  llvm::SmallPtrSet<Value, 4> unsyncedSharedReads;
  /// The gemm of an scf.if that guards only it (MmaOverlap.cpp): its group
  /// is committed after the scf.if, so that both paths commit one.
  Operation *guardedGemm = nullptr;
  PendingMma pendingRecord(GemmOp g, const target::MmaAtom *atom);
  /// The tile.mma_async gemm that scf.if `op` alone guards, if its atom is
  /// asynchronous.
  GemmOp guardedAsyncGemm(Operation *op);
  /// Waits for what `op` (about to be lowered) needs of the pending gemms.
  void awaitMma(Operation *op);
  /// Waits for the oldest `count` pending gemms.
  void waitPendingMma(size_t count);
  bool deferredGemm(GemmOp g) {
    auto loop = dyn_cast<scf::ForOp>(g->getParentOp());
    return loop && loop->hasAttr("tile.num_stages") && !g.getClear() &&
           llvm::all_of(g.getC().getUsers(), [&](Operation *u) {
             return u == g.getOperation() || !loop->isAncestor(u);
           });
  }
  std::map<int64_t, BulkPipeline> bulkPipelines;
  bool usedBulkCopies = false;
  /// Accumulators of gemms with opaque-order atoms, and where in shared
  /// memory each warp moves one atom instance through to reorder them.
  llvm::DenseMap<Value, const target::MmaAtom *> opaqueAccumulators;
  /// Each accumulator has a reorder region of its own, so the registers of
  /// two accumulators never come from the same shared addresses: NVIDIA's
  /// Vulkan driver took loads of one address in two reorders (with the
  /// other accumulator's cooperative-matrix store and barriers between) for
  /// one value, and dropped the absf of the two accumulators' product.
  llvm::DenseMap<Value, int64_t> reorderSlots;
  int64_t reorderBase = 0, reorderBytesPerWarp = 0;
  bool reorderFailed = false;
  void reorder(FragTile &f, FragTile::Order to);
  void reorderUsedBy(Operation *op);
  void canonicalOpaqueOrder(Operation *scope);
  std::optional<BulkCopy> bulkCopyOf(AsyncCopyOp ac);
  /// A bulk copy of global tensor `src` at `offsets` into the whole shared
  /// tile of `alloc` (or of a stage of it: `rt`), if the backend can.
  std::optional<BulkCopy> bulkCopyInto(AllocOp alloc, TileType rt, Value src,
                                       ValueRange offsets);
  int64_t planBulkPipelines(KernelOp kernel, int64_t base);
  const BulkPipeline *bulkPipelineOf(Operation *op) {
    auto id = op->getAttrOfType<IntegerAttr>("tile.pipeline");
    if (!id)
      return nullptr;
    auto it = bulkPipelines.find(id.getInt());
    return it == bulkPipelines.end() ? nullptr : &it->second;
  }
  Value stageBarrier(const BulkPipeline &p, Value slot) {
    Value base =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, smemBytes);
    return add(add(base, c(p.barriers)),
               mul(slot, c(hooks.stageBarrierBytes())));
  }
  Value peerBarrier(const BulkPipeline &p, Value slot) {
    Value base =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, smemBytes);
    return add(add(base, c(p.peers)), mul(slot, c(hooks.stageBarrierBytes())));
  }
  Value emptyBarrier(const BulkPipeline &p, Value slot) {
    Value base =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, smemBytes);
    return add(add(base, c(p.empties)),
               mul(slot, c(hooks.stageBarrierBytes())));
  }
  Value prologueBarrier(const BulkPipeline &p, bool empty = false,
                        Value slot = Value()) {
    Value base =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, smemBytes);
    Value at = add(base, c(empty ? p.prologueEmpty : p.prologue));
    return slot ? add(at, mul(slot, c(hooks.stageBarrierBytes()))) : at;
  }
  LogicalResult lowerBulkCopy(AsyncCopyOp ac, const BulkPipeline &p);
  LogicalResult lowerEarlyBulkCopy(CopyOp cp);
  /// Issues bulk copy `bc` of `src` at `offsets` into `d`, expected (one
  /// arrival with its bytes) on the barrier `bar`; multicast to the pair.
  void issueBulkCopy(const BulkCopy &bc, Value src, ValueRange offsets,
                     const SharedTile &d, Value bar, bool multicast = false);
  /// Copies of a fragment to a global tensor that the backend stores whole
  /// (TargetHooks::canBulkStore): the threads write the fragment into a
  /// staging tile laid out as `copy` says, at byte `offset` of shared
  /// memory that no tile holds at the copy (tiles dead by then, e.g. a
  /// pipeline's stages after its loop; never beyond the plan's bytes), and
  /// one thread stores it. `reused`: shared memory is used after the copy,
  /// so the block waits until the store has read the staging tile.
  /// `afterBarrier`: the copy follows a tile.wait_group or another bulk
  /// store, whose barrier already orders every earlier read of the staging
  /// bytes before the copy's writes.
  struct BulkStore {
    BulkCopy copy;
    int64_t offset = 0;
    bool reused = false, afterBarrier = false;
    /// Planned for persistent blocks: the staging bytes share nothing with
    /// the stage buffers the copy warp refills during the epilogue.
    bool persistentSafe = false;
    /// The staging bytes are the late stores' own (placeLateStores): no
    /// tile ever uses them, so the wait for the store's reads moves to the
    /// next write of the bytes (the next tile's epilogue) and the kernel's
    /// end, off the tile's critical path.
    bool deferredWait = false;
    /// No bulk store on the target (a twin's code size before speed,
    /// TargetHooks::compactCopies): the block's threads store the staging
    /// tile to the tensor, a loop over checked 8-byte pieces instead of
    /// every register's checked store.
    bool byThreads = false;
  };
  /// A bulk store deferred its wait (BulkStore::deferredWait): the kernel
  /// ends with the storing thread's wait.
  bool deferredStoreWait = false;
  /// Bulk stores whose staging tile found no dead bytes in the plan of a
  /// kernel that will walk its tiles (persistent blocks): they share one
  /// region after the kernel's other shared bytes, if it fits
  /// (placeLateStores).
  SmallVector<Operation *> lateStores;
  void placeLateStores(KernelOp kernel);
  llvm::DenseMap<Operation *, BulkStore> bulkStores;
  void planBulkStores(KernelOp kernel, int64_t plannedBytes);
  /// Copies from a global tensor that a later top-level loop of the kernel
  /// repeats (planKeptLoads): their loads ask the target to keep the lines
  /// in its last-level cache (TargetHooks::loadGlobalKept).
  llvm::SmallPtrSet<Operation *, 4> keptCopies;
  void planKeptLoads(KernelOp kernel);
  /// The staging tile `s` at byte `at` (BulkStore::byThreads) stored to
  /// `mem` at `off` by the block's threads.
  void storeStagingByThreads(const SharedTile &s, int64_t at, Value mem,
                             ValueRange off);
  int64_t storeMatrixCount(const FragTile &f, const SharedTile &s);
  LogicalResult lowerBulkStore(Operation *op, const FragTile &f, Value tensor,
                               ValueRange off, const BulkStore &st);

  // --- small builders ---------------------------------------------------
  Value c(int64_t v) { return idx(b, loc, v); }
  /// `if (tid == 0) {}` at the insertion point; sets the insertion point
  /// into its body (callers keep an InsertionGuard to come back out).
  void firstThreadOnly() {
    auto ifOp = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, c(0)),
        /*withElse=*/false);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value xorI(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
  Value divC(Value x, int64_t y) {
    return y == 1 ? x : arith::DivUIOp::create(b, loc, x, c(y)).getResult();
  }
  Value remC(Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, c(y));
  }
  Value ult(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  void barrier() {
    if (consumerThreads)
      hooks.emitPartialBarrier(b, loc, consumerThreads);
    else
      hooks.emitBarrier(b, loc);
  }

  // --- tiles --------------------------------------------------------------
  LogicalResult lowerAlloc(AllocOp op);
  Value sharedOffset(const SharedTile &s, ValueRange idxs);
  Value sharedAddress(const SharedTile &s, Value offset);
  /// Stores `vals` at consecutive elements of `s` from `offset`: one vector
  /// store where the backend takes them (a piece of one row), else element
  /// stores.
  void storeSharedPiece(const SharedTile &s, Value offset,
                        ArrayRef<Value> vals);
  /// The row-major memref behind a global tensor (the caller unpacked the
  /// kernel's arguments into unrealized casts of memrefs).
  Value globalMemref(Value tensor) {
    auto cast = tensor.getDefiningOp<UnrealizedConversionCastOp>();
    if (!cast || cast->getNumOperands() != 1 ||
        !isa<MemRefType>(cast->getOperand(0).getType()))
      return {};
    return cast->getOperand(0);
  }
  SmallVector<Value> dynPart(const LinearLayout &l);
  SmallVector<Value> coordsOf(const LinearLayout &l, int64_t reg);
  std::optional<int64_t> regOf(const FragTile &f, const Coords &c);
  Value loadElem(Value tile, ValueRange idxs, Operation *at);
  /// The global indices of element `t` of a tile whose origin is at `off`
  /// (a rank-r tile covers the last r dims of the tensor).
  SmallVector<Value> globalIndex(ValueRange off, ArrayRef<Value> t) {
    SmallVector<Value> g(off.begin(), off.end());
    size_t rank = off.size(), r = t.size();
    for (size_t k = 0; k < r; ++k)
      g[rank - r + k] = add(off[rank - r + k], t[k]);
    return g;
  }
  /// Per dim but the innermost: whether global index `g` is inside `dims`
  /// (the innermost dim is checked per vector or element by the caller).
  SmallVector<Value> outerInside(ArrayRef<Value> g, ArrayRef<Value> dims) {
    SmallVector<Value> conds;
    for (size_t k = 0; k + 1 < g.size(); ++k)
      conds.push_back(ult(g[k], dims[k]));
    return conds;
  }
  /// The row-major offset of coordinates `co` in a tile of `shape`.
  Value rowMajor(ArrayRef<Value> co, ArrayRef<int64_t> shape) {
    Value f = c(0);
    int64_t stride = 1;
    for (int64_t d = int64_t(co.size()) - 1; d >= 0; --d) {
      f = add(f, mul(co[d], c(stride)));
      stride *= shape[d];
    }
    return f;
  }
  /// Whether every row of `mem` (dims `dims`) starts aligned to a vector of
  /// `vec` elements of `eb` bytes: the pitch a multiple of the vector and the
  /// base pointer aligned to it. Checked once per copy.
  Value rowsAligned(Value mem, ArrayRef<Value> dims, int64_t vec, int eb) {
    Value pitchOk = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          remC(dims.back(), vec), c(0));
    Value ptr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, mem);
    Value ptrOk = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        remC(ptr, vec * eb), c(0));
    return arith::AndIOp::create(b, loc, pitchOk, ptrOk);
  }
  /// The byte address of element `g` of the row-major tensor `mem` (dims
  /// `dims`, `eb` bytes an element); `ptr`: its base address, if the
  /// caller has it already.
  Value globalAddress(Value mem, ArrayRef<Value> dims, ArrayRef<Value> g,
                      int64_t eb, Value ptr = {}) {
    if (!ptr)
      ptr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, mem);
    Value lin = g[0];
    for (size_t k = 1; k < g.size(); ++k)
      lin = add(mul(lin, dims[k]), g[k]);
    return add(ptr, mul(lin, c(eb)));
  }
  /// Whether global indices `g` are inside a tensor of dims `dims`.
  Value inside(ArrayRef<Value> g, ArrayRef<Value> dims) {
    SmallVector<Value> conds;
    for (size_t k = 0; k < g.size(); ++k)
      conds.push_back(ult(g[k], dims[k]));
    return andAll(b, loc, conds);
  }
  /// The global indices of the element `i` past `g` along the innermost
  /// dim, and whether it is inside the tensor (`outer`: the conditions of
  /// the other dims, from outerInside).
  std::pair<SmallVector<Value>, Value> shifted(ArrayRef<Value> g,
                                               ArrayRef<Value> outer, int64_t i,
                                               ArrayRef<Value> dims) {
    SmallVector<Value> gi(g.begin(), g.end());
    gi.back() = add(g.back(), c(i));
    SmallVector<Value> cs(outer.begin(), outer.end());
    cs.push_back(ult(gi.back(), dims.back()));
    return {gi, andAll(b, loc, cs)};
  }
  /// mem[idxs] where `in` holds, else zero (tensor edges).
  Value maskedLoad(Value mem, ValueRange idxs, Value in) {
    Type elem = cast<MemRefType>(mem.getType()).getElementType();
    SmallVector<Value> i(idxs);
    auto ifOp = scf::IfOp::create(
        b, loc, in,
        [&](OpBuilder &tb, Location l) {
          scf::YieldOp::create(
              tb, l, ValueRange{memref::LoadOp::create(tb, l, mem, i)});
        },
        [&](OpBuilder &fb, Location l) {
          scf::YieldOp::create(fb, l, ValueRange{zeroOf(fb, l, elem)});
        });
    return ifOp.getResult(0);
  }
  LogicalResult storeElem(Value v, Value tile, ValueRange idxs, Operation *at);
  Value regLoad(const FragTile &f, int64_t r) {
    return memref::LoadOp::create(b, loc, f.mem, ValueRange{c(r)});
  }
  void regStore(const FragTile &f, int64_t r, Value v) {
    memref::StoreOp::create(b, loc, v, f.mem, ValueRange{c(r)});
  }
  /// Runs `fn` over every element index of `shape`, spread over the block's
  /// threads when `spread`, else every thread visits all. Returns the loop.
  scf::ForOp forEachElement(ArrayRef<int64_t> shape, bool spread,
                            function_ref<void(ValueRange)> fn);

  // --- ops ------------------------------------------------------------------
  LogicalResult lowerBlock(Block &blk);
  LogicalResult lowerOp(Operation *op);
  LogicalResult lowerFill(Value dst, Value value);
  LogicalResult lowerParallel(ParallelOp p);
  /// Mask versioning of a tile.parallel (UniformConditions.h): emits the
  /// region's copies by `emit` (given the conditions fixed to a constant)
  /// once per version, under a test per block of which one applies, the
  /// masked copies last. `copies`: how many copies of the body `emit`
  /// unrolls.
  LogicalResult emitMaskVersions(
      ParallelOp p, int64_t copies,
      function_ref<LogicalResult(ArrayRef<std::pair<Value, bool>>)> emit);
  /// The most ops the versions of one tile.parallel add (the body's ops
  /// times the copies it is unrolled into, per version).
  static constexpr int64_t kMaxAddedOps = 1024;
  LogicalResult lowerReduce(ReduceOp r);
  LogicalResult lowerCopy(Operation *op, Value src, ValueRange srcOff,
                          Value dst, ValueRange dstOff, bool transpose,
                          bool async);
  LogicalResult copyGlobalToShared(Operation *op, Value src, ValueRange off,
                                   const SharedTile &d, bool async);
  /// A copy from a global tensor through the target's loads that read zero
  /// outside it (TargetHooks::loadGlobal).
  struct GlobalLoads {
    GlobalTensorRef ref;
    /// The copy's offsets (its first element) and the tensor's row-major
    /// strides, in elements.
    SmallVector<Value> off, strides;
  };
  /// Emits the loads of a copy from global memref `mem` (dims `dims`) by
  /// `body`: with the target's loads where the target takes the copy
  /// (TargetHooks::beginGlobalLoads), else with a null argument (the core's
  /// loads, masked at the tensor's edges). The copy starts at `off` and
  /// covers `extents[k]` indices of tensor dim k from there.
  void withGlobalLoads(Value mem, ArrayRef<Value> dims, ValueRange off,
                       ArrayRef<int64_t> extents,
                       function_ref<void(const GlobalLoads *)> body);
  /// The extents per tensor dim of a copy of a rank-r tile of `shape` from
  /// a tensor of rank `rank` (the tile covers the last r dims).
  static SmallVector<int64_t> tileExtents(int64_t rank,
                                          ArrayRef<int64_t> shape) {
    SmallVector<int64_t> e(rank - int64_t(shape.size()), 1);
    e.append(shape.begin(), shape.end());
    return e;
  }
  /// Whether a copy of a rank-r tile of `shape` at `off` lies wholly inside
  /// the tensor of sizes `dims` (and `aligned`, when given, holds).
  Value tileInside(Value aligned, ValueRange off, ArrayRef<Value> dims,
                   ArrayRef<int64_t> shape);
  /// The copies of a tile wholly inside the tensor (the common case) take
  /// no per-piece checks: `body(false)` where `inside` holds, `body(true)`
  /// elsewhere; only `body(true)` for `compactable` copies under
  /// TargetHooks::compactCopies.
  void splitOnInside(Value inside, function_ref<void(bool checked)> body,
                     bool compactable = true);
  /// The element of global memref `mem` at indices `g`, zero where `valid`
  /// is false: through the target's loads where `gl` is given, else masked.
  Value loadGlobalElem(const GlobalLoads *gl, Value mem, ArrayRef<Value> g,
                       Value valid);
  /// The `n` elements of a row of the copy's tensor from indices `g` on, each
  /// zero where it lies outside the tensor (`outer`: whether `g` is inside
  /// in the other dims, from outerInside), through the target's loads, in
  /// one call with a validity bit per element.
  SmallVector<Value> loadGlobalRow(const GlobalLoads &gl, Value mem,
                                   ArrayRef<Value> g, ArrayRef<Value> outer,
                                   ArrayRef<Value> dims, int64_t n);
  /// The `n` elements of `mem` from indices `g` on (a piece of a row the
  /// caller knows is inside the tensor and aligned to its size) as a
  /// vector<n>: through the target's loads where `gl` is given.
  Value loadGlobalVector(const GlobalLoads *gl, Value mem, ArrayRef<Value> g,
                         int64_t n);
  /// The element index of global indices `g` counted from the copy's first
  /// element (GlobalLoads::off), as TargetHooks::loadGlobal takes it.
  Value indexInCopy(const GlobalLoads &gl, ArrayRef<Value> g) {
    Value lin;
    for (size_t k = 0; k < g.size(); ++k) {
      Value d = arith::SubIOp::create(b, loc, g[k], gl.off[k]);
      Value term = k + 1 == g.size() ? d : mul(d, gl.strides[k]);
      lin = lin ? add(lin, term) : term;
    }
    return lin;
  }
  /// Register staging (AsyncCopyKind::Registers): an async copy into a
  /// stage loads its vectors into private registers, kept per multi-stage
  /// buffer; the pipeline's next stage wait stores them into the stage it
  /// waits for. False when the copy does not qualify (then it is a plain
  /// copy into the stage, which two stages make safe as well).
  FailureOr<bool> stageInRegisters(Operation *op, Value src, ValueRange off,
                                   const SharedTile &d, int64_t vec);
  void storeStagedCopies(WaitGroupOp w);
  struct StagedCopy {
    /// private memref<perThread * vec x elem>, or memref<perThread x
    /// vector<vec x elem>> where the backend stores shared vectors
    /// (TargetHooks::storesSharedVectors): one value per piece.
    Value regs;
    bool vectors = false;
    /// Pieces per thread of the tile, and of them the first `perThread` are
    /// held in registers (the staging budget's share); the others go
    /// straight into the stage when the copy is issued.
    int64_t vec = 1, perThread = 0, pieces = 0;
    /// 32-bit registers per thread the staging takes, and the first copy.
    int64_t words = 0;
    LocationAttr where;
    SmallVector<int64_t> shape;
    Type elem;
  };
  llvm::MapVector<Value, StagedCopy> stagedCopies; ///< by stage buffer
  bool stagingAllowed = true;
  /// 32-bit registers per thread that register staging may still take
  /// (TargetHooks::stagingRegisterReserve; TESSERA_SPIRV_STAGE_BUDGET); -1:
  /// no limit beyond stagingAllowed's.
  int64_t stagingBudget = -1;
  /// The coordinates in a staged tile of this thread's piece `i` (pieces
  /// tid + i * threads of `vec` elements, row-major).
  SmallVector<Value> stagedPiece(ArrayRef<int64_t> shape, int64_t vec,
                                 int64_t i);
  llvm::DenseMap<int64_t, SmallVector<Value>> stagedByPipeline;
  LogicalResult copyFragmentGlobal(Operation *op, const FragTile &f,
                                   Value tensor, ValueRange off, bool toGlobal);
  LogicalResult copyTileToTile(Operation *op, Value src, Value dst,
                               bool transpose);
  LogicalResult lowerGemm(GemmOp g);
  /// A fragment gemm operand read in another layout than it is held in
  /// (LaneGather.h): the layout the atom reads, the plan, and the register
  /// of that layout at each of its register coordinates.
  struct OperandGather {
    const FragTile *held = nullptr;
    LinearLayout want;
    std::vector<GatherRegister> plan;
    std::map<Coords, int64_t> wantReg;
  };
  LogicalResult planOperandGather(GemmOp g, Value tile, StringRef attr,
                                  OperandGather &out);
  /// One register of the layout an atom reads, from the lanes holding it
  /// (`shuffled`: 32-bit words already exchanged, by word and lane mask).
  Value gatherRegister(const FragTile &held, const GatherRegister &r,
                       std::map<std::pair<int64_t, int32_t>, Value> &shuffled);
  LogicalResult lowerAtomic(AtomicOp a);
  /// Scratch after the tiles for `op` (stagingScratchBytes); the largest
  /// user is named when the kernel does not fit.
  int64_t reserveScratch(Operation *op) {
    int64_t bytes = stagingScratchBytes(op);
    if (bytes > scratchBytes) {
      scratchBytes = bytes;
      // (The op is lowered away before the budget is checked.)
      largestScratchAt = op->getLoc();
      largestScratchIsReduce = isa<ReduceOp>(op);
    }
    return scratchBase;
  }
  std::optional<Location> largestScratchAt;
  bool largestScratchIsReduce = false;
  /// The row-major coordinates in `shape` of flat element index `e`.
  SmallVector<Value> unflatten(Value e, ArrayRef<int64_t> shape) {
    int64_t r = shape.size();
    SmallVector<Value> t(r);
    for (int64_t k = r - 1; k >= 0; --k) {
      t[k] = k == 0 ? e : remC(e, shape[k]);
      if (k)
        e = divC(e, shape[k]);
    }
    return t;
  }
  Value scratchView(Type elem, int64_t count, int64_t at = -1) {
    auto ty =
        MemRefType::get({count}, elem, MemRefLayoutAttrInterface{},
                        gpu::AddressSpaceAttr::get(
                            b.getContext(), gpu::AddressSpace::Workgroup));
    return memref::ViewOp::create(b, loc, ty, smemBytes,
                                  c(at < 0 ? scratchBase : at), ValueRange{});
  }
};

//===----------------------------------------------------------------------===//
// Tiles
//===----------------------------------------------------------------------===//

LogicalResult Distributor::lowerAlloc(AllocOp op) {
  TileType t = op.getType();
  Type elem = t.getElementType();
  if (t.isShared()) {
    auto off = op->getAttrOfType<IntegerAttr>("offset");
    if (!off)
      return op.emitOpError("shared tile has no planned offset: run "
                            "tessera-plan-shared before distribution");
    SharedTile s;
    s.shape.assign(t.getShape().begin(), t.getShape().end());
    s.rowPad = sharedRowPad(op);
    // (A tile with a second copy, planEarlyCopies: the view reaches it.)
    int64_t viewElems = s.storedElems();
    if (auto alt = earlyAlt.find(op); alt != earlyAlt.end())
      viewElems += (alt->second - off.getInt()) /
                   std::max<int64_t>(1, elementBytes(elem));
    auto ty =
        MemRefType::get({viewElems}, elem, MemRefLayoutAttrInterface{},
                        gpu::AddressSpaceAttr::get(
                            b.getContext(), gpu::AddressSpace::Workgroup));
    s.mem = memref::ViewOp::create(eb, loc, ty, smemBytes,
                                   idx(eb, loc, off.getInt()), ValueRange{});
    s.base = idx(eb, loc, 0);
    s.elem = elem;
    if (auto sw = op->getAttrOfType<SwizzleAttr>("swizzle")) {
      s.vec = sw.getVec();
      s.perPhase = sw.getPerPhase();
      s.maxPhase = sw.getMaxPhase();
      s.blockCols = sw.getBlockCols();
    }
    shared[op.getResult()] = s;
    return success();
  }
  if (t.isFragment()) {
    auto la = t.getLayout();
    if (!la)
      return op.emitOpError("fragment has no layout: run "
                            "tessera-infer-layouts before distribution");
    FragTile f;
    f.layout = fromLayoutAttr(la, t.getShape());
    f.regs = f.layout.getInDimSize(layout::kRegister);
    f.elem = elem;
    f.mem = memref::AllocaOp::create(eb, loc, MemRefType::get({f.regs}, elem));
    if (auto it = opaqueAccumulators.find(op.getResult());
        it != opaqueAccumulators.end()) {
      f.opaqueAtom = it->second;
      f.reorderSlot = reorderSlots.lookup(op.getResult());
      f.order = std::make_shared<FragTile::Order>(FragTile::Order::Layout);
    }
    int64_t words =
        (f.regs * std::max<int64_t>(8, elem.getIntOrFloatBitWidth()) + 31) / 32;
    fragmentWords += words;
    frags[op.getResult()] = f;
    return success();
  }
  LocalTile l;
  l.shape.assign(t.getShape().begin(), t.getShape().end());
  l.elem = elem;
  l.mem =
      memref::AllocaOp::create(eb, loc, MemRefType::get(t.getShape(), elem));
  locals[op.getResult()] = l;
  return success();
}

Value Distributor::sharedOffset(const SharedTile &s, ValueRange idxs) {
  size_t rank = s.shape.size();
  if (s.vec > 0 && rank >= 2) {
    // The swizzle permutes the chunks of each row of the innermost 2-D tile
    // (of each column block, when the tile is stored in blocks).
    Value r = idxs[rank - 2], col = idxs[rank - 1];
    int64_t rows = s.shape[rank - 2], cols = s.shape[rank - 1];
    int64_t bc = s.blockCols > 0 && s.blockCols < cols ? s.blockCols : cols;
    Value inBlock = bc == cols ? col : remC(col, bc);
    Value chunk = divC(inBlock, s.vec);
    Value phase = remC(divC(r, s.perPhase), s.maxPhase);
    Value sw = add(mul(xorI(chunk, phase), c(s.vec)), remC(inBlock, s.vec));
    Value flat = add(mul(r, c(bc)), sw);
    if (bc != cols)
      flat = add(flat, mul(divC(col, bc), c(rows * bc)));
    int64_t stride = rows * cols;
    for (int64_t d = int64_t(rank) - 3; d >= 0; --d) {
      flat = add(flat, mul(idxs[d], c(stride)));
      stride *= s.shape[d];
    }
    return add(s.base, flat);
  }
  Value flat = c(0);
  int64_t stride = 1;
  for (int64_t d = int64_t(rank) - 1; d >= 0; --d) {
    flat = add(flat, stride == 1 ? idxs[d] : mul(idxs[d], c(stride)));
    stride *= s.shape[d];
    if (d == int64_t(rank) - 1)
      stride += s.rowPad;
  }
  return add(s.base, flat);
}

void Distributor::storeSharedPiece(const SharedTile &s, Value offset,
                                   ArrayRef<Value> vals) {
  if (vals.size() > 1 &&
      hooks.storesSharedVectors(s.elem, int64_t(vals.size()))) {
    auto vt = VectorType::get({int64_t(vals.size())}, s.elem);
    Value v = vector::FromElementsOp::create(b, loc, vt, vals);
    vector::StoreOp::create(b, loc, v, s.mem, ValueRange{offset});
    return;
  }
  for (auto [i, v] : llvm::enumerate(vals))
    memref::StoreOp::create(
        b, loc, v, s.mem, ValueRange{i ? add(offset, c(int64_t(i))) : offset});
}

Value Distributor::sharedAddress(const SharedTile &s, Value offset) {
  Value basePtr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, s.mem);
  int64_t eb = std::max<int64_t>(1, s.elem.getIntOrFloatBitWidth() / 8);
  return add(basePtr, mul(offset, c(eb)));
}

SmallVector<Value> Distributor::dynPart(const LinearLayout &l) {
  std::string key = l.toString();
  auto it = dynParts.find(key);
  if (it != dynParts.end())
    return it->second;
  SmallVector<Value> parts;
  size_t rank = l.getOutDims().size();
  for (size_t d = 0; d < rank; ++d) {
    Value v = idx(eb, loc, 0);
    for (const std::string &n : {layout::kLane, layout::kWarp}) {
      if (!l.hasInDim(n))
        continue;
      Value src = n == layout::kLane ? lane : warp;
      for (int i = 0; i < l.getInDimSizeLog2(n); ++i) {
        int32_t bv = l.getBasis(n, i)[d];
        if (!bv)
          continue;
        Value bit = arith::AndIOp::create(
            eb, loc, arith::ShRUIOp::create(eb, loc, src, idx(eb, loc, i)),
            idx(eb, loc, 1));
        v = arith::XOrIOp::create(
            eb, loc, v, arith::MulIOp::create(eb, loc, bit, idx(eb, loc, bv)));
      }
    }
    parts.push_back(v);
  }
  dynParts[key] = parts;
  return parts;
}

SmallVector<Value> Distributor::coordsOf(const LinearLayout &l, int64_t reg) {
  SmallVector<Value> dyn = dynPart(l);
  Coords rc = regCoords(l, reg);
  SmallVector<Value> out;
  for (size_t d = 0; d < dyn.size(); ++d)
    out.push_back(rc[d] ? xorI(dyn[d], c(rc[d])) : dyn[d]);
  return out;
}

std::optional<int64_t> Distributor::regOf(const FragTile &f, const Coords &c) {
  std::string key = f.layout.toString();
  auto &m = regIndex[key];
  if (m.empty())
    for (int64_t r = f.regs - 1; r >= 0; --r)
      m[regCoords(f.layout, r)] = r;
  auto it = m.find(c);
  if (it == m.end())
    return std::nullopt;
  return it->second;
}

Value Distributor::loadElem(Value tile, ValueRange idxs, Operation *at) {
  if (auto it = shared.find(tile); it != shared.end())
    return memref::LoadOp::create(b, loc, it->second.mem,
                                  ValueRange{sharedOffset(it->second, idxs)});
  if (auto it = locals.find(tile); it != locals.end())
    return memref::LoadOp::create(b, loc, it->second.mem, idxs);
  at->emitOpError("reads a fragment element outside a tile.parallel region "
                  "laid out by it");
  return {};
}

LogicalResult Distributor::storeElem(Value v, Value tile, ValueRange idxs,
                                     Operation *at) {
  if (auto it = shared.find(tile); it != shared.end()) {
    memref::StoreOp::create(b, loc, v, it->second.mem,
                            ValueRange{sharedOffset(it->second, idxs)});
    return success();
  }
  if (auto it = locals.find(tile); it != locals.end()) {
    memref::StoreOp::create(b, loc, v, it->second.mem, idxs);
    return success();
  }
  return at->emitOpError("writes a fragment element outside a tile.parallel "
                         "region laid out by it");
}

scf::ForOp Distributor::forEachElement(ArrayRef<int64_t> shape, bool spread,
                                       function_ref<void(ValueRange)> fn) {
  int64_t total = product(shape);
  SmallVector<int64_t> s(shape);
  // When the threads divide the elements, a loop of constant trip count
  // (which LLVM unrolls) over element tid + i * threads.
  bool even = spread && total % threads == 0;
  Value lb = spread && !even ? tid : c(0);
  Value ub = c(even ? total / threads : total);
  Value step = c(spread && !even ? threads : 1);
  auto loop = scf::ForOp::create(b, loc, lb, ub, step);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  Value rest = loop.getInductionVar();
  if (even)
    rest = add(tid, mul(rest, c(threads)));
  SmallVector<Value> ivs(s.size());
  for (int64_t d = int64_t(s.size()) - 1; d >= 0; --d) {
    if (d == 0) {
      ivs[d] = rest;
      break;
    }
    ivs[d] = remC(rest, s[d]);
    rest = divC(rest, s[d]);
  }
  fn(ivs);
  return loop;
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

LogicalResult Distributor::lowerFill(Value dst, Value value) {
  if (auto it = frags.find(dst); it != frags.end()) {
    for (int64_t r = 0; r < it->second.regs; ++r)
      regStore(it->second, r, value);
    return success();
  }
  auto t = cast<TileType>(dst.getType());
  bool spread = t.isShared();
  if (spread)
    barrier();
  forEachElement(t.getShape(), spread, [&](ValueRange ivs) {
    (void)storeElem(value, dst, ivs, nullptr);
  });
  if (spread)
    barrier();
  return success();
}

/// The region dims a tile access is indexed by (-1: not an induction var;
/// kUnitAccessDim: the constant 0 into a dim of size 1).
static SmallVector<int> accessDims(Block &body, Value tile,
                                   ValueRange indices) {
  return parallelAccessDims(body, indices,
                            cast<TileType>(tile.getType()).getShape());
}

LogicalResult Distributor::lowerParallel(ParallelOp p) {
  Block &pbody = p.getBodyBlock();
  ArrayRef<int64_t> rs = p.getShape();
  SmallVector<Operation *> accesses;
  bool writesShared = false, touchesLocal = false, touchesFrag = false;
  const FragTile *driver = nullptr;
  p.getBody().walk([&](Operation *op) {
    Value tile;
    if (auto l = dyn_cast<LoadOp>(op))
      tile = l.getTile();
    else if (auto s = dyn_cast<StoreOp>(op)) {
      tile = s.getTile();
      writesShared |= shared.count(tile) > 0;
    } else
      return;
    accesses.push_back(op);
    touchesLocal |= locals.count(tile) > 0;
    auto f = frags.find(tile);
    if (f == frags.end())
      return;
    touchesFrag = true;
    ValueRange ind = isa<LoadOp>(op) ? cast<LoadOp>(op).getIndices()
                                     : cast<StoreOp>(op).getIndices();
    SmallVector<int> dims = accessDims(pbody, tile, ind);
    bool identity = dims.size() == rs.size() &&
                    cast<TileType>(tile.getType()).getShape() == rs;
    for (size_t i = 0; i < dims.size() && identity; ++i)
      identity = dims[i] == int(i);
    if (identity && !driver)
      driver = &f->second;
  });
  if (touchesFrag && !driver)
    return p.emitOpError("touches fragments but none of them is indexed by "
                         "the region's induction variables in order with the "
                         "region's shape: no layout to distribute it by");
  if (writesShared)
    barrier();
  auto lowerAccesses = [&](IRMapping &map, const Coords *rc) -> LogicalResult {
    for (Operation *orig : accesses) {
      Operation *op = map.lookupOrNull(orig);
      if (!op)
        return orig->emitOpError("internal: access was not cloned");
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(op);
      bool isLoad = isa<LoadOp>(op);
      Value tile =
          isLoad ? cast<LoadOp>(op).getTile() : cast<StoreOp>(op).getTile();
      ValueRange ind = isLoad ? cast<LoadOp>(op).getIndices()
                              : cast<StoreOp>(op).getIndices();
      if (auto f = frags.find(tile); f != frags.end()) {
        ValueRange oind = isLoad ? cast<LoadOp>(orig).getIndices()
                                 : cast<StoreOp>(orig).getIndices();
        SmallVector<int> dims = accessDims(pbody, tile, oind);
        Coords want;
        for (int d : dims) {
          if (d == kUnitAccessDim && rc) {
            want.push_back(0);
            continue;
          }
          if (d < 0 || !rc)
            return orig->emitOpError(
                "indexes a fragment by something other than the region's "
                "induction variables");
          want.push_back((*rc)[d]);
        }
        if (!sameThreadPart(driver->layout, f->second.layout, dims))
          return orig->emitOpError(
              "internal: fragment layout does not match the region's layout "
              "(layout inference should have inserted a conversion)");
        auto r = regOf(f->second, want);
        if (!r)
          return orig->emitOpError("internal: no register holds the element");
        if (isLoad) {
          Value v = regLoad(f->second, *r);
          op->getResult(0).replaceAllUsesWith(v);
        } else {
          regStore(f->second, *r, cast<StoreOp>(op).getValue());
        }
      } else if (isLoad) {
        Value v = loadElem(tile, ind, orig);
        if (!v)
          return failure();
        op->getResult(0).replaceAllUsesWith(v);
      } else if (failed(storeElem(cast<StoreOp>(op).getValue(), tile, ind,
                                  orig))) {
        return failure();
      }
      op->erase();
    }
    return success();
  };
  // `fixed`: conditions of the body known to be constant at every index
  // (mask versioning), replaced in each copy.
  using Fixed = ArrayRef<std::pair<Value, bool>>;
  auto cloneBody = [&](ValueRange ivs, IRMapping &map, Fixed fixed) {
    // The constants go first: they replace values the copy uses.
    SmallVector<Value> values;
    for (auto [cond, value] : fixed)
      values.push_back(arith::ConstantIntOp::create(b, loc, value ? 1 : 0, 1));
    for (auto [arg, v] : llvm::zip(pbody.getArguments(), ivs))
      map.map(arg, v);
    for (Operation &op : pbody.without_terminator())
      b.clone(op, map);
    for (auto [f, v] : llvm::zip(fixed, values))
      if (Value copy = map.lookupOrNull(f.first))
        copy.replaceAllUsesWith(v);
  };

  bool spread = !touchesLocal;
  auto emitCopies = [&](Fixed fixed) -> LogicalResult {
    if (driver) {
      for (int64_t r = 0; r < driver->regs; ++r) {
        IRMapping map;
        SmallVector<Value> ivs = coordsOf(driver->layout, r);
        cloneBody(ivs, map, fixed);
        Coords rc = regCoords(driver->layout, r);
        if (failed(lowerAccesses(map, &rc)))
          return failure();
      }
      return success();
    }
    LogicalResult res = success();
    forEachElement(rs, spread, [&](ValueRange ivs) {
      IRMapping map;
      cloneBody(ivs, map, fixed);
      res = lowerAccesses(map, nullptr);
    });
    return res;
  };
  int64_t copies = driver   ? driver->regs
                   : spread ? (product(rs) + threads - 1) / threads
                            : product(rs);
  if (failed(emitMaskVersions(p, copies, emitCopies)))
    return failure();
  if (writesShared)
    barrier();
  return success();
}

namespace {
/// TESSERA_MASK_VERSION=0 turns mask versioning off, `=2` adds the version
/// where the one condition fails everywhere (A/B measurements).
std::string maskVersioningSetting() {
  const char *env = std::getenv("TESSERA_MASK_VERSION");
  return env ? env : "";
}
} // namespace

LogicalResult Distributor::emitMaskVersions(
    ParallelOp p, int64_t copies,
    function_ref<LogicalResult(ArrayRef<std::pair<Value, bool>>)> emit) {
  std::string setting = maskVersioningSetting();
  if (setting == "0")
    return emit({});
  Block &pbody = p.getBodyBlock();
  UniformConditions conds(pbody, p.getShape());
  ArrayRef<Value> roots = conds.roots();
  if (roots.empty())
    return emit({});
  // Each version is another copy of the unrolled body: `copies` clones of
  // its ops. Versions are added while the added code stays within
  // kMaxAddedOps, and only where the fragments live across the region leave
  // a quarter of the thread's registers free (the versions share their
  // live-ins, but a kernel at its budget gets no new code to schedule).
  int64_t bodyOps = 0;
  pbody.walk([&](Operation *op) {
    if (!isa<arith::ConstantOp>(op) && !op->hasTrait<OpTrait::IsTerminator>())
      ++bodyOps;
  });
  int64_t size = bodyOps * copies;
  int versions = 0;
  if (size <= kMaxAddedOps)
    versions =
        setting == "2" && roots.size() == 1 && 2 * size <= kMaxAddedOps ? 2 : 1;
  if (tgt.registersPerThread > 0 &&
      liveWordsAt.lookup(p) > tgt.registersPerThread * 3 / 4)
    versions = 0;
  if (versions == 0)
    return emit({});
  // Every condition holds at every index: the body without them.
  Value allHold;
  SmallVector<std::pair<Value, bool>> holds;
  for (Value r : roots) {
    Value t = conds.emit(b, loc, r).first;
    allHold = allHold ? arith::AndIOp::create(b, loc, allHold, t) : t;
    holds.push_back({r, true});
  }
  auto ifHold = scf::IfOp::create(b, loc, allHold, /*withElseRegion=*/true);
  ifHold->setAttr("tile.mask_version", b.getStringAttr("holds"));
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(ifHold.thenBlock()->getTerminator());
  if (failed(emit(holds)))
    return failure();
  b.setInsertionPoint(ifHold.elseBlock()->getTerminator());
  if (versions == 2) {
    // The one condition fails at every index.
    Value fails = conds.emit(b, loc, roots.front()).second;
    auto ifFail = scf::IfOp::create(b, loc, fails, /*withElseRegion=*/true);
    ifFail->setAttr("tile.mask_version", b.getStringAttr("fails"));
    b.setInsertionPoint(ifFail.thenBlock()->getTerminator());
    if (failed(emit({{roots.front(), false}})))
      return failure();
    b.setInsertionPoint(ifFail.elseBlock()->getTerminator());
  }
  return emit({});
}

LogicalResult Distributor::lowerReduce(ReduceOp r) {
  auto st = cast<TileType>(r.getSrc().getType());
  auto dt = cast<TileType>(r.getDst().getType());
  int64_t dim = r.getDim();
  ReduceKind kind = r.getKind();
  Type elem = st.getElementType();
  auto sf = frags.find(r.getSrc());
  auto df = frags.find(r.getDst());
  if (sf == frags.end()) {
    // Source in shared or local memory: each output element walks the dim.
    int64_t len = st.getShape()[dim];
    auto reduceAt = [&](ValueRange outIdx) {
      Value acc = reduceIdentity(b, loc, kind, elem);
      for (int64_t k = 0; k < len; ++k) {
        SmallVector<Value> si(outIdx);
        si.insert(si.begin() + dim, c(k));
        acc = combineReduce(b, loc, kind, acc, loadElem(r.getSrc(), si, r));
      }
      return acc;
    };
    if (df != frags.end()) {
      for (int64_t reg = 0; reg < df->second.regs; ++reg) {
        Value v = reduceAt(coordsOf(df->second.layout, reg));
        if (r.getAccumulate())
          v = combineReduce(b, loc, kind, regLoad(df->second, reg), v);
        regStore(df->second, reg, v);
      }
      return success();
    }
    bool spread = dt.isShared() && st.isShared();
    if (spread)
      barrier();
    forEachElement(dt.getShape(), spread, [&](ValueRange ivs) {
      Value v = reduceAt(ivs);
      if (r.getAccumulate())
        v = combineReduce(b, loc, kind, loadElem(r.getDst(), ivs, r), v);
      (void)storeElem(v, r.getDst(), ivs, r);
    });
    if (spread)
      barrier();
    return success();
  }
  if (df == frags.end())
    return r.emitOpError("reduces a fragment into a non-fragment tile; "
                         "reduce into a fragment and copy it");
  const FragTile &S = sf->second, &D = df->second;
  SmallVector<int> keep;
  for (int i = 0; i < int(st.getRank()); ++i)
    if (i != dim)
      keep.push_back(i);
  if (!sameThreadPart(S.layout, D.layout, keep))
    return r.emitOpError("internal: destination layout is not the slice of "
                         "the source layout");
  // 1. Registers.
  std::map<int64_t, Value> partial;
  for (int64_t reg = 0; reg < S.regs; ++reg) {
    Coords rc = regCoords(S.layout, reg), want;
    for (int k : keep)
      want.push_back(rc[k]);
    auto dr = regOf(D, want);
    if (!dr)
      return r.emitOpError("internal: no destination register for a row");
    Value v = regLoad(S, reg);
    auto it = partial.find(*dr);
    partial[*dr] = it == partial.end()
                       ? v
                       : combineReduce(b, loc, kind, it->second, v,
                                       arith::FastMathFlags::reassoc);
  }
  // 2. Lanes along the dim: a butterfly of shuffles.
  auto alongDim = [&](const std::string &n) {
    SmallVector<int> bits;
    if (!S.layout.hasInDim(n))
      return bits;
    for (int i = 0; i < S.layout.getInDimSizeLog2(n); ++i)
      if (S.layout.getBasis(n, i)[dim] != 0)
        bits.push_back(i);
    return bits;
  };
  unsigned width = elem.getIntOrFloatBitWidth();
  if (width != 32 &&
      (!alongDim(layout::kLane).empty() || !alongDim(layout::kWarp).empty()))
    return r.emitOpError("reduces ")
           << elem << " across threads; only 32-bit elements can be exchanged";
  for (int bit : alongDim(layout::kLane))
    for (auto &[dr, v] : partial)
      v = combineReduce(
          b, loc, kind, v,
          hooks.emitShuffleXor(b, loc, v, 1 << bit, int(warpSize)),
          arith::FastMathFlags::reassoc);
  // 3. Warps along the dim: through shared memory, combined in warp order so
  //    every copy of an element gets the same value.
  SmallVector<int> wbits = alongDim(layout::kWarp);
  if (!wbits.empty()) {
    int64_t groups = int64_t(1) << wbits.size();
    int64_t elems = product(dt.getShape());
    int64_t at = scratchBase;
    if (auto off = r->getAttrOfType<IntegerAttr>("tile.scratch_offset"))
      at = off.getInt();
    else
      reserveScratch(r); // groups * elems * 4 bytes
    Value scratch = scratchView(elem, groups * elems, at);
    Value g = c(0);
    for (size_t k = 0; k < wbits.size(); ++k)
      g = add(g,
              mul(arith::AndIOp::create(
                      b, loc, arith::ShRUIOp::create(b, loc, warp, c(wbits[k])),
                      c(1)),
                  c(int64_t(1) << k)));
    auto flatOf = [&](int64_t dr) {
      return rowMajor(coordsOf(D.layout, dr), dt.getShape());
    };
    barrier();
    for (auto &[dr, v] : partial)
      memref::StoreOp::create(b, loc, v, scratch,
                              ValueRange{add(mul(g, c(elems)), flatOf(dr))});
    barrier();
    for (auto &[dr, v] : partial) {
      Value f = flatOf(dr);
      Value acc;
      for (int64_t k = 0; k < groups; ++k) {
        Value x = memref::LoadOp::create(b, loc, scratch,
                                         ValueRange{add(c(k * elems), f)});
        acc = k == 0 ? x : combineReduce(b, loc, kind, acc, x);
      }
      v = acc;
    }
    barrier();
  }
  // 4. The destination.
  for (int64_t reg = 0; reg < D.regs; ++reg) {
    auto it = partial.find(reg);
    Value v =
        it == partial.end() ? reduceIdentity(b, loc, kind, elem) : it->second;
    if (r.getAccumulate())
      v = combineReduce(b, loc, kind, regLoad(D, reg), v);
    regStore(D, reg, v);
  }
  return success();
}

void Distributor::withGlobalLoads(
    Value mem, ArrayRef<Value> dims, ValueRange off, ArrayRef<int64_t> extents,
    function_ref<void(const GlobalLoads *)> body) {
  Type elem = cast<MemRefType>(mem.getType()).getElementType();
  int64_t eb = std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
  // What is built here stays only where the target takes the copy: a
  // target without such loads gets exactly the code it got before the hook
  // existed.
  struct Collect : OpBuilder::Listener {
    SmallVector<Operation *> ops;
    void notifyOperationInserted(Operation *op,
                                 OpBuilder::InsertPoint) override {
      ops.push_back(op);
    }
  } made;
  OpBuilder::Listener *listener = b.getListener();
  b.setListener(&made);
  GlobalLoads gl;
  gl.off.assign(off.begin(), off.end());
  int64_t rank = int64_t(dims.size());
  gl.strides.assign(rank, Value());
  for (int64_t k = rank - 1; k >= 0; --k)
    gl.strides[k] = k + 1 == rank ? c(1) : mul(gl.strides[k + 1], dims[k + 1]);
  Value origin = c(0), reach = c(1);
  for (int64_t k = 0; k < rank; ++k) {
    origin = add(origin, mul(off[k], gl.strides[k]));
    if (extents[k] > 1)
      reach = add(reach, mul(c(extents[k] - 1), gl.strides[k]));
  }
  gl.ref.memref = mem;
  gl.ref.extentBytes = mul(mul(gl.strides[0], dims[0]), c(eb));
  gl.ref.originBytes = mul(origin, c(eb));
  gl.ref.reachBytes = mul(reach, c(eb));
  bool taken = hooks.beginGlobalLoads(b, loc, gl.ref);
  b.setListener(listener);
  if (!taken) {
    // Ops nested in what was built go with their parents.
    Block *here = b.getInsertionBlock();
    SmallVector<Operation *> top;
    for (Operation *o : made.ops)
      if (o->getBlock() == here)
        top.push_back(o);
    for (Operation *o : llvm::reverse(top))
      o->erase();
    body(nullptr);
    return;
  }
  body(&gl);
}

Value Distributor::loadGlobalElem(const GlobalLoads *gl, Value mem,
                                  ArrayRef<Value> g, Value valid) {
  if (gl) {
    Type elem = cast<MemRefType>(mem.getType()).getElementType();
    if (Value v = hooks.loadGlobal(b, loc, gl->ref, indexInCopy(*gl, g), elem,
                                   1, valid))
      return v;
  }
  return maskedLoad(mem, g, valid);
}

SmallVector<Value> Distributor::loadGlobalRow(const GlobalLoads &gl, Value mem,
                                              ArrayRef<Value> g,
                                              ArrayRef<Value> outer,
                                              ArrayRef<Value> dims, int64_t n) {
  SmallVector<SmallVector<Value>> at;
  SmallVector<Value> inside;
  for (int64_t i = 0; i < n; ++i) {
    auto [gi, in] = shifted(g, outer, i, dims);
    at.push_back(gi);
    inside.push_back(in);
  }
  Type elem = cast<MemRefType>(mem.getType()).getElementType();
  SmallVector<Value> vals;
  Value valid = n == 1
                    ? inside[0]
                    : vector::FromElementsOp::create(
                          b, loc, VectorType::get({n}, b.getI1Type()), inside)
                          .getResult();
  if (Value v = hooks.loadGlobal(b, loc, gl.ref, indexInCopy(gl, g), elem, n,
                                 valid)) {
    for (int64_t i = 0; i < n; ++i)
      vals.push_back(n == 1 ? v : vector::ExtractOp::create(b, loc, v, i));
    return vals;
  }
  for (int64_t i = 0; i < n; ++i)
    vals.push_back(maskedLoad(mem, at[i], inside[i]));
  return vals;
}

Value Distributor::loadGlobalVector(const GlobalLoads *gl, Value mem,
                                    ArrayRef<Value> g, int64_t n) {
  Type elem = cast<MemRefType>(mem.getType()).getElementType();
  auto vt = VectorType::get({n}, elem);
  if (gl) {
    Value whole = arith::ConstantIntOp::create(b, loc, 1, 1);
    if (Value v = hooks.loadGlobal(b, loc, gl->ref, indexInCopy(*gl, g), elem,
                                   n, whole))
      return n == 1 ? vector::BroadcastOp::create(b, loc, vt, v).getResult()
                    : v;
  }
  int64_t eb = std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
  return vector::LoadOp::create(b, loc, vt, mem, g, false,
                                llvm::MaybeAlign(n * eb));
}

LogicalResult Distributor::copyGlobalToShared(Operation *op, Value src,
                                              ValueRange off,
                                              const SharedTile &d, bool async) {
  Value mem = globalMemref(src);
  auto mt = cast<MemRefType>(mem.getType());
  int64_t rank = mt.getRank();
  Type gElem = mt.getElementType();
  ArrayRef<int64_t> shape = d.shape;
  int eb = std::max<int>(1, gElem.getIntOrFloatBitWidth() / 8);
  int64_t vec = 1;
  if (gElem == d.elem) {
    int64_t vb = 16;
    if (auto a = op->getAttrOfType<IntegerAttr>("vector_bytes"))
      vb = a.getInt();
    vec = std::max<int64_t>(
        1, std::min<int64_t>(vb, tgt.globalLoadVectorBytes) / eb);
    vec = std::min<int64_t>(vec, shape.back());
    if (d.vec > 0)
      vec = std::min<int64_t>(vec, d.vec);
    while (vec > 1 && (shape.back() % vec || !layout::isPowerOf2(vec)))
      vec /= 2;
  }
  if (async && tgt.asyncCopy == target::AsyncCopyKind::Registers &&
      stagingAllowed) {
    FailureOr<bool> staged = stageInRegisters(op, src, off, d, vec);
    if (failed(staged))
      return failure();
    if (*staged)
      return success();
  }
  SmallVector<Value> dims;
  for (int64_t k = 0; k < rank; ++k)
    dims.push_back(memref::DimOp::create(b, loc, mem, k));
  Value aligned;
  if (vec > 1)
    aligned = rowsAligned(mem, dims, vec, eb);
  int64_t nvec = product(shape) / vec;
  bool useAsync = false;
  if (!async)
    barrier();
  // The target's loads that read zero outside the tensor, where it has them
  // (withGlobalLoads): the edge elements then need no branch.
  const GlobalLoads *viaTarget = nullptr;
  auto copyLoop = [&](bool checked) {
    forEachElement({nvec}, true, [&](ValueRange iv) {
      Value e = mul(iv[0], c(vec));
      SmallVector<Value> t = unflatten(e, shape);
      SmallVector<Value> g = globalIndex(off, t);
      SmallVector<Value> conds = outerInside(g, dims);
      Value rowIn = conds.empty() ? Value() : andAll(b, loc, conds);
      Value dOff = sharedOffset(d, t);
      auto scalarCopy = [&](OpBuilder &sb) {
        OpBuilder::InsertionGuard gd(b);
        b.setInsertionPoint(sb.getInsertionBlock(), sb.getInsertionPoint());
        SmallVector<Value> vals;
        if (viaTarget) {
          for (Value v : loadGlobalRow(*viaTarget, mem, g, conds, dims, vec))
            vals.push_back(convertScalar(b, loc, v, d.elem));
          storeSharedPiece(d, dOff, vals);
          return;
        }
        for (int64_t i = 0; i < vec; ++i) {
          auto [gi, in] = shifted(g, conds, i, dims);
          Value loaded = maskedLoad(mem, gi, in);
          vals.push_back(convertScalar(b, loc, loaded, d.elem));
        }
        storeSharedPiece(d, dOff, vals);
      };
      if (vec == 1) {
        scalarCopy(b);
        return;
      }
      std::optional<OpBuilder::InsertionGuard> unchecked;
      if (!checked)
        unchecked.emplace(b);
      SmallVector<Value> cs(conds);
      cs.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                         add(g.back(), c(vec)), dims.back()));
      cs.push_back(aligned);
      Value full = andAll(b, loc, cs);
      scf::IfOp ifOp;
      if (checked)
        ifOp = scf::IfOp::create(b, loc, full, /*withElse=*/true);
      {
        OpBuilder::InsertionGuard gd(b);
        if (checked)
          b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
        bool done = false;
        // Register-staging targets have no asynchronous copy to ask for.
        if (async && tgt.asyncCopy != target::AsyncCopyKind::Registers) {
          Value gaddr = globalAddress(mem, dims, g, eb);
          Value trueV = arith::ConstantIntOp::create(b, loc, 1, 1);
          done = hooks.emitAsyncCopy(b, loc, sharedAddress(d, dOff), gaddr,
                                     int(vec * eb), trueV);
          useAsync |= done;
        }
        if (!done) {
          Value v = loadGlobalVector(viaTarget, mem, g, vec);
          // Element stores unless the backend takes vector stores on
          // workgroup memrefs (TargetHooks::storesSharedVectors).
          if (hooks.storesSharedVectors(d.elem, vec))
            vector::StoreOp::create(b, loc, v, d.mem, ValueRange{dOff});
          else
            for (int64_t i = 0; i < vec; ++i)
              memref::StoreOp::create(b, loc,
                                      vector::ExtractOp::create(b, loc, v, i),
                                      d.mem, ValueRange{add(dOff, c(i))});
        }
      }
      if (!checked)
        return;
      OpBuilder eb2(ifOp.elseBlock()->getTerminator());
      scalarCopy(eb2);
      (void)rowIn;
    });
  };
  auto copyAll = [&]() {
    if (vec == 1) {
      copyLoop(true);
      return;
    }
    // A tile wholly inside the tensor (the common case) skips the checks.
    splitOnInside(tileInside(aligned, off, dims, shape), copyLoop);
  };
  // Targets with asynchronous copies into shared memory issue those.
  if (async && tgt.asyncCopy != target::AsyncCopyKind::Registers)
    copyAll();
  else
    withGlobalLoads(mem, dims, off, tileExtents(rank, shape),
                    [&](const GlobalLoads *gl) {
                      viaTarget = gl;
                      copyAll();
                    });
  if (!async)
    barrier();
  return success();
}

FailureOr<bool> Distributor::stageInRegisters(Operation *op, Value src,
                                              ValueRange off,
                                              const SharedTile &d,
                                              int64_t vec) {
  auto ac = dyn_cast<AsyncCopyOp>(op);
  auto sv = ac ? ac.getDst().getDefiningOp<StageViewOp>() : StageViewOp();
  auto pipe = op->getAttrOfType<IntegerAttr>("tile.pipeline");
  int64_t nvec = product(d.shape) / vec;
  if (!sv || !pipe || nvec % threads)
    return false;
  int64_t pieces = nvec / threads;
  Value key = sv.getBuffer();
  auto found = stagedCopies.find(key);
  // Pieces of this thread held in registers: as many as the staging budget
  // leaves room for (buffers in the order of their first copies).
  int64_t pieceWords =
      (vec * std::max<int64_t>(8, d.elem.getIntOrFloatBitWidth()) + 31) / 32;
  int64_t per = pieces;
  if (found == stagedCopies.end() && stagingBudget >= 0)
    per = std::min(pieces, stagingBudget / pieceWords);
  else if (found != stagedCopies.end())
    per = found->second.perThread;
  if (found == stagedCopies.end()) {
    if (stagingBudget >= 0)
      stagingBudget -= per * pieceWords;
    StagedCopy sc;
    sc.vec = vec, sc.perThread = per, sc.pieces = pieces, sc.elem = d.elem;
    sc.shape.assign(d.shape.begin(), d.shape.end());
    sc.vectors = vec > 1 && hooks.storesSharedVectors(d.elem, vec);
    if (per > 0)
      sc.regs = memref::AllocaOp::create(
          eb, loc,
          sc.vectors ? MemRefType::get({per}, VectorType::get({vec}, d.elem))
                     : MemRefType::get({per * vec}, d.elem));
    // They hold one tile per thread share across the loop: registers.
    int64_t words =
        (per * vec * std::max<int64_t>(8, d.elem.getIntOrFloatBitWidth()) +
         31) /
        32;
    sc.words = words;
    sc.where = op->getLoc();
    fragmentWords += words;
    found = stagedCopies.insert({key, sc}).first;
    stagedByPipeline[pipe.getInt()].push_back(key);
  } else if (found->second.vec != vec || found->second.pieces != pieces) {
    // The stage wait stores the buffer's registers: a copy into the same
    // buffer that did not fill them would be overwritten by stale ones.
    return op->emitOpError("internal: copies into one multi-stage buffer "
                           "disagree on their register staging");
  }
  const StagedCopy &sc = found->second;
  Value mem = globalMemref(src);
  auto mt = cast<MemRefType>(mem.getType());
  int64_t rank = mt.getRank();
  Type gElem = mt.getElementType();
  int eb = std::max<int>(1, gElem.getIntOrFloatBitWidth() / 8);
  SmallVector<Value> dims;
  for (int64_t k = 0; k < rank; ++k)
    dims.push_back(memref::DimOp::create(b, loc, mem, k));
  Value aligned = vec > 1 ? rowsAligned(mem, dims, vec, eb) : Value();
  const GlobalLoads *viaTarget = nullptr; // as in copyGlobalToShared
  // Pieces beyond the registers' share are stored into the stage (the slot
  // the copy fills, read after the next stage wait) as soon as they arrive.
  bool directVectors = vec > 1 && hooks.storesSharedVectors(sc.elem, vec);
  auto storeDirect = [&](ArrayRef<int64_t> tshape, int64_t i,
                         ArrayRef<Value> vals, Value v) {
    Value dOff = sharedOffset(d, stagedPiece(tshape, vec, i));
    if (directVectors) {
      if (!v)
        v = vector::FromElementsOp::create(
            b, loc, VectorType::get({vec}, sc.elem), vals);
      vector::StoreOp::create(b, loc, v, d.mem, ValueRange{dOff});
      return;
    }
    SmallVector<Value> elems(vals);
    if (v)
      for (int64_t j = 0; j < vec; ++j)
        elems.push_back(vector::ExtractOp::create(b, loc, v, j));
    storeSharedPiece(d, dOff, elems);
  };
  auto loadPieces = [&](bool checked) {
    for (int64_t i = 0; i < sc.pieces; ++i) {
      bool direct = i >= sc.perThread;
      SmallVector<Value> t = stagedPiece(sc.shape, vec, i);
      SmallVector<Value> g = globalIndex(off, t);
      SmallVector<Value> conds = outerInside(g, dims);
      auto scalarLoads = [&]() {
        SmallVector<Value> vals;
        if (viaTarget)
          for (Value v : loadGlobalRow(*viaTarget, mem, g, conds, dims, vec))
            vals.push_back(convertScalar(b, loc, v, sc.elem));
        else
          for (int64_t j = 0; j < vec; ++j) {
            auto [gi, in] = shifted(g, conds, j, dims);
            vals.push_back(
                convertScalar(b, loc, maskedLoad(mem, gi, in), sc.elem));
          }
        if (direct) {
          storeDirect(sc.shape, i, vals, Value());
          return;
        }
        if (sc.vectors) {
          auto vt = VectorType::get({vec}, sc.elem);
          memref::StoreOp::create(
              b, loc, vector::FromElementsOp::create(b, loc, vt, vals), sc.regs,
              ValueRange{c(i)});
          return;
        }
        for (int64_t j = 0; j < vec; ++j)
          memref::StoreOp::create(b, loc, vals[j], sc.regs,
                                  ValueRange{c(i * vec + j)});
      };
      if (vec == 1) {
        scalarLoads();
        continue;
      }
      OpBuilder::InsertionGuard gd(b);
      scf::IfOp ifOp;
      if (checked) {
        SmallVector<Value> cs(conds);
        cs.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                           add(g.back(), c(vec)), dims.back()));
        cs.push_back(aligned);
        ifOp = scf::IfOp::create(b, loc, andAll(b, loc, cs), true);
        b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      }
      Value v = loadGlobalVector(viaTarget, mem, g, vec);
      if (direct)
        storeDirect(sc.shape, i, {}, v);
      else if (sc.vectors)
        memref::StoreOp::create(b, loc, v, sc.regs, ValueRange{c(i)});
      else
        for (int64_t j = 0; j < vec; ++j)
          memref::StoreOp::create(b, loc,
                                  vector::ExtractOp::create(b, loc, v, j),
                                  sc.regs, ValueRange{c(i * vec + j)});
      if (!checked)
        continue;
      b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
      scalarLoads();
    }
  };
  // As copyGlobalToShared: a tile wholly inside the tensor (the common case)
  // is tested once and loads its pieces unchecked, so the loop body carries
  // one branch instead of one per piece (TESSERA_SPIRV_STAGING_SPLIT=0: the
  // per-piece checks only, for A/B measurements).
  const char *splitEnv = std::getenv("TESSERA_SPIRV_STAGING_SPLIT");
  bool split = vec > 1 && !(splitEnv && std::string(splitEnv) == "0");
  auto loadAll = [&]() {
    if (!split) {
      loadPieces(true);
      return;
    }
    splitOnInside(tileInside(aligned, off, dims, sc.shape), loadPieces);
  };
  withGlobalLoads(mem, dims, off, tileExtents(rank, sc.shape),
                  [&](const GlobalLoads *gl) {
                    viaTarget = gl;
                    loadAll();
                  });
  return true;
}

Value Distributor::tileInside(Value aligned, ValueRange off,
                              ArrayRef<Value> dims, ArrayRef<int64_t> shape) {
  SmallVector<Value> in;
  if (aligned)
    in.push_back(aligned);
  SmallVector<int64_t> ext = tileExtents(int64_t(dims.size()), shape);
  for (auto [k, e] : llvm::enumerate(ext))
    in.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                       add(off[k], c(e)), dims[k]));
  return andAll(b, loc, in);
}

void Distributor::splitOnInside(Value inside,
                                function_ref<void(bool checked)> body,
                                bool compactable) {
  // Compact code (TargetHooks::compactCopies): the checked form serves every
  // tile.
  if (compactable && hooks.compactCopies()) {
    body(true);
    return;
  }
  auto split = scf::IfOp::create(b, loc, inside, /*withElse=*/true);
  OpBuilder::InsertionGuard gd(b);
  b.setInsertionPoint(split.thenBlock()->getTerminator());
  body(false);
  b.setInsertionPoint(split.elseBlock()->getTerminator());
  body(true);
}

SmallVector<Value> Distributor::stagedPiece(ArrayRef<int64_t> shape,
                                            int64_t vec, int64_t i) {
  // Piece i starts i * threads * vec elements after piece 0. Where that is
  // a whole number of the tile's rows (or of its last dims), piece i is
  // piece 0 moved by constant rows: one division of the thread id for all
  // pieces instead of one per piece, so the pieces' addresses differ by
  // constants (a driver folds them into its load and store offsets rather
  // than holding an address per piece in registers across the loop).
  int64_t stride = i * threads * vec;
  // By default every piece from its own flattened index: the pieces as
  // piece 0 moved by constant rows (TESSERA_STAGED_PIECE=1) ran the Vulkan
  // gemm at 4096 on the H100 at 0.922 ms against 0.783 (NVIDIA's compiler
  // kept the per-piece form's addresses better); kept for A/B.
  static const bool perPiece = [] {
    const char *v = std::getenv("TESSERA_STAGED_PIECE");
    return !(v && std::string(v) == "1");
  }();
  if (perPiece)
    return unflatten(mul(add(tid, c(i * threads)), c(vec)), shape);
  int64_t inner = 1;
  int64_t r = shape.size();
  for (int64_t k = r - 1; k > 0 && stride % (inner * shape[k]) == 0; --k)
    inner *= shape[k];
  SmallVector<Value> t = unflatten(mul(tid, c(vec)), shape);
  if (stride == 0)
    return t;
  if (inner == 1 || stride % inner)
    return unflatten(mul(add(tid, c(i * threads)), c(vec)), shape);
  // The dims below `inner` are unchanged; the rest advance by stride/inner
  // of their flattened index.
  int64_t k = r - 1, span = 1;
  while (span < inner)
    span *= shape[k--];
  SmallVector<int64_t> outer(shape.begin(), shape.begin() + k + 1);
  Value flat = t[0];
  for (int64_t j = 1; j <= k; ++j)
    flat = add(mul(flat, c(shape[j])), t[j]);
  SmallVector<Value> moved = unflatten(add(flat, c(stride / inner)), outer);
  for (int64_t j = 0; j <= k; ++j)
    t[j] = moved[j];
  return t;
}

void Distributor::storeStagedCopies(WaitGroupOp w) {
  auto pipe = w->getAttrOfType<IntegerAttr>("tile.pipeline");
  // The drain after the loop (no stage) has nothing in flight: the last
  // iterations issue no copies.
  if (!pipe || w.getStage().size() != 2)
    return;
  auto it = stagedByPipeline.find(pipe.getInt());
  if (it == stagedByPipeline.end())
    return;
  Value slot = w.getStage()[0];
  for (Value key : it->second) {
    const StagedCopy &sc = stagedCopies.find(key)->second;
    auto sh = shared.find(key);
    if (sh == shared.end())
      continue;
    SharedTile d = sh->second;
    d.shape.assign(sc.shape.begin(), sc.shape.end());
    d.base = add(d.base, mul(slot, c(d.storedElems())));
    for (int64_t i = 0; i < sc.perThread; ++i) {
      SmallVector<Value> t = stagedPiece(sc.shape, sc.vec, i);
      Value dOff = sharedOffset(d, t);
      if (sc.vectors) {
        Value v = memref::LoadOp::create(b, loc, sc.regs, ValueRange{c(i)});
        vector::StoreOp::create(b, loc, v, d.mem, ValueRange{dOff});
        continue;
      }
      SmallVector<Value> vals;
      for (int64_t j = 0; j < sc.vec; ++j)
        vals.push_back(memref::LoadOp::create(b, loc, sc.regs,
                                              ValueRange{c(i * sc.vec + j)}));
      storeSharedPiece(d, dOff, vals);
    }
  }
}

LogicalResult Distributor::copyFragmentGlobal(Operation *op, const FragTile &f,
                                              Value tensor, ValueRange off,
                                              bool toGlobal) {
  Value mem = globalMemref(tensor);
  auto mt = cast<MemRefType>(mem.getType());
  int64_t rank = mt.getRank();
  Type gElem = mt.getElementType();
  int64_t r = f.layout.getOutDims().size();
  SmallVector<Value> dims;
  for (int64_t k = 0; k < rank; ++k)
    dims.push_back(memref::DimOp::create(b, loc, mem, k));
  int eb = std::max<int>(1, gElem.getIntOrFloatBitWidth() / 8);
  int64_t vec = f.layout.getContiguousRegisters(layout::dimName(int(r - 1)));
  vec = std::min<int64_t>(vec,
                          std::max<int64_t>(1, tgt.globalLoadVectorBytes / eb));
  while (vec > 1 && f.regs % vec)
    vec /= 2;
  Value aligned;
  if (vec > 1)
    aligned = rowsAligned(mem, dims, vec, eb);
  const GlobalLoads *viaTarget = nullptr; // as in copyGlobalToShared
  // Per register group: checked (each vector against the tensor's edges and
  // alignment, elements one by one where a vector does not fit) or not.
  auto copyRegs = [&](bool checked) {
    for (int64_t base = 0; base < f.regs; base += vec) {
      SmallVector<Value> t = coordsOf(f.layout, base);
      SmallVector<Value> g = globalIndex(off, t);
      SmallVector<Value> conds;
      if (checked)
        conds = outerInside(g, dims);
      auto scalar = [&]() {
        if (viaTarget && !toGlobal) {
          SmallVector<Value> vals =
              loadGlobalRow(*viaTarget, mem, g, conds, dims, vec);
          for (int64_t i = 0; i < vec; ++i)
            regStore(f, base + i, convertScalar(b, loc, vals[i], f.elem));
          return;
        }
        for (int64_t i = 0; i < vec; ++i) {
          auto [gi, in] = shifted(g, conds, i, dims);
          if (toGlobal) {
            auto ifOp = scf::IfOp::create(b, loc, in, false);
            OpBuilder::InsertionGuard gd(b);
            b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
            Value v = convertScalar(b, loc, regLoad(f, base + i), gElem);
            memref::StoreOp::create(b, loc, v, mem, gi);
          } else {
            Value loaded = maskedLoad(mem, gi, in);
            regStore(f, base + i, convertScalar(b, loc, loaded, f.elem));
          }
        }
      };
      if (vec == 1 && checked) {
        scalar();
        continue;
      }
      scf::IfOp ifOp;
      if (checked) {
        SmallVector<Value> cs(conds);
        cs.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                           add(g.back(), c(vec)), dims.back()));
        cs.push_back(aligned);
        ifOp = scf::IfOp::create(b, loc, andAll(b, loc, cs), true);
      }
      {
        OpBuilder::InsertionGuard gd(b);
        if (checked)
          b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
        auto vt = VectorType::get({vec}, gElem);
        if (toGlobal) {
          SmallVector<Value> elems;
          for (int64_t i = 0; i < vec; ++i)
            elems.push_back(convertScalar(b, loc, regLoad(f, base + i), gElem));
          Value v = vector::FromElementsOp::create(b, loc, vt, elems);
          vector::StoreOp::create(b, loc, v, mem, g, false,
                                  llvm::MaybeAlign(vec * eb));
        } else {
          Value v;
          if (!viaTarget && keptCopies.contains(op))
            v = hooks.loadGlobalKept(b, loc, globalAddress(mem, dims, g, eb),
                                     vt);
          if (!v)
            v = loadGlobalVector(viaTarget, mem, g, vec);
          for (int64_t i = 0; i < vec; ++i)
            regStore(f, base + i,
                     convertScalar(b, loc,
                                   vector::ExtractOp::create(b, loc, v, i),
                                   f.elem));
        }
      }
      if (!checked)
        continue;
      OpBuilder::InsertionGuard gd(b);
      b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
      scalar();
    }
  };
  // A tile wholly inside the tensor, rows aligned to the vector (the common
  // case) takes no per-vector checks: no edge indices stay live across the
  // copy, which keeps epilogues beside large accumulators in registers.
  int64_t tileRank = int64_t(f.layout.getOutDims().size());
  SmallVector<int64_t> tileShape;
  for (int64_t k = 0; k < tileRank; ++k)
    tileShape.push_back(f.layout.getOutDimSize(layout::dimName(int(k))));
  Value inside = tileInside(vec > 1 ? aligned : Value(), off, dims, tileShape);
  // (Both versions under compactCopies too: the checked form's edge
  // indices beside a large accumulator made ptxas spill.)
  auto copyAll = [&]() {
    splitOnInside(inside, copyRegs, /*compactable=*/false);
  };
  if (toGlobal)
    copyAll();
  else
    withGlobalLoads(mem, dims, off, tileExtents(rank, tileShape),
                    [&](const GlobalLoads *gl) {
                      viaTarget = gl;
                      copyAll();
                    });
  (void)op;
  return success();
}

LogicalResult Distributor::copyTileToTile(Operation *op, Value src, Value dst,
                                          bool transpose) {
  auto sf = frags.find(src), df = frags.find(dst);
  auto st = cast<TileType>(src.getType()), dt = cast<TileType>(dst.getType());
  if (sf != frags.end() && df != frags.end()) {
    LinearLayout sl = sf->second.layout;
    if (transpose)
      sl = LinearLayout(sl.transposeOuts({"dim1", "dim0"}).getBases(),
                        df->second.layout.getOutDims());
    if (sl == df->second.layout) {
      const FragTile &S = sf->second, &D = df->second;
      // Narrowing f32 to 16-bit floats by pairs where the backend keeps
      // pairs packed (TargetHooks::storesFragmentPairs).
      if (S.elem.isF32() && D.regs % 2 == 0 &&
          D.elem.getIntOrFloatBitWidth() == 16 && isa<FloatType>(D.elem) &&
          hooks.storesFragmentPairs(D.elem)) {
        for (int64_t r = 0; r < D.regs; r += 2) {
          Value pair = vector::FromElementsOp::create(
              b, loc, VectorType::get({2}, S.elem),
              ValueRange{regLoad(S, r), regLoad(S, r + 1)});
          Value half = arith::TruncFOp::create(
              b, loc, VectorType::get({2}, D.elem), pair);
          vector::StoreOp::create(b, loc, half, D.mem, ValueRange{c(r)});
        }
        return success();
      }
      for (int64_t r = 0; r < D.regs; ++r)
        regStore(D, r, convertScalar(b, loc, regLoad(S, r), D.elem));
      return success();
    }
    // Another layout: through shared scratch, row-major in dst's shape.
    int64_t n = product(dt.getShape());
    // Staged in the destination's element type (converted on the way in),
    // in a tile dead at this point (tessera-plan-shared), else after the
    // tiles: stagingScratchBytes, the bytes the passes before planned with.
    int64_t at = scratchBase;
    if (auto off = op->getAttrOfType<IntegerAttr>("tile.scratch_offset"))
      at = off.getInt();
    else
      reserveScratch(op);
    Value scratch = scratchView(df->second.elem, n, at);
    auto flat = [&](ArrayRef<Value> co) { return rowMajor(co, dt.getShape()); };
    barrier();
    for (int64_t r = 0; r < sf->second.regs; ++r) {
      SmallVector<Value> co = coordsOf(sf->second.layout, r);
      if (transpose)
        std::swap(co[0], co[1]);
      memref::StoreOp::create(
          b, loc,
          convertScalar(b, loc, regLoad(sf->second, r), df->second.elem),
          scratch, ValueRange{flat(co)});
    }
    barrier();
    for (int64_t r = 0; r < df->second.regs; ++r)
      regStore(df->second, r,
               memref::LoadOp::create(
                   b, loc, scratch,
                   ValueRange{flat(coordsOf(df->second.layout, r))}));
    barrier();
    return success();
  }
  if (df != frags.end()) {
    // shared/local -> fragment: every register reads its element.
    for (int64_t r = 0; r < df->second.regs; ++r) {
      SmallVector<Value> co = coordsOf(df->second.layout, r);
      if (transpose)
        std::swap(co[0], co[1]);
      Value v = loadElem(src, co, op);
      if (!v)
        return failure();
      regStore(df->second, r, convertScalar(b, loc, v, df->second.elem));
    }
    return success();
  }
  bool spread = !st.isLocal() && !dt.isLocal();
  barrier();
  if (sf != frags.end()) {
    for (int64_t r = 0; r < sf->second.regs; ++r) {
      SmallVector<Value> co = coordsOf(sf->second.layout, r);
      if (transpose)
        std::swap(co[0], co[1]);
      if (failed(storeElem(convertScalar(b, loc, regLoad(sf->second, r),
                                         dt.getElementType()),
                           dst, co, op)))
        return failure();
    }
  } else {
    LogicalResult res = success();
    forEachElement(st.getShape(), spread, [&](ValueRange ivs) {
      SmallVector<Value> di(ivs);
      if (transpose)
        std::swap(di[0], di[1]);
      Value v = loadElem(src, ivs, op);
      if (!v || failed(storeElem(convertScalar(b, loc, v, dt.getElementType()),
                                 dst, di, op)))
        res = failure();
    });
    if (failed(res))
      return failure();
  }
  barrier();
  return success();
}

LogicalResult Distributor::lowerCopy(Operation *op, Value src,
                                     ValueRange srcOff, Value dst,
                                     ValueRange dstOff, bool transpose,
                                     bool async) {
  bool srcG = isa<GlobalTensorType>(src.getType());
  bool dstG = isa<GlobalTensorType>(dst.getType());
  if (!srcG && !dstG)
    return copyTileToTile(op, src, dst, transpose);
  Value tile = srcG ? dst : src;
  Value tensor = srcG ? src : dst;
  ValueRange off = srcG ? srcOff : dstOff;
  if (auto s = shared.find(tile); srcG && !transpose && s != shared.end())
    return copyGlobalToShared(op, src, off, s->second, async);
  if (auto f = frags.find(tile); !transpose && f != frags.end()) {
    // (A persistent kernel's copy warp refills the stages while the
    // consumers' epilogue runs: the staging bytes are not dead then.)
    if (auto st = bulkStores.find(op);
        dstG && st != bulkStores.end() &&
        (!persistent || st->second.persistentSafe))
      return lowerBulkStore(op, f->second, tensor, off, st->second);
    return copyFragmentGlobal(op, f->second, tensor, off, dstG);
  }
  // The general element-wise copy: shared tiles spread over the block,
  // fragments by register, local tiles whole in every thread.
  Value mem = globalMemref(tensor);
  auto mt = cast<MemRefType>(mem.getType());
  int64_t rank = mt.getRank();
  auto tt = cast<TileType>(tile.getType());
  SmallVector<Value> dims;
  for (int64_t k = 0; k < rank; ++k)
    dims.push_back(memref::DimOp::create(b, loc, mem, k));
  const GlobalLoads *viaTarget = nullptr; // as in copyGlobalToShared
  // The indices the copy covers per tensor dim (a transposed copy reads
  // the tile's dims the other way round).
  SmallVector<int64_t> extents = tileExtents(rank, tt.getShape());
  if (transpose)
    std::swap(extents[rank - 2], extents[rank - 1]);
  auto access = [&](ValueRange t) -> LogicalResult {
    SmallVector<Value> tt2(t);
    if (transpose)
      std::swap(tt2[0], tt2[1]);
    SmallVector<Value> g = globalIndex(off, tt2);
    Value in = inside(g, dims);
    if (srcG) {
      Value loaded = loadGlobalElem(viaTarget, mem, g, in);
      return storeElem(convertScalar(b, loc, loaded, tt.getElementType()), tile,
                       t, op);
    }
    auto ifOp = scf::IfOp::create(b, loc, in, false);
    OpBuilder::InsertionGuard gd(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    Value v = loadElem(tile, t, op);
    if (!v)
      return failure();
    memref::StoreOp::create(
        b, loc, convertScalar(b, loc, v, mt.getElementType()), mem, g);
    return success();
  };
  if (auto f = frags.find(tile); f != frags.end()) {
    // Transposed fragment copies: element by element through the registers.
    auto copyRegs = [&]() {
      for (int64_t reg = 0; reg < f->second.regs; ++reg) {
        SmallVector<Value> co = coordsOf(f->second.layout, reg);
        SmallVector<Value> t(co);
        if (transpose)
          std::swap(t[0], t[1]);
        SmallVector<Value> g = globalIndex(off, t);
        Value in = inside(g, dims);
        if (srcG) {
          Value loaded = loadGlobalElem(viaTarget, mem, g, in);
          regStore(f->second, reg,
                   convertScalar(b, loc, loaded, f->second.elem));
        } else {
          auto ifOp = scf::IfOp::create(b, loc, in, false);
          OpBuilder::InsertionGuard gd(b);
          b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
          memref::StoreOp::create(b, loc,
                                  convertScalar(b, loc, regLoad(f->second, reg),
                                                mt.getElementType()),
                                  mem, g);
        }
      }
    };
    if (srcG)
      withGlobalLoads(mem, dims, off, extents, [&](const GlobalLoads *gl) {
        viaTarget = gl;
        copyRegs();
      });
    else
      copyRegs();
    return success();
  }
  bool spread = !tt.isLocal();
  if (spread)
    barrier();
  LogicalResult res = success();
  auto copyAll = [&]() {
    forEachElement(tt.getShape(), spread, [&](ValueRange ivs) {
      if (failed(access(ivs)))
        res = failure();
    });
  };
  if (srcG)
    withGlobalLoads(mem, dims, off, extents, [&](const GlobalLoads *gl) {
      viaTarget = gl;
      copyAll();
    });
  else
    copyAll();
  if (spread && !async)
    barrier();
  return res;
}

LogicalResult Distributor::planOperandGather(GemmOp g, Value tile,
                                             StringRef attr,
                                             OperandGather &out) {
  auto la = g->getAttrOfType<LayoutAttr>(attr);
  if (!la)
    return success();
  auto f = frags.find(tile);
  if (f == frags.end())
    return g.emitOpError("has ") << attr << " but that operand is no fragment";
  out.held = &f->second;
  out.want = fromLayoutAttr(la, cast<TileType>(tile.getType()).getShape());
  std::optional<std::vector<GatherRegister>> plan =
      planLaneGather(out.held->layout, out.want);
  unsigned bits = out.held->elem.getIntOrFloatBitWidth();
  if (!plan || bits > 32 || 32 % bits || out.held->regs % (32 / bits))
    return g.emitOpError("cannot read its operand in ")
           << attr << " from the layout it is held in";
  out.plan = std::move(*plan);
  for (int64_t r = out.want.getInDimSize(layout::kRegister) - 1; r >= 0; --r)
    out.wantReg[regCoords(out.want, r)] = r;
  return success();
}

Value Distributor::gatherRegister(
    const FragTile &held, const GatherRegister &r,
    std::map<std::pair<int64_t, int32_t>, Value> &shuffled) {
  // Shuffles move 32 bits: narrower registers go in whole words.
  int64_t per = 32 / held.elem.getIntOrFloatBitWidth();
  auto wordType = VectorType::get({1}, b.getI32Type());
  auto elemsType = VectorType::get({per}, held.elem);
  auto valueOf = [&](const GatherChoice &ch) -> Value {
    if (!ch.laneXor)
      return regLoad(held, ch.reg);
    int64_t word = ch.reg / per;
    Value &w = shuffled[{word, ch.laneXor}];
    if (!w) {
      Value packed = regLoad(held, ch.reg);
      if (per > 1) {
        SmallVector<Value> elems;
        for (int64_t i = 0; i < per; ++i)
          elems.push_back(regLoad(held, word * per + i));
        packed = vector::ExtractOp::create(
            b, loc,
            vector::BitCastOp::create(
                b, loc, wordType,
                vector::FromElementsOp::create(b, loc, elemsType, elems)),
            0);
      }
      w = hooks.emitShuffleXor(b, loc, packed, ch.laneXor, int(warpSize));
    }
    if (per == 1)
      return w;
    Value asElems = vector::BitCastOp::create(
        b, loc, elemsType, vector::FromElementsOp::create(b, loc, wordType, w));
    return vector::ExtractOp::create(b, loc, asElems, ch.reg % per);
  };
  Value result = valueOf(r.choices.back());
  if (r.choices.size() == 1)
    return result;
  Value bits = arith::AndIOp::create(b, loc, lane, c(r.laneBits));
  for (const GatherChoice &ch : llvm::drop_end(r.choices)) {
    Value pred;
    for (int32_t v : ch.laneValues) {
      Value eq =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bits, c(v));
      pred = pred ? arith::OrIOp::create(b, loc, pred, eq).getResult() : eq;
    }
    result = arith::SelectOp::create(b, loc, pred, valueOf(ch), result);
  }
  return result;
}

LogicalResult Distributor::lowerGemm(GemmOp g) {
  auto at = cast<TileType>(g.getA().getType());
  auto bt = cast<TileType>(g.getB().getType());
  auto ct = cast<TileType>(g.getC().getType());
  auto cf = frags.find(g.getC());
  if (cf == frags.end())
    return g.emitOpError("accumulator must be a fragment");
  const FragTile &C = cf->second;
  bool ta = g.getTransposeA(), tb = g.getTransposeB();
  int64_t K = ta ? at.getShape()[0] : at.getShape()[1];
  Type accT = ct.getElementType();
  auto atomName = g->getAttrOfType<StringAttr>("atom");
  if (!atomName)
    return g.emitOpError("has no atom: run tessera-infer-layouts first");
  // A `clear` gemm whose atoms can start from zero (wgmma's scale-d = 0)
  // writes no zeros: its first K step's atoms ignore the accumulators.
  const target::MmaAtom *zeroAtom = tgt.findMmaAtom(atomName.getValue());
  bool zeroStart = g.getClear() && zeroAtom && mmaZeroStartEnabled() &&
                   hooks.mmaStartsFromZero(*zeroAtom);
  if (g.getClear() && !zeroStart)
    for (int64_t r = 0; r < C.regs; ++r)
      regStore(C, r, zeroOf(b, loc, accT));
  // A or B element (row, col) as the product reads it (A: MxK, B: KxN).
  auto operandAt = [&](Value tile, bool trans, Value row, Value col,
                       const Coords *constRC) -> Value {
    Value r = row, cc = col;
    if (trans)
      std::swap(r, cc);
    if (auto f = frags.find(tile); f != frags.end()) {
      if (!constRC)
        return {};
      Coords want = *constRC;
      if (trans)
        std::swap(want[0], want[1]);
      auto reg = regOf(f->second, want);
      if (!reg)
        return {};
      return regLoad(f->second, *reg);
    }
    return loadElem(tile, ValueRange{r, cc}, g);
  };
  if (atomName.getValue() == "fma") {
    if (g->hasAttr("a_layout") || g->hasAttr("b_layout"))
      return g.emitOpError("internal: vector FMA reads its fragment operands "
                           "in the layout they are held in");
    // Vector FMA: each accumulator register walks K.
    Type sumT = accT.isF16() ? b.getF32Type() : accT;
    bool isFloat = isa<FloatType>(accT);
    bool fragOperand = frags.count(g.getA()) || frags.count(g.getB());
    auto fm = arith::FastMathFlagsAttr::get(b.getContext(),
                                            arith::FastMathFlags::contract);
    // acc + a * b in the sum type; null when an operand was not found.
    auto multiplyAdd = [&](Value acc, Value av, Value bv) -> Value {
      if (!av || !bv)
        return Value();
      av = convertScalar(b, loc, av, sumT);
      bv = convertScalar(b, loc, bv, sumT);
      if (isFloat)
        return arith::AddFOp::create(
            b, loc, acc, arith::MulFOp::create(b, loc, av, bv, fm), fm);
      return arith::AddIOp::create(b, loc, acc,
                                   arith::MulIOp::create(b, loc, av, bv));
    };
    auto step = [&](int64_t reg, Value acc, Value k,
                    std::optional<int64_t> kc) {
      SmallVector<Value> co = coordsOf(C.layout, reg);
      Coords rc = regCoords(C.layout, reg);
      Coords ac = {rc[0], kc.value_or(0)}, bc = {kc.value_or(0), rc[1]};
      Value av = operandAt(g.getA(), ta, co[0], k, kc ? &ac : nullptr);
      Value bv = operandAt(g.getB(), tb, k, co[1], kc ? &bc : nullptr);
      return multiplyAdd(acc, av, bv);
    };
    if (fragOperand) {
      // Fragment operands hold K in registers: unrolled, constant indices.
      for (int64_t reg = 0; reg < C.regs; ++reg) {
        Value acc = convertScalar(b, loc, regLoad(C, reg), sumT);
        for (int64_t k = 0; k < K; ++k) {
          acc = step(reg, acc, c(k), k);
          if (!acc)
            return g.emitOpError("internal: operand register not found");
        }
        regStore(C, reg, convertScalar(b, loc, acc, accT));
      }
      return success();
    }
    // Operands stored with K innermost (A not transposed, B transposed)
    // read `unroll` consecutive K elements per row from one chunk of the
    // swizzle: the loop steps K by `unroll` and those reads sit at constant
    // offsets from one computed address, which LLVM merges into one vector
    // load (the chunk's start is aligned: the step is a multiple of it).
    auto kInner = [&](Value tile, bool kLast) -> const SharedTile * {
      auto it = shared.find(tile);
      if (!kLast || it == shared.end() || it->second.shape.size() != 2)
        return nullptr;
      return &it->second;
    };
    const SharedTile *aRow = kInner(g.getA(), !ta);
    const SharedTile *bRow = kInner(g.getB(), tb);
    auto chunkOf = [](const SharedTile *s) -> int64_t {
      if (!s)
        return 0;
      // Unswizzled tiles: rows need not start aligned (padding); no vector.
      if (s->vec <= 0 || (s->blockCols > 0 && s->blockCols % s->vec))
        return 1;
      return s->vec;
    };
    // Registers the unrolled reads keep live: U values per distinct row of
    // A and column of B the thread's accumulators touch.
    llvm::SmallDenseSet<int64_t> rowsSeen, colsSeen;
    for (int64_t reg = 0; reg < C.regs; ++reg) {
      Coords rc = regCoords(C.layout, reg);
      rowsSeen.insert(rc[0]);
      colsSeen.insert(rc[1]);
    }
    int64_t unroll = 1;
    for (int64_t u : {4, 2}) {
      bool fits = K % u == 0 && (aRow || bRow) &&
                  (!aRow || chunkOf(aRow) % u == 0) &&
                  (!bRow || chunkOf(bRow) % u == 0) &&
                  C.regs + u * int64_t(rowsSeen.size() + colsSeen.size()) <=
                      fmaUnrollRegisterBudget(tgt.registersPerThread);
      if (fits && sumT.getIntOrFloatBitWidth() == 32) {
        unroll = u;
        break;
      }
    }
    // The element (row, k0 + i) of an operand stored [rows, K]: the address
    // of (row, k0) plus i.
    auto rowOperand = [&](const SharedTile &s, Value row, Value k0,
                          int64_t i) -> Value {
      Value off = sharedOffset(s, ValueRange{row, k0});
      if (i)
        off = add(off, c(i));
      return memref::LoadOp::create(b, loc, s.mem, ValueRange{off});
    };
    auto stepU = [&](int64_t reg, Value acc, Value k0, int64_t i) -> Value {
      SmallVector<Value> co = coordsOf(C.layout, reg);
      Value k = i ? add(k0, c(i)) : k0;
      Value av = aRow ? rowOperand(*aRow, co[0], k0, i)
                      : operandAt(g.getA(), ta, co[0], k, nullptr);
      Value bv = bRow ? rowOperand(*bRow, co[1], k0, i)
                      : operandAt(g.getB(), tb, k, co[1], nullptr);
      return multiplyAdd(acc, av, bv);
    };
    SmallVector<Value> init;
    for (int64_t reg = 0; reg < C.regs; ++reg)
      init.push_back(convertScalar(b, loc, regLoad(C, reg), sumT));
    // Reading a K group's operands during the group before needs values
    // that die before the group ends: an operand stored with K outermost
    // (its elements of K step i die after step i). Where both operands are
    // K-inner, every value lives to the group's last step and the next
    // group's reads wait at its top; measured slower (H200, linear_f32_nt
    // 4096: 3.47 ms against 3.08, and 3.36 with one operand read in halves
    // of the group's depth), so those keep the loop below. The groups are
    // unrolled (a loop would carry the next group's values through its
    // back edge, and ptxas sinks such loads to the loop's end): at most
    // kFmaPrefetchMax multiply-adds a thread.
    constexpr int64_t kFmaPrefetchMax = 4096;
    if (unroll > 1 && K / unroll > 1 && !(aRow && bRow) &&
        K * C.regs <= kFmaPrefetchMax && fmaOperandPrefetch()) {
      // The operand values of a K group are read during the group before,
      // each as soon as the registers it replaces die (a register-neutral
      // software pipeline of the shared reads): the multiply-adds of a
      // group never wait for its loads. A key is one operand value set: a
      // K-inner operand's row (the group's `unroll` K elements, one vector,
      // dead after the group's last K step; its `step` is 0), or
      // another operand's element (coordinate, K `step`), dead after
      // that step; a unit is what one load reads: a key, or a run of the
      // other operand's consecutive coordinates in one chunk of its swizzle
      // (one vector). The last K step walks the K-inner operand's rows
      // (B's columns where B is the K-inner one) one at a time, so they
      // die, and are reloaded, one after another.
      int major = aRow ? 0 : 1;
      bool inner[2] = {aRow != nullptr, bRow != nullptr};
      struct Key {
        int op;
        int64_t coord, step;
        int64_t reg;      // a register that reads it (for its coordinate)
        unsigned slot, n; // its values in `vals`
        int64_t lastUse;  // the multiply-add after which it is dead
        int unit;
      };
      SmallVector<Key> keys;
      std::map<std::tuple<int, int64_t, int64_t>, unsigned> keyIndex;
      auto keyOf = [&](int op, int64_t reg, int64_t i) -> unsigned {
        Coords rc = regCoords(C.layout, reg);
        int64_t step = inner[op] ? 0 : i;
        auto t = std::make_tuple(op, rc[op], step);
        auto [it, added] = keyIndex.try_emplace(t, keys.size());
        if (added)
          keys.push_back({op, rc[op], step, reg, 0,
                          unsigned(inner[op] ? unroll : 1), 0, -1});
        return it->second;
      };
      // The order of a group's multiply-adds: K step by K step, the last
      // by `major` rows.
      SmallVector<std::pair<int64_t, int64_t>> order; // (K step, register)
      for (int64_t i = 0; i + 1 < unroll; ++i)
        for (int64_t reg = 0; reg < C.regs; ++reg)
          order.push_back({i, reg});
      SmallVector<int64_t> lastRegs;
      for (int64_t reg = 0; reg < C.regs; ++reg)
        lastRegs.push_back(reg);
      llvm::sort(lastRegs, [&](int64_t x, int64_t y) {
        Coords cx = regCoords(C.layout, x), cy = regCoords(C.layout, y);
        return std::make_tuple(cx[major], cx[1 - major], x) <
               std::make_tuple(cy[major], cy[1 - major], y);
      });
      for (int64_t reg : lastRegs)
        order.push_back({unroll - 1, reg});
      SmallVector<std::pair<unsigned, unsigned>> uses; // (A key, B key)
      for (auto [idx, o] : llvm::enumerate(order)) {
        unsigned ka = keyOf(0, o.second, o.first);
        unsigned kb = keyOf(1, o.second, o.first);
        keys[ka].lastUse = keys[kb].lastUse = int64_t(idx);
        uses.push_back({ka, kb});
      }
      unsigned slots = 0;
      for (Key &k : keys) {
        k.slot = slots;
        slots += k.n;
      }
      // Units. A non-K-inner operand's element (k, x) sits at [k, x] of its
      // tile (A transposed: [K, M]; B: [K, N]); x .. x + v - 1 are one
      // aligned vector when the thread's part of x has no bits below v
      // and v elements lie in one chunk of the swizzle.
      auto runOf = [&](int op) -> int64_t {
        Value t = op == 0 ? g.getA() : g.getB();
        auto it = shared.find(t);
        if (it == shared.end() || it->second.shape.size() != 2)
          return 1;
        int64_t eb =
            std::max<int64_t>(1, it->second.elem.getIntOrFloatBitWidth() / 8);
        int64_t v = std::min<int64_t>(chunkOf(&it->second), 16 / eb);
        if (v <= 1)
          return 1;
        for (const std::string &n : {layout::kLane, layout::kWarp})
          if (C.layout.hasInDim(n))
            for (int i = 0; i < C.layout.getInDimSizeLog2(n); ++i)
              if (C.layout.getBasis(n, i)[op] % v)
                return 1;
        return v;
      };
      struct Unit {
        SmallVector<unsigned> keys; // in element order
        int64_t lastUse = 0;
      };
      SmallVector<Unit> units;
      int64_t run[2] = {runOf(0), runOf(1)};
      for (unsigned ki = 0; ki < keys.size(); ++ki) {
        Key &k = keys[ki];
        if (k.unit >= 0)
          continue;
        Unit u;
        if (!inner[k.op] && run[k.op] > 1 && k.coord % run[k.op] == 0) {
          for (int64_t j = 0; j < run[k.op]; ++j) {
            auto it = keyIndex.find(std::make_tuple(k.op, k.coord + j, k.step));
            if (it == keyIndex.end() || keys[it->second].unit >= 0) {
              u.keys.clear();
              break;
            }
            u.keys.push_back(it->second);
          }
        }
        if (u.keys.empty())
          u.keys.push_back(ki);
        for (unsigned m : u.keys) {
          keys[m].unit = int(units.size());
          u.lastUse = std::max(u.lastUse, keys[m].lastUse);
        }
        units.push_back(u);
      }
      std::multimap<int64_t, unsigned> unitsAfter;
      for (auto [ui, u] : llvm::enumerate(units))
        unitsAfter.insert({u.lastUse, unsigned(ui)});
      // n consecutive elements from `off` of a shared tile: loads at
      // constant offsets from one address, which LLVM merges into one
      // vector load (n elements of one aligned chunk).
      auto vectorLoad = [&](const SharedTile &st, Value off, int64_t n,
                            SmallVector<Value> &out) {
        for (int64_t j = 0; j < n; ++j)
          out.push_back(memref::LoadOp::create(
              b, loc, st.mem, ValueRange{j ? add(off, c(j)) : off}));
      };
      auto loadUnit = [&](const Unit &u, Value k0, SmallVector<Value> &vals) {
        const Key &k = keys[u.keys.front()];
        SmallVector<Value> co = coordsOf(C.layout, k.reg);
        const SharedTile *row = k.op == 0 ? aRow : bRow;
        SmallVector<Value> got;
        Value kv = k.step ? add(k0, c(k.step)) : k0;
        if (row) {
          // A K-inner row: the group's K elements, one aligned vector (the
          // unroll divides the swizzle's chunk).
          vectorLoad(*row, sharedOffset(*row, ValueRange{co[k.op], kv}),
                     int64_t(k.n), got);
        } else if (u.keys.size() > 1) {
          const SharedTile &st =
              shared.find(k.op == 0 ? g.getA() : g.getB())->second;
          vectorLoad(st, sharedOffset(st, ValueRange{kv, co[k.op]}),
                     int64_t(u.keys.size()), got);
        } else {
          got.push_back(k.op == 0
                            ? operandAt(g.getA(), ta, co[0], kv, nullptr)
                            : operandAt(g.getB(), tb, kv, co[1], nullptr));
        }
        unsigned e = 0;
        for (unsigned m : u.keys)
          for (unsigned j = 0; j < keys[m].n; ++j)
            vals[keys[m].slot + j] = got[e++];
      };
      // One group's multiply-adds on `vals`; with `nextK0`, the next
      // group's values replace them as they die.
      auto group = [&](SmallVector<Value> &acc, SmallVector<Value> &vals,
                       Value nextK0) {
        SmallVector<Value> cur(vals);
        for (auto [idx, o] : llvm::enumerate(order)) {
          auto [ka, kb] = uses[idx];
          const Key &A = keys[ka], &B = keys[kb];
          Value av = cur[A.slot + (inner[0] ? o.first : 0)];
          Value bv = cur[B.slot + (inner[1] ? o.first : 0)];
          acc[o.second] = multiplyAdd(acc[o.second], av, bv);
          if (!nextK0)
            continue;
          auto [from, to] = unitsAfter.equal_range(int64_t(idx));
          for (auto it = from; it != to; ++it)
            loadUnit(units[it->second], nextK0, vals);
        }
      };
      SmallVector<Value> vals(slots);
      for (const Unit &u : units)
        loadUnit(u, c(0), vals);
      SmallVector<Value> acc(init);
      for (int64_t gi = 0; gi + 1 < K / unroll; ++gi)
        group(acc, vals, c((gi + 1) * unroll));
      group(acc, vals, Value());
      for (Value v : acc)
        if (!v)
          return g.emitOpError("internal: operand element not found");
      for (int64_t reg = 0; reg < C.regs; ++reg)
        regStore(C, reg, convertScalar(b, loc, acc[reg], accT));
      return success();
    }
    auto loop = scf::ForOp::create(b, loc, c(0), c(K / unroll), c(1), init);
    {
      OpBuilder::InsertionGuard gd(b);
      b.setInsertionPointToStart(loop.getBody());
      SmallVector<Value> next(loop.getRegionIterArgs());
      if (unroll == 1) {
        for (int64_t reg = 0; reg < C.regs; ++reg)
          next[reg] =
              step(reg, next[reg], loop.getInductionVar(), std::nullopt);
      } else {
        Value k0 = mul(loop.getInductionVar(), c(unroll));
        for (int64_t i = 0; i < unroll; ++i)
          for (int64_t reg = 0; reg < C.regs; ++reg)
            next[reg] = stepU(reg, next[reg], k0, i);
      }
      for (Value v : next)
        if (!v)
          return g.emitOpError("internal: operand element not found");
      scf::YieldOp::create(b, loc, next);
    }
    for (int64_t reg = 0; reg < C.regs; ++reg)
      regStore(C, reg, convertScalar(b, loc, loop.getResult(reg), accT));
    return success();
  }
  const target::MmaAtom *atom = tgt.findMmaAtom(atomName.getValue());
  if (!atom || !atom->cLayout)
    return g.emitOpError("atom '") << atomName.getValue()
                                   << "' is not a register-accumulator atom of "
                                      "target '"
                                   << tgt.name << "'";
  if (!hooks.canEmitAtom(*atom))
    return g.emitOpError("the backend cannot emit atom '")
           << atom->name << "' for target '" << tgt.name << "'";
  const LinearLayout &atomC = *atom->cLayout;
  int64_t atomRegs = atomC.getInDimSize(layout::kRegister);
  int ownWarpBits = llvm::Log2_64(atom->warps);
  // The instance origin's warp part: the accumulator's warp bits beyond the
  // atom's own (which the atom's layouts already place).
  SmallVector<Value> warpOrigin;
  for (int d = 0; d < 2; ++d) {
    Value v = c(0);
    if (C.layout.hasInDim(layout::kWarp))
      for (int i = ownWarpBits; i < C.layout.getInDimSizeLog2(layout::kWarp);
           ++i) {
        int32_t bv = C.layout.getBasis(layout::kWarp, i)[d];
        if (!bv)
          continue;
        Value bit = arith::AndIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, warp, c(i)), c(1));
        v = xorI(v, mul(bit, c(bv)));
      }
    warpOrigin.push_back(v);
  }
  int64_t instances = C.regs / atomRegs;
  Type aElem = at.getElementType(), bElem = bt.getElementType();
  SharedMatrix sa, sb;
  auto sharedMatrix = [&](Value tile, SharedMatrix &m) {
    auto it = shared.find(tile);
    if (it == shared.end())
      return false;
    const SharedTile &s = it->second;
    if (s.shape.size() != 2)
      return false;
    m.rows = s.shape[0];
    m.cols = s.shape[1];
    m.elemBytes = std::max<int>(1, s.elem.getIntOrFloatBitWidth() / 8);
    m.contiguousElems = s.vec > 0 ? s.vec : s.shape[1];
    m.rowStride = s.shape[1] + s.rowPad;
    m.blockCols = s.blockCols;
    // A descriptor swizzle atom: 16-byte chunks permuted over 8 rows.
    if (s.vec > 0 && s.vec * m.elemBytes == 16 && s.perPhase * s.maxPhase == 8)
      m.swizzleBytes = int(16 * s.maxPhase);
    SharedTile copy = s;
    m.addressOf = [this, copy](OpBuilder &ob, Location l, Value row,
                               Value col) {
      OpBuilder::InsertionGuard gd(b);
      b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
      Value off = sharedOffset(copy, ValueRange{row, col});
      return sharedAddress(copy, off);
    };
    m.memref = s.mem;
    m.offsetOf = [this, copy](OpBuilder &ob, Location l, Value row, Value col) {
      OpBuilder::InsertionGuard gd(b);
      b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
      return sharedOffset(copy, ValueRange{row, col});
    };
    return true;
  };
  bool aShared = sharedMatrix(g.getA(), sa);
  bool bShared = sharedMatrix(g.getB(), sb);
  // Fragment operands held in fewer registers than the atom reads them
  // (layout inference recorded the atom's layout as a_layout / b_layout):
  // each register the atom reads comes from the lane that holds it.
  OperandGather gatherA, gatherB;
  if (failed(planOperandGather(g, g.getA(), "a_layout", gatherA)) ||
      failed(planOperandGather(g, g.getB(), "b_layout", gatherB)))
    return failure();
  // Operand elements of one atom instance, in the atom's register order.
  auto loadOperand = [&](MmaOperandKind which, int64_t origin0, Value dynOrigin,
                         int64_t kBase,
                         SmallVectorImpl<Value> &out) -> LogicalResult {
    bool isA = which == MmaOperandKind::A;
    Value tile = isA ? g.getA() : g.getB();
    bool trans = isA ? ta : tb;
    OperandGather &gather = isA ? gatherA : gatherB;
    std::map<std::pair<int64_t, int32_t>, Value> shuffled;
    const std::optional<LinearLayout> &al = isA ? atom->aLayout : atom->bLayout;
    if (!al)
      return g.emitOpError("atom '") << atom->name
                                     << "' reads its operand by descriptor; "
                                        "the backend must load it";
    // Origin of the operand: A at (row, k), B at (k, col).
    Value row0 = isA ? add(dynOrigin, c(origin0)) : c(kBase);
    Value col0 = isA ? c(kBase) : add(dynOrigin, c(origin0));
    const SharedMatrix &m = isA ? sa : sb;
    if ((isA ? aShared : bShared) &&
        hooks.loadMmaOperand(b, loc, *atom, which, m, trans, row0, col0,
                             isA ? aElem : bElem, out))
      return success();
    int64_t n = al->getInDimSize(layout::kRegister);
    for (int64_t t = 0; t < n; ++t) {
      SmallVector<Value> co = coordsOf(*al, t);
      Coords rc = regCoords(*al, t);
      Coords constRC = isA ? Coords{origin0 + rc[0], kBase + rc[1]}
                           : Coords{kBase + rc[0], origin0 + rc[1]};
      if (gather.held) {
        Coords want = constRC;
        if (trans)
          std::swap(want[0], want[1]);
        auto it = gather.wantReg.find(want);
        if (it == gather.wantReg.end())
          return g.emitOpError("internal: gathered operand element not "
                               "found");
        out.push_back(
            gatherRegister(*gather.held, gather.plan[it->second], shuffled));
        continue;
      }
      Value v =
          operandAt(tile, trans, add(row0, co[0]), add(col0, co[1]), &constRC);
      if (!v)
        return g.emitOpError("internal: operand element not found");
      out.push_back(v);
    }
    return success();
  };
  bool aDesc = !atom->aLayout, bDesc = !atom->bLayout;
  if ((aDesc && !aShared) || (bDesc && !bShared))
    return g.emitOpError("atom '")
           << atom->name
           << "' reads an operand from shared memory by descriptor, but that "
              "operand is not a rank-2 shared tile";
  // Every accumulator of the thread, through the whole sequence of atoms
  // (null until the first K step where the atoms start from zero).
  SmallVector<Value> acc;
  if (!zeroStart)
    for (int64_t r = 0; r < C.regs; ++r)
      acc.push_back(regLoad(C, r));
  // Register operands of each k-step, by the origin they start at (A: row,
  // B: column). Where the backend asks for them first, all of them are
  // built here, before the sequence begins.
  std::map<std::pair<int64_t, int64_t>, SmallVector<Value>> aRegs, bRegs;
  auto operandRegs = [&](MmaOperandKind which, int64_t kb,
                         int64_t origin) -> FailureOr<ArrayRef<Value>> {
    bool isA = which == MmaOperandKind::A;
    auto &v = (isA ? aRegs : bRegs)[{kb, origin}];
    if (v.empty() &&
        failed(loadOperand(which, origin, warpOrigin[isA ? 0 : 1], kb, v)))
      return failure();
    return ArrayRef<Value>(v);
  };
  if ((!aDesc || !bDesc) && hooks.mmaOperandsFirst(*atom)) {
    for (int64_t kb = 0; kb < K; kb += atom->k)
      for (int64_t inst = 0; inst < instances; ++inst) {
        Coords origin = regCoords(C.layout, inst * atomRegs);
        if ((!aDesc && failed(operandRegs(MmaOperandKind::A, kb, origin[0]))) ||
            (!bDesc && failed(operandRegs(MmaOperandKind::B, kb, origin[1]))))
          return failure();
      }
    SmallVector<SmallVector<Value>> all;
    for (auto *m : {&aRegs, &bRegs})
      for (auto &[key, v] : *m)
        all.push_back(std::move(v));
    hooks.prepareMmaOperands(b, loc, *atom, all);
    size_t i = 0;
    for (auto *m : {&aRegs, &bRegs})
      for (auto &[key, v] : *m)
        v = std::move(all[i++]);
  }
  // The last gemm of a run that takes one turn (planTurns) passes the turn
  // to the other group once its atoms are committed.
  bool turn = turnFirst && g->hasAttr("tile.turn");
  hooks.beginMmaSequence(b, loc, *atom, acc);
  acc.resize(C.regs);
  for (int64_t kb = 0; kb < K; kb += atom->k) {
    for (int64_t inst = 0; inst < instances; ++inst) {
      Coords origin = regCoords(C.layout, inst * atomRegs);
      MmaOperandRef ar, br;
      if (aDesc) {
        ar.shared = &sa;
        ar.transposed = ta;
        ar.row0 = add(warpOrigin[0], c(origin[0]));
        ar.col0 = c(kb);
      } else {
        FailureOr<ArrayRef<Value>> av =
            operandRegs(MmaOperandKind::A, kb, origin[0]);
        if (failed(av))
          return failure();
        ar.regs = *av;
      }
      if (bDesc) {
        br.shared = &sb;
        br.transposed = tb;
        br.row0 = c(kb);
        br.col0 = add(warpOrigin[1], c(origin[1]));
      } else {
        FailureOr<ArrayRef<Value>> bv =
            operandRegs(MmaOperandKind::B, kb, origin[1]);
        if (failed(bv))
          return failure();
        br.regs = *bv;
      }
      ArrayRef<Value> cv =
          ArrayRef<Value>(acc).slice(inst * atomRegs, atomRegs);
      if (kb == 0 && zeroStart && !(aDesc || bDesc))
        return g.emitOpError("internal: atom '")
               << atom->name << "' starts from zero only by descriptor";
      SmallVector<Value> dv =
          aDesc || bDesc ? hooks.emitMmaShared(b, loc, *atom, ar, br, cv)
                         : hooks.emitMma(b, loc, *atom, ar.regs, br.regs, cv);
      if (int64_t(dv.size()) != atomRegs)
        return g.emitOpError("the backend could not emit atom '")
               << atom->name << "' for these operands";
      for (int64_t t = 0; t < atomRegs; ++t)
        acc[inst * atomRegs + t] = dv[t];
    }
  }
  // A gemm marked to run on (MmaOverlap.cpp): committed, and waited for
  // where an op first needs it (awaitMma); a guarded one is pending after
  // its scf.if, whose other path commits an empty group.
  if (g->hasAttr(kMmaAsyncAttr) && !deferrable.contains(g) &&
      hooks.mmaIsAsync(*atom)) {
    bool guarded = g.getOperation() == guardedGemm;
    if (hooks.commitMma(b, loc, *atom)) {
      if (turn)
        emitTurn(/*wait=*/false);
      for (int64_t r = 0; r < C.regs; ++r)
        regStore(C, r, acc[r]);
      if (!guarded)
        pendingMma.push_back(pendingRecord(g, atom));
      return success();
    }
  }
  // Inside a pipelined loop that only this gemm accumulates into, the atoms
  // may run on into the next iteration (see TargetHooks::deferMmaWait).
  auto loop = dyn_cast<scf::ForOp>(g->getParentOp());
  if (deferrable.contains(g) && hooks.deferMmaWait(b, loc, *atom)) {
    // (Committed: the other group may issue.)
    if (turn)
      emitTurn(/*wait=*/false);
    // Every thread's previous atoms are done before any thread overwrites
    // their shared operands.
    // (In a warp-specialized loop each warp releases the stage itself.)
    if (numWarps > atom->warps && !consumerThreads)
      barrier();
    OpBuilder::InsertionGuard gd(b);
    b.setInsertionPointAfter(loop);
    SmallVector<Value> rest;
    for (int64_t r = 0; r < C.regs; ++r)
      rest.push_back(regLoad(C, r));
    hooks.drainMma(b, loc, *atom, rest);
    for (int64_t r = 0; r < C.regs; ++r)
      regStore(C, r, rest[r]);
  } else if (turn && hooks.commitMma(b, loc, *atom)) {
    // The other group issues while this one's atoms run.
    emitTurn(/*wait=*/false);
    hooks.drainMma(b, loc, *atom, acc);
  } else {
    hooks.endMmaSequence(b, loc, *atom, acc);
    if (turn)
      emitTurn(/*wait=*/false);
  }
  for (int64_t r = 0; r < C.regs; ++r)
    regStore(C, r, acc[r]);
  return success();
}

LogicalResult Distributor::lowerAtomic(AtomicOp a) {
  Value mem = globalMemref(a.getDst());
  auto mt = cast<MemRefType>(mem.getType());
  int64_t rank = mt.getRank();
  auto st = cast<TileType>(a.getSrc().getType());
  bool isFloat = isa<FloatType>(st.getElementType());
  arith::AtomicRMWKind kind =
      a.getKind() == AtomicKind::Add
          ? (isFloat ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi)
          : (isFloat ? arith::AtomicRMWKind::maximumf
                     : arith::AtomicRMWKind::maxs);
  SmallVector<Value> dims;
  for (int64_t d = 0; d < rank; ++d)
    dims.push_back(memref::DimOp::create(b, loc, mem, d));
  ValueRange off = a.getOffsets();
  auto one = [&](ValueRange t, Value v) {
    SmallVector<Value> g = globalIndex(off, SmallVector<Value>(t));
    auto ifOp = scf::IfOp::create(b, loc, inside(g, dims), false);
    OpBuilder::InsertionGuard gd(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    memref::AtomicRMWOp::create(b, loc, kind, v, mem, g);
  };
  if (auto f = frags.find(a.getSrc()); f != frags.end()) {
    // A broadcast register (several threads holding one element) must add
    // once: only the thread whose redundant lane/warp bits are zero adds.
    Value owner;
    for (const std::string &n : {layout::kLane, layout::kWarp}) {
      int32_t mask = f->second.layout.getFreeVariableMasks().empty() ? 0 : 0;
      for (auto &[name, m] : f->second.layout.getFreeVariableMasks())
        if (name == n)
          mask = m;
      if (!mask)
        continue;
      Value src = n == layout::kLane ? lane : warp;
      Value isOwner = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq,
          arith::AndIOp::create(b, loc, src, c(mask)), c(0));
      owner = owner ? arith::AndIOp::create(b, loc, owner, isOwner).getResult()
                    : isOwner;
    }
    const FragTile &ft = f->second;
    auto body = [&]() {
      for (int64_t reg = 0; reg < ft.regs; ++reg)
        one(coordsOf(ft.layout, reg), regLoad(ft, reg));
    };
    // Registers holding consecutive elements of a row add as one vector
    // where the target has such an atomic and the tile lies wholly inside
    // the tensor with its rows aligned to the vector; elsewhere (edge tiles)
    // element by element.
    int64_t tileRank = int64_t(ft.layout.getOutDims().size());
    int64_t vec = std::min<int64_t>(4, ft.layout.getContiguousRegisters(
                                           layout::dimName(int(tileRank - 1))));
    while (vec > 1 && (ft.regs % vec ||
                       !hooks.canAtomicAddVector(mt.getElementType(), vec)))
      vec /= 2;
    if (!owner && vec > 1 && a.getKind() == AtomicKind::Add &&
        isa<FloatType>(mt.getElementType()) && mt.getElementType() == ft.elem) {
      int eb = int(mt.getElementType().getIntOrFloatBitWidth() / 8);
      SmallVector<int64_t> tileShape;
      for (int64_t k = 0; k < tileRank; ++k)
        tileShape.push_back(ft.layout.getOutDimSize(layout::dimName(int(k))));
      auto split = scf::IfOp::create(
          b, loc,
          tileInside(rowsAligned(mem, dims, vec, eb), off, dims, tileShape),
          true);
      OpBuilder::InsertionGuard gd(b);
      b.setInsertionPoint(split.thenBlock()->getTerminator());
      Value gptr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, mem);
      for (int64_t base = 0; base < ft.regs; base += vec) {
        SmallVector<Value> g =
            globalIndex(off, SmallVector<Value>(coordsOf(ft.layout, base)));
        SmallVector<Value> vals;
        for (int64_t i = 0; i < vec; ++i)
          vals.push_back(regLoad(ft, base + i));
        hooks.emitAtomicAddVector(b, loc, globalAddress(mem, dims, g, eb, gptr),
                                  vals);
      }
      b.setInsertionPoint(split.elseBlock()->getTerminator());
      body();
      return success();
    }
    if (owner) {
      auto ifOp = scf::IfOp::create(b, loc, owner, false);
      OpBuilder::InsertionGuard gd(b);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      body();
    } else {
      body();
    }
    return success();
  }
  bool spread = st.isShared();
  if (spread)
    barrier();
  forEachElement(st.getShape(), spread, [&](ValueRange ivs) {
    one(ivs, loadElem(a.getSrc(), ivs, a));
  });
  return success();
}

LogicalResult Distributor::lowerOp(Operation *op) {
  loc = op->getLoc();
  b.setInsertionPoint(op);
  for (Value v : op->getOperands())
    if (isa<GlobalTensorType>(v.getType()) && !globalMemref(v))
      return op->emitOpError("internal: a global tensor operand is not an "
                             "unpacked kernel argument");
  if (!opaqueAccumulators.empty()) {
    reorderUsedBy(op);
    if (reorderFailed)
      return failure();
  }
  LogicalResult res = success();
  if (auto a = dyn_cast<AllocOp>(op)) {
    res = lowerAlloc(a);
  } else if (auto d = dyn_cast<DimOp>(op)) {
    Value v = memref::DimOp::create(b, loc, globalMemref(d.getTensor()),
                                    d.getIndex());
    d.getResult().replaceAllUsesWith(v);
  } else if (auto f = dyn_cast<FillOp>(op)) {
    res = lowerFill(f.getDst(), f.getValue());
  } else if (auto cl = dyn_cast<ClearOp>(op)) {
    res = lowerFill(cl.getDst(),
                    zeroOf(b, loc, cl.getDst().getType().getElementType()));
  } else if (auto cp = dyn_cast<CopyOp>(op);
             cp && cp->hasAttr("tile.early_bulk")) {
    res = lowerEarlyBulkCopy(cp);
  } else if (auto cp = dyn_cast<CopyOp>(op)) {
    res = lowerCopy(op, cp.getSrc(), cp.getSrcOffsets(), cp.getDst(),
                    cp.getDstOffsets(), cp.getTranspose(), false);
  } else if (auto ac = dyn_cast<AsyncCopyOp>(op)) {
    if (const BulkPipeline *bp = bulkPipelineOf(op))
      res = lowerBulkCopy(ac, *bp);
    else
      res = lowerCopy(op, ac.getSrc(), ac.getSrcOffsets(), ac.getDst(),
                      ValueRange{}, false, true);
  } else if (auto cv = dyn_cast<ConvertLayoutOp>(op)) {
    res = copyTileToTile(op, cv.getSrc(), cv.getDst(), false);
  } else if (isa<CommitGroupOp>(op)) {
    if (!bulkPipelineOf(op))
      hooks.emitCommitGroup(b, loc);
  } else if (auto w = dyn_cast<WaitGroupOp>(op)) {
    // A loop on stage barriers waits for its stage's phase; the drain after
    // it has nothing left to wait for (every stage it filled was waited).
    // In a warp-specialized loop the stage's barrier is all the consumers
    // need: the copy warp waits for their releases before it refills.
    bool staged = false;
    if (const BulkPipeline *bp = bulkPipelineOf(op)) {
      if (w.getStage().size() == 2) {
        hooks.emitBarrierWait(b, loc, stageBarrier(*bp, w.getStage()[0]),
                              w.getStage()[1]);
        staged = bp->empties >= 0;
      }
    } else if (tgt.asyncCopy == target::AsyncCopyKind::Registers) {
      storeStagedCopies(w);
    } else {
      hooks.emitWaitGroup(b, loc, w.getPending());
    }
    // After a stage wait the block only waits for every thread: the stage
    // was written by bulk copies, and ordinary writes before it were
    // published by the barriers that followed them.
    // The drain after a warp-specialized loop waits for nothing: the copy
    // warp copied only stages the loop waited for, and the consumers' own
    // writes of shared memory carry their barriers (but for a bulk store
    // right after the drain, which counts on its barrier: BulkStore).
    bool drained = bulkPipelineOf(op) && w.getStage().empty() &&
                   consumerThreads && earlyBulk &&
                   !bulkStores.count(op->getNextNode());
    if (!staged && bulkPipelineOf(op) && w.getStage().size() == 2 &&
        !consumerThreads)
      hooks.emitBarrierAfterCopies(b, loc);
    else if (!staged && !drained)
      barrier();
  } else if (auto sv = dyn_cast<StageViewOp>(op)) {
    auto it = shared.find(sv.getBuffer());
    if (it == shared.end())
      return op->emitOpError("stage of a tile that is not in shared memory");
    SharedTile s = it->second;
    auto rt = cast<TileType>(sv.getResult().getType());
    s.shape.assign(rt.getShape().begin(), rt.getShape().end());
    s.base = add(s.base, mul(sv.getStage(), c(s.storedElems())));
    shared[sv.getResult()] = s;
  } else if (auto p = dyn_cast<ParallelOp>(op)) {
    res = lowerParallel(p);
  } else if (auto r = dyn_cast<ReduceOp>(op)) {
    res = lowerReduce(r);
  } else if (auto g = dyn_cast<GemmOp>(op)) {
    res = lowerGemm(g);
  } else if (auto a = dyn_cast<AtomicOp>(op)) {
    res = lowerAtomic(a);
  } else if (auto l = dyn_cast<LoadOp>(op)) {
    Value v = loadElem(l.getTile(), l.getIndices(), op);
    if (!v)
      return failure();
    l.getResult().replaceAllUsesWith(v);
  } else if (auto s = dyn_cast<StoreOp>(op)) {
    res = storeElem(s.getValue(), s.getTile(), s.getIndices(), op);
  } else {
    return op->emitOpError("has no distribution");
  }
  if (failed(res))
    return failure();
  // Tiles (allocs, stage views) stay until every user is lowered: the maps
  // above are keyed by them.
  if (llvm::any_of(op->getResultTypes(),
                   [](Type t) { return isa<TileType>(t); })) {
    deadTiles.push_back(op);
    return success();
  }
  op->erase();
  return success();
}

Distributor::PendingMma
Distributor::pendingRecord(GemmOp g, const target::MmaAtom *atom) {
  PendingMma p;
  p.atom = atom;
  p.acc = g.getC();
  for (Value v : {g.getA(), g.getB(), g.getC()}) {
    while (auto sv = v.getDefiningOp<StageViewOp>())
      v = sv.getBuffer();
    p.tiles.push_back(v);
    p.readsShared |= cast<TileType>(v.getType()).isShared();
  }
  return p;
}

GemmOp Distributor::guardedAsyncGemm(Operation *op) {
  auto i = dyn_cast<scf::IfOp>(op);
  if (!i || i.getNumResults() || !i.getElseRegion().empty())
    return {};
  // The gemm, after stage views of its operands and index arithmetic.
  GemmOp g;
  for (Operation &inner : i.thenBlock()->without_terminator()) {
    if (g)
      return {};
    if (auto gi = dyn_cast<GemmOp>(inner))
      g = gi;
    else if (!isa<StageViewOp>(inner) &&
             (inner.getNumRegions() || !isMemoryEffectFree(&inner)))
      return {};
  }
  auto name = g ? g->getAttrOfType<StringAttr>("atom") : StringAttr();
  const target::MmaAtom *atom =
      name ? tgt.findMmaAtom(name.getValue()) : nullptr;
  if (!atom || !g->hasAttr(kMmaAsyncAttr) || !hooks.mmaIsAsync(*atom))
    return {};
  return g;
}

void Distributor::waitPendingMma(size_t count) {
  count = std::min(count, pendingMma.size());
  if (!count)
    return;
  SmallVector<Value> acc;
  for (size_t i = 0; i < count; ++i) {
    const FragTile &C = frags.find(pendingMma[i].acc)->second;
    for (int64_t r = 0; r < C.regs; ++r)
      acc.push_back(regLoad(C, r));
  }
  hooks.waitMma(b, loc, *pendingMma[count - 1].atom,
                int64_t(pendingMma.size() - count), acc);
  size_t n = 0;
  for (size_t i = 0; i < count; ++i) {
    const FragTile &C = frags.find(pendingMma[i].acc)->second;
    for (int64_t r = 0; r < C.regs; ++r)
      regStore(C, r, acc[n++]);
  }
  for (size_t i = 0; i < count; ++i)
    if (numWarps > pendingMma[i].atom->warps && !consumerThreads)
      for (Value t : pendingMma[i].tiles)
        if (cast<TileType>(t.getType()).isShared())
          unsyncedSharedReads.insert(t);
  pendingMma.erase(pendingMma.begin(), pendingMma.begin() + count);
}

void Distributor::awaitMma(Operation *op) {
  if ((pendingMma.empty() && unsyncedSharedReads.empty()) ||
      isa<StageViewOp>(op) || op->hasAttr("tile.turn_op"))
    return;
  b.setInsertionPoint(op);
  loc = op->getLoc();
  bool tileOp = op->getDialect() && op->getDialect()->getNamespace() ==
                                        TileDialect::getDialectNamespace();
  GemmOp guarded = guardedAsyncGemm(op);
  llvm::SmallPtrSet<Value, 8> used;
  // Structured control flow (a refill, a stage release) and gemms that
  // wait for themselves: nothing stays in flight across them.
  bool all = (!tileOp && !guarded && op->getNumRegions()) ||
             (isa<GemmOp>(op) && !op->hasAttr(kMmaAsyncAttr));
  if (all) {
    waitPendingMma(pendingMma.size());
  } else {
    Operation *subject = guarded ? guarded.getOperation() : op;
    subject->walk([&](Operation *inner) {
      for (Value v : inner->getOperands()) {
        if (!isa<TileType>(v.getType()))
          continue;
        while (auto sv = v.getDefiningOp<StageViewOp>())
          v = sv.getBuffer();
        used.insert(v);
      }
    });
    size_t upto = 0;
    for (size_t i = 0; i < pendingMma.size(); ++i)
      for (Value t : pendingMma[i].tiles)
        if (used.contains(t))
          upto = i + 1;
    waitPendingMma(upto);
  }
  // Each warpgroup waits for its own gemms: every warpgroup is done
  // reading a shared tile before any thread writes it.
  if (unsyncedSharedReads.empty())
    return;
  bool write = all || llvm::any_of(used, [&](Value v) {
                 return unsyncedSharedReads.contains(v);
               });
  if (write) {
    barrier();
    unsyncedSharedReads.clear();
  }
}

LogicalResult Distributor::lowerBlock(Block &blk) {
  size_t pendingAtEntry = pendingMma.size();
  for (Operation &op : llvm::make_early_inc_range(blk)) {
    if (isa<ReturnOp, YieldOp>(op))
      continue;
    awaitMma(&op);
    if (op.getDialect() &&
        op.getDialect()->getNamespace() == TileDialect::getDialectNamespace()) {
      if (failed(lowerOp(&op)))
        return failure();
      continue;
    }
    // An scf.if that guards one asynchronous gemm commits its group after
    // it, on both paths.
    std::optional<PendingMma> guardedRecord;
    if (GemmOp g = guardedAsyncGemm(&op)) {
      guardedRecord = pendingRecord(
          g, tgt.findMmaAtom(g->getAttrOfType<StringAttr>("atom").getValue()));
      guardedGemm = g;
    }
    // Structured control flow: opaque-order accumulators enter and leave
    // every region in their opaque order.
    if (!opaqueAccumulators.empty() && op.getNumRegions()) {
      b.setInsertionPoint(&op);
      canonicalOpaqueOrder(&op);
    }
    // A tile walk whose tiles take turns in two copies of some shared
    // tiles: each tile's body addresses copy (tile index % 2).
    SmallVector<std::pair<Value, Value>> turnBases;
    if (auto it = turnLoops.find(&op); it != turnLoops.end()) {
      auto walk = cast<scf::ForOp>(op);
      b.setInsertionPointToStart(walk.getBody());
      loc = op.getLoc();
      Value k = arith::DivUIOp::create(
          b, loc,
          arith::SubIOp::create(b, loc, walk.getInductionVar(),
                                walk.getLowerBound()),
          walk.getStep());
      Value odd = remC(k, 2);
      for (Value a : it->second) {
        SharedTile &st = shared[a];
        int64_t eb = std::max<int64_t>(1, elementBytes(st.elem));
        int64_t off =
            a.getDefiningOp()->getAttrOfType<IntegerAttr>("offset").getInt();
        turnBases.push_back({a, st.base});
        st.base =
            add(st.base,
                mul(odd, c((earlyAlt.lookup(a.getDefiningOp()) - off) / eb)));
      }
    }
    for (Region &r : op.getRegions())
      for (Block &inner : r) {
        if (failed(lowerBlock(inner)))
          return failure();
        if (!opaqueAccumulators.empty() && inner.mightHaveTerminator()) {
          b.setInsertionPoint(inner.getTerminator());
          canonicalOpaqueOrder(&op);
        }
      }
    for (auto &[a, base] : turnBases)
      shared[a].base = base;
    if (reorderFailed)
      return failure();
    if (guardedRecord) {
      guardedGemm = nullptr;
      loc = op.getLoc();
      // The path without the gemm commits an empty group (begun like any
      // sequence: ptxas fences a commit that follows no fence on some path,
      // or one after a join, itself), so that either path commits one.
      auto ifOp = cast<scf::IfOp>(op);
      Block *other = new Block();
      ifOp.getElseRegion().push_back(other);
      b.setInsertionPointToEnd(other);
      SmallVector<Value> none;
      hooks.beginMmaSequence(b, loc, *guardedRecord->atom, none);
      if (!hooks.commitMma(b, loc, *guardedRecord->atom))
        return op.emitOpError("internal: the backend cannot commit an "
                              "asynchronous gemm");
      scf::YieldOp::create(b, loc);
      pendingMma.push_back(*guardedRecord);
    }
  }
  // Nothing this block issued stays in flight past its end.
  if (pendingMma.size() > pendingAtEntry) {
    if (blk.mightHaveTerminator())
      b.setInsertionPoint(blk.getTerminator());
    else
      b.setInsertionPointToEnd(&blk);
    waitPendingMma(pendingMma.size());
  }
  return success();
}

/// Brings the opaque-order accumulators `scope` uses to their opaque order.
void Distributor::canonicalOpaqueOrder(Operation *scope) {
  llvm::SmallPtrSet<Value, 4> used;
  scope->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (opaqueAccumulators.count(v))
        used.insert(v);
  });
  // The region's code runs for every iteration (or branch) alike, so each
  // accumulator enters it in one known order: the opaque one. Uniform
  // registers are in every order already; they are marked opaque so that
  // the region's ops see what later iterations will have.
  for (Value v : used) {
    auto it = frags.find(v);
    if (it == frags.end() || !it->second.opaqueAtom)
      continue;
    if (*it->second.order == FragTile::Order::Layout)
      reorder(it->second, FragTile::Order::Opaque);
    *it->second.order = FragTile::Order::Opaque;
  }
}

/// Before `op`: the gemm whose accumulator it is needs the opaque order;
/// every other op (and a gemm reading it as an operand) the layout's. A
/// fill leaves the registers uniform.
void Distributor::reorderUsedBy(Operation *op) {
  auto gemm = dyn_cast<GemmOp>(op);
  llvm::SmallPtrSet<Value, 4> seen;
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands()) {
      auto it = frags.find(v);
      if (it == frags.end() || !it->second.opaqueAtom || !seen.insert(v).second)
        continue;
      FragTile &f = it->second;
      bool isFill = (isa<FillOp>(op) && cast<FillOp>(op).getDst() == v) ||
                    (isa<ClearOp>(op) && cast<ClearOp>(op).getDst() == v);
      if (isFill) {
        *f.order = FragTile::Order::Uniform;
        continue;
      }
      if (gemm && gemm.getC() == v) {
        if (gemm.getClear())
          *f.order = FragTile::Order::Uniform;
        else if (*f.order == FragTile::Order::Layout)
          reorder(f, FragTile::Order::Opaque);
        *f.order = FragTile::Order::Opaque;
        continue;
      }
      if (*f.order == FragTile::Order::Opaque)
        reorder(f, FragTile::Order::Layout);
      *f.order = FragTile::Order::Layout;
    }
  });
}

/// Moves each atom instance of `f` through this warp's part of its own
/// reorder region of shared memory: the backend stores (or loads) its opaque
/// order, the lanes load (or store) the elements their layout places.
void Distributor::reorder(FragTile &f, FragTile::Order to) {
  if (*f.order == to || *f.order == FragTile::Order::Uniform) {
    *f.order = to;
    return;
  }
  const target::MmaAtom &atom = *f.opaqueAtom;
  const LinearLayout &al = *atom.cLayout;
  int64_t atomRegs = al.getInDimSize(layout::kRegister);
  int64_t eb = std::max<int64_t>(1, f.elem.getIntOrFloatBitWidth() / 8);
  int64_t count = reorderBytesPerWarp / eb * numWarps;
  auto ty = MemRefType::get(
      {count}, f.elem, MemRefLayoutAttrInterface{},
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup));
  Value mem = memref::ViewOp::create(
      b, loc, ty, smemBytes,
      c(reorderBase + f.reorderSlot * reorderBytesPerWarp * numWarps),
      ValueRange{});
  Value base = mul(warp, c(reorderBytesPerWarp / eb));
  for (int64_t inst = 0; inst < f.regs / atomRegs; ++inst) {
    SmallVector<Value> regs;
    for (int64_t t = 0; t < atomRegs; ++t)
      regs.push_back(regLoad(f, inst * atomRegs + t));
    auto at = [&](int64_t t) {
      SmallVector<Value> co = coordsOf(al, t);
      return add(base, add(mul(co[0], c(atom.n)), co[1]));
    };
    if (to == FragTile::Order::Layout) {
      if (!hooks.storeAccumulator(b, loc, atom, regs, mem, base, atom.n)) {
        emitError(loc) << "the backend cannot store the accumulator of atom '"
                       << atom.name << "'";
        reorderFailed = true;
        return;
      }
      hooks.emitWarpBarrier(b, loc);
      for (int64_t t = 0; t < atomRegs; ++t)
        regStore(f, inst * atomRegs + t,
                 memref::LoadOp::create(b, loc, mem, ValueRange{at(t)}));
    } else {
      for (int64_t t = 0; t < atomRegs; ++t)
        memref::StoreOp::create(b, loc, regs[t], mem, ValueRange{at(t)});
      hooks.emitWarpBarrier(b, loc);
      SmallVector<Value> out;
      if (!hooks.loadAccumulator(b, loc, atom, mem, base, atom.n, out) ||
          int64_t(out.size()) != atomRegs) {
        emitError(loc) << "the backend cannot load the accumulator of atom '"
                       << atom.name << "'";
        reorderFailed = true;
        return;
      }
      for (int64_t t = 0; t < atomRegs; ++t)
        regStore(f, inst * atomRegs + t, out[t]);
    }
    hooks.emitWarpBarrier(b, loc);
  }
  *f.order = to;
}

/// TESSERA_ZIGZAG=0: persistent blocks deal tiles of different lengths
/// round-robin instead of in alternating directions (run()).
static bool zigzagOff() {
  const char *e = std::getenv("TESSERA_ZIGZAG");
  return e && std::string(e) == "0";
}

LogicalResult Distributor::run(DistributedKernel &out) {
  KernelOp kernel;
  body.walk([&](KernelOp k) { kernel = k; });
  if (!kernel)
    return failure();
  threads = kernel.getThreads();
  persistBlocks = hooks.persistentBlocks() && kernel->hasAttr(kPersistentAttr);
  // Why tessera-split-threads left the block with fewer threads than its
  // fragments wanted (a note on the register budget's error below).
  std::string threadsKept;
  if (auto a = kernel->getAttrOfType<StringAttr>("tile.threads_kept"))
    threadsKept = a.getValue().str();
  warpSize = tgt.warpSize;
  numWarps = threads / warpSize;
  auto sb = kernel->getAttrOfType<IntegerAttr>("tile.shared_bytes");
  if (!sb)
    return kernel.emitOpError(
        "has no shared-memory plan: run tessera-plan-shared first");
  scratchBase = llvm::alignTo(sb.getInt(), 128);
  copyWarp = copyWarpPays(kernel, sb.getInt());
  if (const char *e = std::getenv("TESSERA_EARLY_BULK");
      e && std::string(e) == "0")
    earlyBulk = false;
  planBulkStores(kernel, sb.getInt());
  if (int64_t end =
          planMulticast(kernel, planBulkPipelines(kernel, sb.getInt()));
      end > 0)
    scratchBase = llvm::alignTo(end, 128);
  // Accumulators in an opaque register order get a region of shared memory
  // per warp to reorder one atom instance through.
  ReorderRegions regions = reorderRegionsOf(kernel, tgt);
  for (auto [c, atom] : regions.accumulators) {
    opaqueAccumulators[c] = atom;
    reorderSlots.try_emplace(c, int64_t(reorderSlots.size()));
  }
  reorderBytesPerWarp = regions.bytesPerWarp;
  if (reorderBytesPerWarp) {
    reorderBase = scratchBase;
    scratchBase =
        llvm::alignTo(reorderBase + regions.bytes(threads / tgt.warpSize), 128);
  }
  placeLateStores(kernel);
  planEarlyCopies(kernel);
  planKeptLoads(kernel);
  Block &entry = body.front();
  eb.setInsertionPointToStart(&entry);
  loc = kernelLoc = kernel.getLoc();
  tid = gpu::ThreadIdOp::create(eb, loc, gpu::Dimension::x);
  lane = arith::RemUIOp::create(eb, loc, tid, idx(eb, loc, warpSize));
  warp = arith::DivUIOp::create(eb, loc, tid, idx(eb, loc, warpSize));
  auto bytesTy = MemRefType::get(
      {ShapedType::kDynamic}, eb.getIntegerType(8), MemRefLayoutAttrInterface{},
      gpu::AddressSpaceAttr::get(eb.getContext(),
                                 gpu::AddressSpace::Workgroup));
  smemBytes = gpu::DynamicSharedMemoryOp::create(eb, loc, bytesTy);
  kernel.walk([&](GemmOp g) {
    if (deferredGemm(g))
      deferrable.insert(g);
  });
  hoistRefills(kernel);
  measureLiveness(kernel);
  // Register staging only where its registers fit beside the fragments
  // live at the same time; otherwise copies go straight into the other
  // stage, which costs no registers.
  if (tgt.asyncCopy == target::AsyncCopyKind::Registers &&
      tgt.registersPerThread > 0) {
    llvm::DenseMap<Value, int64_t> estimate;
    kernel.walk([&](AsyncCopyOp ac) {
      auto sv = ac.getDst().getDefiningOp<StageViewOp>();
      if (!sv)
        return;
      auto t = cast<TileType>(sv.getResult().getType());
      int64_t per = (t.getNumElements() + threads - 1) / threads;
      estimate[sv.getBuffer()] =
          (per * std::max<int64_t>(8,
                                   t.getElementType().getIntOrFloatBitWidth()) +
           31) /
          32;
    });
    stagingAllowed = registerPeak([&](Value buf) {
                       return estimate.lookup(buf);
                     }).second <= tgt.registersPerThread;
    // Of what the fragments leave, the backend's own live values (matrix
    // operands it loads itself, addresses) take its reserve; staging holds
    // as many pieces as fit in the rest, the others go straight into the
    // stage. TESSERA_SPIRV_STAGE_BUDGET=N: N registers instead; =0: no
    // budget (the whole tile staged wherever it fits, for A/B measurements).
    int64_t reserve = hooks.stagingRegisterReserve(tgt);
    const char *env = std::getenv("TESSERA_SPIRV_STAGE_BUDGET");
    if (env && *env) {
      int64_t n = std::atoll(env);
      stagingBudget = n > 0 ? n : -1;
    } else if (reserve > 0) {
      int64_t fragments = registerPeak([](Value) { return 0; }).second;
      stagingBudget =
          std::max<int64_t>(0, tgt.registersPerThread - fragments - reserve);
    }
  }
  specialize(kernel);
  for (auto &[id, p] : bulkPipelines)
    if (!consumerThreads)
      p.empties = -1;
  if (!consumerThreads && hooks.persistentTwin() && !kernel.getGrid().empty())
    persistTwin(kernel);
  // The kernel's region becomes straight-line code in the function.
  static const gpu::Dimension dims[] = {gpu::Dimension::x, gpu::Dimension::y,
                                        gpu::Dimension::z};
  b.setInsertionPoint(kernel);
  Block &kb = kernel.getBodyBlock();
  SmallVector<Value, 3> blockIds;
  for (auto [i, arg] : llvm::enumerate(kb.getArguments()))
    blockIds.push_back(gpu::BlockIdOp::create(b, loc, dims[i]));
  // Grouped block order (tile.raster = G, see RasterOrder.cpp): the linear
  // index id = y * gx + x walks G block rows down each column, then the next
  // column; the last group takes the rows left. The grid's sizes are the
  // program's (the launch uses the same formulas), not the hardware's grid
  // registers: ROCDL has none.
  auto grouped = [&](Value x, Value y, Value gx, Value gy, int64_t G) {
    Value g = c(G);
    Value id = add(mul(y, gx), x);
    Value per = mul(g, gx);
    Value group = arith::DivUIOp::create(b, loc, id, per);
    Value firstY = mul(group, g);
    Value rows = arith::MinUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, gy, firstY), g);
    Value inGroup = arith::RemUIOp::create(b, loc, id, per);
    return std::pair<Value, Value>(
        arith::DivUIOp::create(b, loc, inGroup, rows),
        add(firstY, arith::RemUIOp::create(b, loc, inGroup, rows)));
  };
  auto raster = kernel->getAttrOfType<IntegerAttr>("tile.raster");
  int64_t G = raster ? raster.getInt() : 1;
  // Longest blocks first (tile.longest_first = [d, mode], RasterOrder.cpp):
  // index d walks from its last value down; mode 2 also makes it the
  // slowest of the linear order (x fastest otherwise).
  auto lf = kernel->getAttrOfType<DenseI64ArrayAttr>("tile.longest_first");
  auto longestFirst = [&](SmallVector<Value, 3> &ids) {
    ValueRange grid = kernel.getGrid();
    // (Not for paired blocks: a pair is two consecutive y indices of the
    // hardware's order, and the cluster rank is read from them.)
    if (!lf || lf.size() != 2 || lf[1] == 0 || lf[0] >= int64_t(ids.size()) ||
        ids.size() != grid.size() || paired)
      return;
    size_t d = size_t(lf[0]);
    if (lf[1] == 2 && ids.size() > 1) {
      Value linear = ids.back();
      for (size_t i = ids.size() - 1; i-- > 0;)
        linear = add(mul(linear, grid[i]), ids[i]);
      Value others = c(1);
      for (size_t i = 0; i < ids.size(); ++i)
        if (i != d)
          others = mul(others, grid[i]);
      Value rest = arith::RemUIOp::create(b, loc, linear, others);
      ids[d] = arith::DivUIOp::create(b, loc, linear, others);
      for (size_t i = 0; i < ids.size(); ++i)
        if (i != d) {
          ids[i] = arith::RemUIOp::create(b, loc, rest, grid[i]);
          rest = arith::DivUIOp::create(b, loc, rest, grid[i]);
        }
    }
    ids[d] = arith::SubIOp::create(
        b, loc, arith::SubIOp::create(b, loc, grid[d], c(1)), ids[d]);
  };
  longestFirst(blockIds);
  // Persistent blocks: inside each walk over the tiles, the block ids are
  // the tile's linear index split over the program's grid (x fastest), in
  // the same grouped order.
  for (scf::ForOp walk : tileLoops) {
    OpBuilder::InsertionGuard gd(b);
    b.setInsertionPointToStart(walk.getBody());
    ValueRange grid = kernel.getGrid();
    SmallVector<Value, 3> ids;
    Value rest = walk.getInductionVar();
    // Tiles of different lengths, longest first (tile.longest_first): a
    // block takes tile i of each round of G = gridDim.x tiles, but the
    // odd rounds count from the round's end (G - 1 - i), so a block that
    // got a long tile of one round gets a short one of the next. Dealt
    // round-robin instead, block i's tiles have a fixed place in each
    // round, and where lengths repeat with a period that divides neither G
    // nor the round (attention's causal blocks per head) some blocks get
    // the longer ones every time (q128 causal, 32 lengths, 132 blocks: up
    // to 12% above the mean). Each round is still the same G tiles.
    // TESSERA_ZIGZAG=0: round-robin.
    if (lf && lf.size() == 2 && lf[1] != 0 && !zigzagOff()) {
      Value t = walk.getInductionVar(), g = walk.getStep();
      Value k = arith::DivUIOp::create(b, loc, t, g);
      Value start = mul(k, g);
      Value i = arith::SubIOp::create(b, loc, t, start);
      Value n = arith::MinUIOp::create(
          b, loc, g,
          arith::SubIOp::create(b, loc, walk.getUpperBound(), start));
      Value mirrored =
          add(start, arith::SubIOp::create(
                         b, loc, arith::SubIOp::create(b, loc, n, c(1)), i));
      Value odd = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                        remC(k, 2), c(0));
      rest = arith::SelectOp::create(b, loc, odd, mirrored, t);
    }
    for (size_t i = 0; i + 1 < grid.size(); ++i) {
      ids.push_back(arith::RemUIOp::create(b, loc, rest, grid[i]));
      rest = arith::DivUIOp::create(b, loc, rest, grid[i]);
    }
    ids.push_back(rest);
    longestFirst(ids);
    if (G > 1 && ids.size() >= 2)
      std::tie(ids[0], ids[1]) = grouped(ids[0], ids[1], grid[0], grid[1], G);
    for (auto [i, arg] : llvm::enumerate(kb.getArguments()))
      arg.replaceUsesWithIf(ids[i], [&](OpOperand &u) {
        return walk->isProperAncestor(u.getOwner());
      });
  }
  if (paired) {
    // Pairs of blocks (x, 2j), (x, 2j + 1) are the unit of the order: the
    // hardware's pair (a cluster when copies are multicast) is y / 2, the
    // rank in it y % 2, and pairs walk G / 2 pair rows at a time.
    Value gx = kernel.getGrid()[0], gy = kernel.getGrid()[1];
    clusterRank = remC(blockIds[1], 2);
    Value x = blockIds[0], pair = divC(blockIds[1], 2);
    if (G > 1)
      std::tie(x, pair) =
          grouped(x, pair, gx, divC(gy, 2), std::max<int64_t>(1, G / 2));
    blockIds[0] = x;
    blockIds[1] = add(mul(pair, c(2)), clusterRank);
  } else if (G > 1 && blockIds.size() >= 2) {
    std::tie(blockIds[0], blockIds[1]) = grouped(
        blockIds[0], blockIds[1], kernel.getGrid()[0], kernel.getGrid()[1], G);
  }
  for (auto [i, arg] : llvm::enumerate(kb.getArguments()))
    arg.replaceAllUsesWith(blockIds[i]);
  Block *parent = kernel->getBlock();
  kb.getTerminator()->erase();
  // Stage barriers are initialized by one thread before anything else.
  if (!bulkPipelines.empty()) {
    {
      OpBuilder::InsertionGuard gd(b);
      firstThreadOnly();
      for (auto &[id, p] : bulkPipelines)
        for (int64_t s = 0; s < p.stages; ++s) {
          hooks.emitBarrierInit(b, loc, stageBarrier(p, c(s)),
                                p.copiesPerStage);
          if (p.empties >= 0)
            hooks.emitBarrierInit(b, loc, emptyBarrier(p, c(s)), numWarps);
          if (p.peers >= 0)
            hooks.emitBarrierInit(b, loc, peerBarrier(p, c(s)), 1);
        }
      for (auto &[id, p] : bulkPipelines)
        for (int64_t s = 0; p.early > 0 && s < p.earlyCopies; ++s) {
          hooks.emitBarrierInit(b, loc, prologueBarrier(p, false, c(s)),
                                p.early);
          if (persistent)
            hooks.emitBarrierInit(b, loc, prologueBarrier(p, true, c(s)),
                                  numWarps);
        }
      hooks.emitBarrierInitFence(b, loc);
    }
    // Every thread, the copy warp's too.
    hooks.emitBarrier(b, loc);
    // The partner's barriers are initialized before any multicast copy or
    // arrival reaches them.
    if (clustered)
      hooks.emitClusterSync(b, loc);
  }
  parent->getOperations().splice(Block::iterator(kernel), kb.getOperations());
  // No block of a cluster exits while its partner may still signal it.
  if (clustered) {
    b.setInsertionPoint(kernel);
    hooks.emitClusterSync(b, loc);
  }
  Operation *afterKernel = kernel->getNextNode();
  kernel.erase();
  if (failed(lowerBlock(entry)))
    return failure();
  // Deferred waits of bulk stores (BulkStore::deferredWait): the storing
  // thread waits for its last store's reads of shared memory before the
  // block exits.
  if (deferredStoreWait) {
    OpBuilder::InsertionGuard gd(b);
    if (afterKernel)
      b.setInsertionPoint(afterKernel);
    else
      b.setInsertionPointToEnd(parent);
    firstThreadOnly();
    hooks.emitBulkStoreWait(b, loc);
  }
  for (Operation *op : llvm::reverse(deadTiles)) {
    if (!op->use_empty())
      return op->emitOpError("internal: a tile is still used after "
                             "distribution");
    op->erase();
  }
  // The global tensors' casts are dead now: every access went to the memref.
  SmallVector<UnrealizedConversionCastOp> casts;
  body.walk([&](UnrealizedConversionCastOp c) {
    if (c->use_empty() && llvm::any_of(c->getResultTypes(), [](Type t) {
          return isa<GlobalTensorType>(t);
        }))
      casts.push_back(c);
  });
  for (auto c : casts)
    c.erase();
  // Budgets the chip imposes: registers (fragments and register staging,
  // where the most of them are live) and shared memory.
  auto [peakAt, peakWords] = registerPeak([&](Value buf) {
    auto it = stagedCopies.find(buf);
    return it == stagedCopies.end() ? int64_t(0) : it->second.words;
  });
  if (tgt.registersPerThread > 0 && peakWords > tgt.registersPerThread) {
    auto diag = emitError(kernelLoc)
                << "the kernel's fragments need " << peakWords
                << " registers per thread, more than the "
                << tgt.registersPerThread << " of target '" << tgt.name << "'";
    const LivePoint &p = livePoints[peakAt];
    for (const FragmentUse &u : p.fragments)
      diag.attachNote(u.where) << u.what << ": " << u.words << " registers";
    for (auto &[buf, sc] : stagedCopies) {
      auto r = stagingRange.lookup(buf);
      if (r.first <= peakAt && peakAt <= r.second)
        diag.attachNote(Location(sc.where))
            << "registers staging the next stage's copy: " << sc.words
            << " registers";
    }
    diag.attachNote(p.where)
        << "all of them are live across this op (a fragment's registers are "
           "free between its last read and the next op that overwrites it "
           "whole)";
    if (!threadsKept.empty())
      diag.attachNote(kernelLoc) << "tessera-split-threads: " << threadsKept;
    return failure();
  }
  out.sharedBytes = scratchBytes ? scratchBase + scratchBytes : scratchBase;
  if (out.sharedBytes > tgt.sharedMemoryPerBlockOptin &&
      tgt.sharedMemoryPerBlockOptin > 0) {
    auto diag = emitError(kernelLoc)
                << "the kernel needs " << out.sharedBytes
                << " bytes of shared memory (tiles and " << scratchBytes
                << " bytes of reduction/conversion scratch), more "
                   "than the "
                << tgt.sharedMemoryPerBlockOptin << " of target '" << tgt.name
                << "'";
    if (largestScratchAt)
      diag.attachNote(*largestScratchAt)
          << (largestScratchIsReduce ? "a reduction across warps"
                                     : "a layout conversion")
          << " stages " << scratchBytes
          << " bytes through shared memory here, after the tiles: no "
             "tile dead at this op holds them";
    return diag;
  }
  out.fragmentRegisters = fragmentWords;
  out.fragmentRegistersPeak = peakWords;
  out.bulkCopies = usedBulkCopies;
  out.threads =
      threads + (consumerThreads ? hooks.copyWarpThreads(threads) : 0);
  if (clustered)
    out.cluster[1] = 2;
  out.persistent = persistent;
  return success();
}

void Distributor::measureLiveness(KernelOp kernel) {
  FragmentLiveness live(kernel);
  // Points are the live sets of each op in program order (one or two an
  // op): an op's first and last.
  llvm::DenseMap<Operation *, std::pair<int64_t, int64_t>> at;
  for (Operation *op : live.points()) {
    int64_t first = int64_t(livePoints.size());
    for (const SmallVector<Value> &set : live.liveAcross(op)) {
      LivePoint p{op->getLoc(), 0, {}};
      for (Value v : set) {
        auto t = cast<TileType>(v.getType());
        if (int64_t w = fragmentTileWords(t)) {
          p.words += w;
          p.fragments.push_back({v.getLoc(), describeTile(t), w});
        }
      }
      livePoints.push_back(std::move(p));
    }
    at[op] = {first, int64_t(livePoints.size()) - 1};
    int64_t &most = liveWordsAt[op];
    for (size_t i = first; i < livePoints.size(); ++i)
      most = std::max(most, livePoints[i].words);
  }
  // A stage buffer's staging registers hold loads from its first copy (the
  // prologue's) until the stage wait of the loop that refills it.
  kernel.walk([&](AsyncCopyOp ac) {
    auto sv = ac.getDst().getDefiningOp<StageViewOp>();
    if (!sv)
      return;
    int64_t first = at.lookup(ac).first, last = at.lookup(ac).second;
    if (auto loop = ac->getParentOfType<scf::ForOp>();
        loop && kernel->isProperAncestor(loop))
      loop->walk([&](Operation *op) {
        if (auto it = at.find(op); it != at.end())
          last = std::max(last, it->second.second);
      });
    auto [it, fresh] = stagingRange.try_emplace(sv.getBuffer(), first, last);
    if (!fresh)
      it->second = {std::min(it->second.first, first),
                    std::max(it->second.second, last)};
  });
}

std::pair<int64_t, int64_t>
Distributor::registerPeak(llvm::function_ref<int64_t(Value)> staging) const {
  std::pair<int64_t, int64_t> best{-1, 0};
  for (auto [i, p] : llvm::enumerate(livePoints)) {
    int64_t words = p.words;
    for (auto &[buf, range] : stagingRange)
      if (range.first <= int64_t(i) && int64_t(i) <= range.second)
        words += staging(buf);
    if (best.first < 0 || words > best.second)
      best = {int64_t(i), words};
  }
  return best;
}

/// Paired blocks (tile.cluster = 2): the bulk copies of the kernel's one
/// pipelined loop whose offsets do not depend on the y block index fill the
/// same tile in both blocks of a pair, so each block copies half of it into
/// both (TargetHooks::emitBulkCopyMulticast) and the pair launches as a
/// cluster. A refill then writes into the partner's stage too, so it waits
/// until the partner has released that stage (a per-stage barrier placed
/// from byte `base` on). Returns the end of those barriers (or `base`).
int64_t Distributor::planMulticast(KernelOp kernel, int64_t base) {
  auto cl = kernel->getAttrOfType<IntegerAttr>("tile.cluster");
  paired = cl && cl.getInt() == 2 && kernel->hasAttr("tile.cluster_rounded") &&
           kernel.getGrid().size() >= 2;
  // (With a copy warp, the copy warps of the pair tell each other of their
  // consumers' releases: specialize. Not with persistent blocks, whose
  // walk over the tiles has no pairs.)
  if (!paired || hooks.clusterMulticast() < 2 || bulkPipelines.size() != 1 ||
      (copyWarp && persistBlocks))
    return base;
  // Both blocks of a pair must run the same iterations of the same loop.
  SmallVector<scf::ForOp> loops;
  kernel.walk([&](scf::ForOp f) {
    if (f->hasAttr("tile.num_stages"))
      loops.push_back(f);
  });
  llvm::DenseMap<Value, unsigned> memo;
  constexpr unsigned Y = 2;
  if (loops.size() != 1 || loops[0]->getBlock() != &kernel.getBodyBlock() ||
      ((blockDeps(loops[0].getLowerBound(), kernel, memo) |
        blockDeps(loops[0].getUpperBound(), kernel, memo) |
        blockDeps(loops[0].getStep(), kernel, memo)) &
       Y))
    return base;
  kernel.walk([&](AsyncCopyOp ac) {
    std::optional<BulkCopy> bc = bulkCopyOf(ac);
    // Halves of whole swizzle atoms (8 rows).
    if (!bulkPipelineOf(ac) || !bc || bc->rows % 16)
      return;
    unsigned d = 0;
    for (Value o : ac.getSrcOffsets())
      d |= blockDeps(o, kernel, memo);
    if (!(d & Y))
      multicastCopies.insert(ac);
  });
  if (multicastCopies.empty())
    return base;
  clustered = true;
  BulkPipeline &p = bulkPipelines.begin()->second;
  int64_t bytes = hooks.stageBarrierBytes();
  int64_t at = llvm::alignTo(base, bytes);
  p.peers = at;
  return at + p.stages * bytes;
}

/// Before the first multicast copy of a loop's refill at iteration t: this
/// block releases to its partner the stage iteration t - 1 read (its reads
/// are done where the refill is issued), then, where the refill overwrites
/// a stage used before, waits for the partner's release of that use. The
/// pipeline (tessera-pipeline-loops) refills the stage read at t - 2 in
/// paired kernels, released by the partner an iteration earlier.
LogicalResult Distributor::releasePartnerStage(AsyncCopyOp ac,
                                               const BulkPipeline &p) {
  // Prologue copies fill stages never used before: nothing to release.
  auto inLoop = ac->getParentOfType<scf::ForOp>();
  if (!inLoop || !inLoop->hasAttr("tile.num_stages"))
    return success();
  // A refill is `scf.if (next < ub)` right in the loop (tessera-pipeline);
  // anything else would multicast into a stage the partner may still read.
  auto issue = dyn_cast<scf::IfOp>(ac->getParentOp());
  auto loop = issue ? dyn_cast<scf::ForOp>(issue->getParentOp()) : scf::ForOp();
  auto cmp = issue ? issue.getCondition().getDefiningOp<arith::CmpIOp>()
                   : arith::CmpIOp();
  auto sv = ac.getDst().getDefiningOp<StageViewOp>();
  if (loop != inLoop || !cmp ||
      cmp.getPredicate() != arith::CmpIPredicate::ult || !sv)
    return ac.emitOpError("internal: a multicast refill is not in the form "
                          "tessera-pipeline-loops gives it");
  if (!releasedIssues.insert(issue).second)
    return success();
  // Iteration numbers (from 0) of this iteration and of the one refilled.
  auto iteration = [&](Value iv) {
    return arith::DivUIOp::create(
        b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()),
        loop.getStep());
  };
  Value t = iteration(loop.getInductionVar());
  Value tn = iteration(cmp.getLhs());
  Value partner = xorI(clusterRank, c(1));
  {
    Value later =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, t, c(1));
    auto ifOp = scf::IfOp::create(b, loc, later, /*withElse=*/false);
    OpBuilder::InsertionGuard gd(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    Value prev = remC(arith::SubIOp::create(b, loc, t, c(1)), p.stages);
    hooks.emitClusterArrive(b, loc, peerBarrier(p, prev), partner);
  }
  Value reused =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, tn, c(p.stages));
  auto ifOp = scf::IfOp::create(b, loc, reused, /*withElse=*/false);
  OpBuilder::InsertionGuard gd(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  // The stage's use u = tn / S waits for the partner's release of use
  // u - 1: phase u - 1 of the barrier.
  Value parity =
      remC(arith::SubIOp::create(b, loc, divC(tn, p.stages), c(1)), 2);
  hooks.emitClusterBarrierWait(b, loc, peerBarrier(p, sv.getStage()), parity);
  return success();
}

/// tessera-pipeline issues the copies of iteration i + S - 1 at the end of
/// iteration i, after its compute, where asynchronous MMAs of iteration
/// i - 1 (deferred, TargetHooks::mmaIsAsync) are known to be done with the
/// stage those copies overwrite. In a loop without such MMAs every read of
/// that stage ended before the barrier of iteration i's wait, so the copies
/// move up to right after it and overlap the whole compute of iteration i
/// (with 2 stages there is no overlap otherwise).
void Distributor::hoistRefills(KernelOp kernel) {
  SmallVector<scf::ForOp> loops;
  kernel.walk([&](scf::ForOp f) {
    if (f->hasAttr("tile.num_stages"))
      loops.push_back(f);
  });
  for (scf::ForOp loop : loops) {
    bool async = false;
    loop.walk([&](GemmOp g) {
      auto name = g->getAttrOfType<StringAttr>("atom");
      const target::MmaAtom *atom =
          name ? tgt.findMmaAtom(name.getValue()) : nullptr;
      async |= atom && (deferrable.contains(g) || g->hasAttr(kMmaAsyncAttr)) &&
               hooks.mmaIsAsync(*atom);
    });
    if (async)
      continue;
    Block *body = loop.getBody();
    WaitGroupOp wait;
    scf::IfOp issue;
    CommitGroupOp commit;
    for (Operation &op : body->without_terminator()) {
      if (auto w = dyn_cast<WaitGroupOp>(op); w && !wait)
        wait = w;
      if (auto i = dyn_cast<scf::IfOp>(op)) {
        bool copies = false;
        i.walk([&](AsyncCopyOp) { copies = true; });
        if (copies)
          issue = i;
      }
      if (auto cg = dyn_cast<CommitGroupOp>(op))
        commit = cg;
    }
    if (!wait || !issue || !commit || !wait->isBeforeInBlock(issue) ||
        !issue->isBeforeInBlock(commit))
      continue;
    // What the issue needs from the loop body, moved up with it: pure ops
    // only, none of them defined at or before the wait needs moving.
    llvm::SetVector<Operation *> slice;
    bool pure = true;
    std::function<void(Value)> need = [&](Value v) {
      Operation *d = v.getDefiningOp();
      // Defined outside the body or before the wait: dominates already.
      if (!pure || !d || d->getBlock() != body || slice.contains(d) ||
          !wait->isBeforeInBlock(d))
        return;
      if (d->getNumRegions() || !isMemoryEffectFree(d)) {
        pure = false;
        return;
      }
      for (Value o : d->getOperands())
        need(o);
      slice.insert(d);
    };
    issue.walk([&](Operation *op) {
      for (Value o : op->getOperands())
        need(o);
    });
    if (!pure)
      continue;
    Operation *at = wait->getNextNode();
    for (Operation *op : slice) // in dependence order
      op->moveBefore(at);
    issue->moveBefore(at);
    commit->moveBefore(at);
  }
}

/// Warp specialization (TargetHooks::copyWarpThreads): a kernel whose one
/// pipelined loop runs on stage barriers, at the top level of its body, gets
/// a copy warp after its threads:
///   allocs
///   if (tid >= threads) {                 // the copy warp
///     if (tid == threads)
///       for each iteration t of the loop:
///         if (t >= S) wait until the consumers released stage t % S
///         copies of iteration t -> stage t % S
///   } else {                              // the kernel's threads
///     the body, without the prologue's copies; in the loop, where the
///     copies of iteration t + S - 1 were issued, each warp releases stage
///     (t - 1) % S (its reads of it are done: the deferred MMA wait)
///   }
/// The copies' offsets and the loop bounds must be pure functions of values
/// the copy warp can recompute; otherwise the kernel stays as it is.
void Distributor::specialize(KernelOp kernel) {
  int64_t extra = hooks.copyWarpThreads(threads);
  if (!copyWarp || extra <= 0 || bulkPipelines.size() != 1)
    return;
  Block &kb = kernel.getBodyBlock();
  SmallVector<scf::ForOp> loops;
  kernel.walk([&](scf::ForOp f) {
    if (f->hasAttr("tile.num_stages"))
      loops.push_back(f);
  });
  if (loops.size() != 1 || loops[0]->getBlock() != &kb)
    return;
  scf::ForOp loop = loops[0];
  int64_t id = bulkPipelines.begin()->first;
  BulkPipeline &pipe = bulkPipelines.begin()->second;
  auto ours = [&](Operation *op) {
    auto a = op->getAttrOfType<IntegerAttr>("tile.pipeline");
    return a && a.getInt() == id;
  };
  auto copiesIn = [&](Operation *op) {
    int64_t n = 0;
    op->walk([&](AsyncCopyOp ac) { n += ours(ac); });
    return n;
  };
  int64_t total = copiesIn(kernel);
  // The loop's issue (an scf.if on `next < ub`) and the prologue's.
  scf::IfOp issue;
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto i = dyn_cast<scf::IfOp>(op); i && copiesIn(i)) {
      if (issue)
        return;
      issue = i;
    }
  if (!issue || issue.getNumResults() || !issue.getElseRegion().empty())
    return;
  SmallVector<Operation *> prologue;
  int64_t found = copiesIn(issue);
  for (Operation &op : kb) {
    if (&op == loop.getOperation())
      break;
    if (auto i = dyn_cast<scf::IfOp>(op); i && copiesIn(i)) {
      prologue.push_back(i);
      found += copiesIn(i);
    }
  }
  if (found != total || total == 0)
    return;
  auto cmp = issue.getCondition().getDefiningOp<arith::CmpIOp>();
  StageViewOp view;
  issue.walk([&](StageViewOp v) { view = v; });
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::ult || !view)
    return;
  Value next = cmp.getLhs(), nslot = view.getStage();
  // Every alloc at the top level (they move before the split).
  bool allocsTop = true;
  kernel.walk([&](AllocOp a) { allocsTop &= a->getBlock() == &kb; });
  if (!allocsTop)
    return;

  // What the copy warp recomputes: the pure producers of the loop bounds and
  // of every value the issue uses from outside it (but next and nslot).
  llvm::SetVector<Operation *> slice;
  bool pure = true;
  std::function<void(Value)> need = [&](Value v) {
    if (!pure || v == next || v == nslot)
      return;
    Operation *d = v.getDefiningOp();
    if (!d) {
      // Block arguments: the kernel's block ids are fine; the loop's
      // induction variable (or another loop's) is not.
      auto arg = cast<BlockArgument>(v);
      if (arg.getOwner() != &kb &&
          kernel->isAncestor(arg.getOwner()->getParentOp()))
        pure = false;
      return;
    }
    if (issue->isAncestor(d) || isa<AllocOp>(d) || !kernel->isAncestor(d))
      return;
    if (slice.contains(d))
      return;
    if (d->getNumRegions() || (!isMemoryEffectFree(d) && !isa<DimOp>(d))) {
      pure = false;
      return;
    }
    for (Value o : d->getOperands())
      need(o);
    slice.insert(d);
  };
  need(loop.getLowerBound());
  need(loop.getUpperBound());
  need(loop.getStep());
  for (Operation &top : issue.thenBlock()->without_terminator())
    top.walk([&](Operation *op) {
      for (Value o : op->getOperands())
        need(o);
    });
  if (!pure)
    return;
  SmallVector<CopyOp> early =
      earlyBulkCopies(kernel, loop, prologue, need, pure);
  // Persistent blocks: the stage barriers' phases run on across the tiles a
  // block walks, so both roles count iterations from a running base; the
  // copy warp fills the next tile's stages while the consumers finish the
  // last, which needs stage bytes no other tile shares.
  // The loop's stage wait names slot t % S of its iteration number t
  // (tessera-pipeline-loops); persistent, t counts from the base.
  Value pt;
  WaitGroupOp stageWait;
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto w = dyn_cast<WaitGroupOp>(op);
        w && ours(w) && w.getStage().size() == 2)
      if (auto r = w.getStage()[0].getDefiningOp<arith::RemUIOp>()) {
        pt = r.getLhs();
        stageWait = w;
      }
  bool persist = persistBlocks && !kernel.getGrid().empty() && pt &&
                 stagesExclusive(kernel);
  // (Persistent blocks copy them again for each tile, once the consumers
  // have released the last tile's: their bytes are no other tile's then,
  // planBulkStores.)
  if (persist)
    llvm::erase_if(early, [&](CopyOp cp) {
      return !bytesExclusive(kernel, cp.getDst().getDefiningOp<AllocOp>());
    });
  // Tiles take turns in two copies of the early tiles where each has one
  // (planEarlyCopies): copy k % D of tile k, D = pipe.earlyCopies.
  SmallVector<Value> turnAllocs;
  for (CopyOp cp : early)
    turnAllocs.push_back(cp.getDst());
  if (persist && !early.empty() && llvm::all_of(early, [&](CopyOp cp) {
        return earlyAlt.count(cp.getDst().getDefiningOp());
      }))
    pipe.earlyCopies = 2;
  const int64_t D = pipe.earlyCopies;
  auto tileIndex = [&](scf::ForOp walk) {
    Location l = walk.getLoc();
    return arith::DivUIOp::create(b, l,
                                  arith::SubIOp::create(b, l,
                                                        walk.getInductionVar(),
                                                        walk.getLowerBound()),
                                  walk.getStep())
        .getResult();
  };

  // Allocs first, then the split.
  Operation *firstOp = &kb.front();
  for (Operation &op : llvm::make_early_inc_range(kb))
    if (isa<AllocOp>(op) && &op != firstOp)
      op.moveBefore(firstOp);
  OpBuilder::InsertionGuard gd(b);
  Operation *afterAllocs = &kb.front();
  while (isa<AllocOp>(afterAllocs))
    afterAllocs = afterAllocs->getNextNode();
  b.setInsertionPoint(afterAllocs);
  Location l = loop.getLoc();
  loc = l;
  Value isCopyWarp =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge, tid, c(threads));
  auto split = scf::IfOp::create(b, l, isCopyWarp, /*withElse=*/true);
  // The consumers: everything after the split.
  Block *consumers = split.elseBlock();
  // (Every alloc is before the split; the kernel's terminator stays.)
  while (!split->getNextNode()->hasTrait<OpTrait::IsTerminator>())
    split->getNextNode()->moveBefore(consumers->getTerminator());
  // The trip count of the pipelined loop for one tile (both roles compute
  // it from the same bounds).
  auto tripCount = [&](Value lo, Value hi, Value st) {
    Value any = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ugt, hi, lo);
    Value n = arith::CeilDivUIOp::create(
        b, l, arith::SubIOp::create(b, l, hi, lo), st);
    return arith::SelectOp::create(b, l, any, n, c(0)).getResult();
  };
  // The consumers' walk over the tiles: the body moves into it.
  Value cBase;
  scf::ForOp cTiles;
  if (persist) {
    SmallVector<Operation *> body;
    for (Operation &op : consumers->without_terminator())
      body.push_back(&op);
    b.setInsertionPoint(consumers->getTerminator());
    cTiles = beginTileLoop(kernel, l, ValueRange{c(0)});
    cBase = cTiles.getRegionIterArgs()[0];
    Block *tb = cTiles.getBody();
    for (Operation *op : body)
      op->moveBefore(tb, tb->end());
  }
  // The copy warp.
  b.setInsertionPoint(consumers, consumers->begin());
  hooks.emitRoleStart(b, l, /*copyRole=*/false, threads, extra);
  b.setInsertionPoint(split.thenBlock()->getTerminator());
  hooks.emitRoleStart(b, l, /*copyRole=*/true, threads, extra);
  Value one =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, tid, c(threads));
  auto only = scf::IfOp::create(b, l, one, /*withElse=*/false);
  b.setInsertionPoint(only.thenBlock()->getTerminator());
  Value pBase;
  scf::ForOp pTiles;
  if (persist) {
    pTiles = beginTileLoop(kernel, l, ValueRange{c(0)});
    pBase = pTiles.getRegionIterArgs()[0];
    b.setInsertionPointToStart(pTiles.getBody());
  }
  IRMapping map;
  for (Operation *op : slice)
    b.clone(*op, map);
  // Persistent blocks copy the early tiles after the tile's first stage (in
  // the loop's first iteration; after the loop where it has none): the
  // consumers release the last tile's early tiles only after their loop,
  // and the next tile's first stage, whose slot the consumers free
  // earlier, would wait behind them. (No early copies, no wait: nothing
  // would arrive on their release barrier.)
  bool earlyAfterFirst = persist && !early.empty();
  // The early copies: the loop's first iteration reads them with its first
  // stage. Persistent, tile k fills copy k % D of the early tiles once tile
  // k - D, the copy's last user, has released it: that copy's release
  // barrier completes once per D tiles, here its (k / D - 1)-th time.
  auto issueEarly = [&]() {
    Value slot;
    if (earlyAfterFirst) {
      Value k = tileIndex(pTiles);
      slot = remC(k, D);
      auto again = scf::IfOp::create(
          b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge, k, c(D)),
          /*withElse=*/false);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPoint(again.thenBlock()->getTerminator());
      hooks.emitBarrierWait(b, l, prologueBarrier(pipe, /*empty=*/true, slot),
                            remC(add(divC(k, D), c(1)), 2));
    }
    for (CopyOp cp : early) {
      Operation *cl = b.clone(*cp, map);
      cl->setAttr("tile.early_bulk", b.getUnitAttr());
      cl->setAttr("tile.pipeline", b.getI64IntegerAttr(id));
      if (slot)
        earlySlot[cl] = slot;
    }
  };
  if (!earlyAfterFirst)
    issueEarly();
  pipe.early = int64_t(early.size());
  Value lb = map.lookupOrDefault(loop.getLowerBound());
  Value ub = map.lookupOrDefault(loop.getUpperBound());
  Value step = map.lookupOrDefault(loop.getStep());
  auto fill = scf::ForOp::create(b, l, lb, ub, step);
  if (persist) {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointAfter(fill);
    scf::YieldOp::create(b, l, add(pBase, tripCount(lb, ub, step)));
  }
  if (earlyAfterFirst) {
    // (Before the tile walk's yield, which comes right after the loop.)
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointAfter(fill);
    auto none = scf::IfOp::create(
        b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge, lb, ub),
        /*withElse=*/false);
    b.setInsertionPoint(none.thenBlock()->getTerminator());
    issueEarly();
  }
  // Unrolling the copy warp's loop gains nothing (each iteration waits for
  // a stage the consumers release) and costs compile time: LLVM -O3 copied
  // it six times in gemm.mlir, 40% more SASS for ptxas to schedule. The
  // cuda backend turns kNoUnrollAttr into LLVM loop metadata.
  fill->setAttr(kNoUnrollAttr, b.getUnitAttr());

  b.setInsertionPoint(fill.getBody()->getTerminator());
  int64_t S = pipe.stages;
  // The iteration's number among all the block's iterations (persistent:
  // after those of its earlier tiles).
  Value t = arith::DivUIOp::create(
      b, l, arith::SubIOp::create(b, l, fill.getInductionVar(), lb), step);
  if (persist)
    t = add(t, pBase);
  Value slot = remC(t, S);
  Value reuse = arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge, t, c(S));
  auto wait = scf::IfOp::create(b, l, reuse, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPoint(wait.thenBlock()->getTerminator());
    // Release number t / S - 1 of the stage: parity (t / S + 1) % 2.
    Value parity = remC(add(divC(t, S), c(1)), 2);
    hooks.emitBarrierWait(b, l, emptyBarrier(pipe, slot), parity);
    // Paired blocks whose copies multicast (planMulticast): this block's
    // consumers are done with the stage, which the partner's copy warp may
    // now fill with its half: tell it, then wait for the same word from
    // it before filling the partner's stage with ours. (The block's y
    // index is its pair's y times two plus its rank in the cluster.)
    if (clustered) {
      Value partner = xorI(remC(kb.getArgument(1), 2), c(1));
      hooks.emitClusterArrive(b, l, peerBarrier(pipe, slot), partner);
      hooks.emitClusterBarrierWait(b, l, peerBarrier(pipe, slot), parity);
    }
  }
  map.map(next, fill.getInductionVar());
  map.map(nslot, slot);
  for (Operation &op : issue.thenBlock()->without_terminator()) {
    Operation *cl = b.clone(op, map);
    SmallVector<AsyncCopyOp> from, to;
    op.walk([&](AsyncCopyOp ac) { from.push_back(ac); });
    cl->walk([&](AsyncCopyOp ac) {
      ac->setAttr("tile.copy_warp", b.getUnitAttr());
      to.push_back(ac);
    });
    // (The clones multicast where the copies they stand for would have.)
    for (auto [f, t2] : llvm::zip(from, to))
      if (multicastCopies.contains(f))
        multicastCopies.insert(t2);
  }
  if (earlyAfterFirst) {
    auto first =
        scf::IfOp::create(b, l,
                          arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                                fill.getInductionVar(), lb),
                          /*withElse=*/false);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPoint(first.thenBlock()->getTerminator());
    issueEarly();
  }
  // The consumers: no prologue copies or commits; the loop's issue becomes
  // the release of the stage the previous iteration read.
  for (Operation *op : prologue)
    op->erase();
  // Where an early copy was, the consumers wait for it (phase 0: the
  // barrier completes once; persistent, once per tile).
  for (CopyOp cp : early) {
    b.setInsertionPoint(cp);
    Value k = persist ? tileIndex(cTiles) : Value();
    hooks.emitBarrierWait(
        b, cp.getLoc(),
        prologueBarrier(pipe, /*empty=*/false, persist ? remC(k, D) : Value()),
        persist ? remC(divC(k, D), 2) : c(0));
    cp->erase();
  }
  SmallVector<Operation *> commits;
  kernel.walk([&](CommitGroupOp cg) {
    if (ours(cg))
      commits.push_back(cg);
  });
  for (Operation *op : commits)
    op->erase();
  b.setInsertionPoint(issue);
  Value ct = arith::DivUIOp::create(
      b, l,
      arith::SubIOp::create(b, l, loop.getInductionVar(), loop.getLowerBound()),
      loop.getStep());
  Value release = arith::AndIOp::create(
      b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge, ct, c(1)),
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, lane, c(0)));
  auto rel = scf::IfOp::create(b, l, release, /*withElse=*/false);
  b.setInsertionPoint(rel.thenBlock()->getTerminator());
  Value prev =
      remC(arith::SubIOp::create(b, l, persist ? add(ct, cBase) : ct, c(1)), S);
  hooks.emitBarrierArriveExpect(b, l, emptyBarrier(pipe, prev), 0);
  issue.erase();
  consumerThreads = threads;
  planTurns(loop);
  if (!persist)
    return;
  // The stage and phase the consumers wait for, and the stage they read,
  // count from the base too (new values: the program may share the old).
  {
    b.setInsertionPoint(stageWait);
    Value gt = add(pt, cBase);
    Value oldSlot = stageWait.getStage()[0];
    Value oldPhase = stageWait.getStage()[1];
    Value slot = remC(gt, S), phase = remC(divC(gt, S), 2);
    oldSlot.replaceUsesWithIf(slot, [&](OpOperand &u) {
      return loop->isProperAncestor(u.getOwner()) &&
             (u.getOwner() == stageWait.getOperation() ||
              isa<StageViewOp>(u.getOwner()));
    });
    oldPhase.replaceUsesWithIf(phase, [&](OpOperand &u) {
      return u.getOwner() == stageWait.getOperation();
    });
  }
  // After the loop (its drain waited for the last gemms): release the stage
  // of the tile's last iteration, which no later iteration of this tile
  // releases; then the tile's epilogue, and every consumer is done with the
  // tile's shared tiles before the next tile writes them.
  WaitGroupOp drain;
  for (Operation *op = loop->getNextNode(); op && !drain;
       op = op->getNextNode())
    if (auto w = dyn_cast<WaitGroupOp>(op); w && ours(w))
      drain = w;
  b.setInsertionPointAfter(drain ? drain.getOperation() : loop.getOperation());
  Value n =
      tripCount(loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
  Value last = arith::AndIOp::create(
      b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge, n, c(1)),
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, lane, c(0)));
  auto relLast = scf::IfOp::create(b, l, last, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPoint(relLast.thenBlock()->getTerminator());
    Value lastSlot = remC(arith::SubIOp::create(b, l, add(cBase, n), c(1)), S);
    hooks.emitBarrierArriveExpect(b, l, emptyBarrier(pipe, lastSlot), 0);
  }
  // The early copies' tiles are read (the drain waited for the gemms):
  // the copy warp may copy the next tile's.
  if (!early.empty()) {
    auto rel = scf::IfOp::create(
        b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, lane, c(0)),
        /*withElse=*/false);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPoint(rel.thenBlock()->getTerminator());
    hooks.emitBarrierArriveExpect(
        b, l, prologueBarrier(pipe, /*empty=*/true, remC(tileIndex(cTiles), D)),
        0);
  }
  // (Only reads of this tile's shared tiles before the next tile's writes:
  // the gemms reading them were waited for; no fence for the epilogue's
  // stores to drain.)
  b.setInsertionPointToEnd(cTiles.getBody());
  hooks.emitPartialBarrier(b, l, threads, /*untilReads=*/true);
  scf::YieldOp::create(b, l, add(cBase, n));
  if (D == 2) {
    turnLoops[cTiles] = turnAllocs;
    turnLoops[pTiles] = turnAllocs;
  }
  persistent = true;
}

/// Early bulk copies (specialize): copies of a global tensor into a whole
/// shared tile at the top level before a warp-specialized loop (attention's
/// Q block, a loop-invariant operand) that the copy warp issues as bulk
/// copies before its first stage, completing on a barrier of their own; the
/// consumers wait on it where the copy was instead of loading the tile
/// themselves between two block barriers. Each copy must
/// - be a bulk copy the backend accepts, into a tile no other op writes
///   (its other users read it: gemm operands, copies from it) and some op
///   of the loop reads, so that its bytes are no stage's and no tile's used
///   before the loop;
/// - come before any other use of shared memory by the consumers (the copy
///   warp writes the tile before they do anything);
/// - have offsets the copy warp can recompute (`need`, which adds their
///   producers to its slice).
/// TESSERA_EARLY_BULK=0 keeps the threads' copies.
SmallVector<CopyOp> Distributor::earlyBulkCopies(
    KernelOp kernel, scf::ForOp loop, ArrayRef<Operation *> prologue,
    const std::function<void(Value)> &need, bool &pure) {
  SmallVector<CopyOp> out;
  if (!earlyBulk)
    return out;
  llvm::SmallPtrSet<Operation *, 4> issued(prologue.begin(), prologue.end());
  auto usesShared = [](Operation *op) {
    bool any = false;
    op->walk([&](Operation *x) {
      for (Value v : x->getOperands())
        if (auto t = dyn_cast<TileType>(v.getType()); t && t.isShared())
          any = true;
    });
    return any;
  };
  for (Operation &op : kernel.getBodyBlock()) {
    if (&op == loop.getOperation())
      break;
    if (issued.contains(&op) || isa<AllocOp, CommitGroupOp>(op))
      continue;
    auto cp = dyn_cast<CopyOp>(op);
    if (!cp) {
      if (usesShared(&op))
        break;
      continue;
    }
    auto alloc = cp.getDst().getDefiningOp<AllocOp>();
    if (!alloc || !alloc.getType().isShared() || cp.getTranspose() ||
        !cp.getDstOffsets().empty() ||
        !bulkCopyInto(alloc, alloc.getType(), cp.getSrc(), cp.getSrcOffsets()))
      break;
    bool onlyRead = true, readInLoop = false;
    for (Operation *u : alloc->getUsers()) {
      if (u == cp.getOperation())
        continue;
      if (auto g = dyn_cast<GemmOp>(u))
        onlyRead &= g.getC() != alloc.getResult();
      else if (auto c2 = dyn_cast<CopyOp>(u))
        onlyRead &= c2.getDst() != alloc.getResult();
      else
        onlyRead = false;
      readInLoop |= loop->isProperAncestor(u);
    }
    if (!onlyRead || !readInLoop)
      break;
    for (Value o : cp.getSrcOffsets())
      need(o);
    if (!pure) {
      // (What need added to the slice is pure; the copy warp ignores it.)
      pure = true;
      break;
    }
    out.push_back(cp);
  }
  return out;
}

LogicalResult Distributor::lowerEarlyBulkCopy(CopyOp cp) {
  const BulkPipeline *p = bulkPipelineOf(cp);
  auto alloc = cp.getDst().getDefiningOp<AllocOp>();
  auto it = shared.find(cp.getDst());
  std::optional<BulkCopy> bc =
      alloc ? bulkCopyInto(alloc, alloc.getType(), cp.getSrc(),
                           cp.getSrcOffsets())
            : std::nullopt;
  if (!p || p->prologue < 0 || !bc || it == shared.end())
    return cp.emitOpError("internal: an early bulk copy changed its mind");
  Value slot = earlySlot.lookup(cp);
  issueBulkCopy(*bc, cp.getSrc(), cp.getSrcOffsets(), it->second,
                prologueBarrier(*p, /*empty=*/false, slot));
  return success();
}

/// Ping-pong of two consumer warpgroups (TargetHooks::consumerTurns). In a
/// warp-specialized loop whose gemms run on asynchronous atoms of one
/// group each (half the consumers) and some of whose results are read in
/// the same iteration (attention's S, a block-scaled step's product), the
/// groups would issue at the same time and then both wait: the matrix
/// units idle while both do their element-wise work. Instead they take
/// turns, on a barrier each:
///   before the loop:  group 1 passes the turn to group 0
///   each gemm:        wait for the turn; issue; commit; pass the turn to
///                     the other group; wait for the atoms
///   after the loop:   group 0 takes group 1's last pass
/// so one group's element-wise work runs while the other's atoms do (the
/// FlashAttention-3 schedule). Each barrier sees as many passes as waits.
/// The cuda backend offers it with TESSERA_PINGPONG=1 (opt-in: measured
/// neutral to slower so far, docs/benchmarks.md).
void Distributor::planTurns(scf::ForOp loop) {
  if (!hooks.consumerTurns() || threads % 2)
    return;
  int64_t half = threads / 2;
  // The loop's gemms: in its body, or alone in an scf.if there (a gemm
  // that runs on into the next iteration, guarded: MmaOverlap.cpp).
  auto gemmOf = [&](Operation *op) -> GemmOp {
    if (auto g = dyn_cast<GemmOp>(op))
      return g;
    auto i = dyn_cast<scf::IfOp>(op);
    if (!i || !i.getElseRegion().empty())
      return nullptr;
    GemmOp only;
    for (Operation &o : i.thenBlock()->without_terminator()) {
      if (auto g = dyn_cast<GemmOp>(o); g && !only)
        only = g;
      else if (!isMemoryEffectFree(&o) || o.getNumRegions())
        return nullptr;
    }
    return only;
  };
  bool ok = true, readHere = false;
  int64_t found = 0, all = 0;
  loop.walk([&](GemmOp) { ++all; });
  // Runs of gemms with nothing but pure scalar ops between them take one
  // turn together (FlashAttention-3's S of one iteration and P V of the
  // last).
  SmallVector<SmallVector<Operation *>> runs;
  bool open = false;
  for (Operation &op : loop.getBody()->without_terminator()) {
    GemmOp g = gemmOf(&op);
    if (!g) {
      if (!isMemoryEffectFree(&op) || op.getNumRegions())
        open = false;
      continue;
    }
    auto name = g->getAttrOfType<StringAttr>("atom");
    const target::MmaAtom *atom =
        name ? tgt.findMmaAtom(name.getValue()) : nullptr;
    ok &= atom && hooks.mmaIsAsync(*atom) && atom->warps * warpSize == half;
    readHere |= !deferrable.contains(g);
    ++found;
    if (!open)
      runs.emplace_back();
    runs.back().push_back(&op);
    open = true;
  }
  if (!ok || found != all || !found || !readHere)
    return;
  OpBuilder::InsertionGuard g(b);
  Location l = loop.getLoc();
  b.setInsertionPoint(loop);
  Value group = arith::DivUIOp::create(b, l, tid, c(half));
  turnFirst =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, group, c(0));
  auto edges = [&](bool pre) {
    auto i = scf::IfOp::create(b, l, turnFirst, /*withElse=*/true);
    i->setAttr("tile.turn_op", b.getUnitAttr());
    OpBuilder::InsertionGuard g2(b);
    if (pre) {
      b.setInsertionPoint(i.elseBlock()->getTerminator());
      hooks.emitTurnPass(b, l, 0, threads);
    } else {
      b.setInsertionPoint(i.thenBlock()->getTerminator());
      hooks.emitTurnWait(b, l, 0, threads);
    }
  };
  edges(/*pre=*/true);
  b.setInsertionPointAfter(loop);
  edges(/*pre=*/false);
  // Each run: the turn is waited for before its first gemm and passed
  // after its last one's commit (lowerGemm, `tile.turn`), or after the
  // scf.if that guards it (both paths commit there).
  for (auto &run : runs) {
    Location rl = run.front()->getLoc();
    std::swap(loc, rl);
    b.setInsertionPoint(run.front());
    emitTurn(/*wait=*/true);
    if (auto gm = dyn_cast<GemmOp>(run.back())) {
      gm->setAttr("tile.turn", b.getUnitAttr());
    } else {
      b.setInsertionPointAfter(run.back());
      emitTurn(/*wait=*/false);
    }
    std::swap(loc, rl);
  }
}

/// A copy warp pays where the consumers' matrix atoms run asynchronously
/// (the copies would otherwise wait on them) and the block is alone on its
/// multiprocessor anyway: where two blocks stay resident without it, the
/// extra warps cost the second block, and FMA loops gain nothing (measured
/// on the zoo, docs/benchmarks.md). `sharedBytes`: the block's plan.
bool Distributor::copyWarpPays(KernelOp kernel, int64_t sharedBytes) {
  if (hooks.copyWarpThreads(threads) <= 0)
    return false;
  bool asyncMma = false;
  kernel.walk([&](GemmOp g) {
    auto loop = dyn_cast<scf::ForOp>(g->getParentOp());
    auto name = g->getAttrOfType<StringAttr>("atom");
    const target::MmaAtom *atom =
        name ? tgt.findMmaAtom(name.getValue()) : nullptr;
    asyncMma |= loop && loop->hasAttr("tile.num_stages") && atom &&
                hooks.mmaIsAsync(*atom);
  });
  if (!asyncMma)
    return false;
  int64_t words = 0;
  kernel.walk([&](AllocOp a) { words += fragmentTileWords(a.getType()); });
  return !twoBlocksPerSm(tgt, threads, sharedBytes, words);
}

scf::ForOp Distributor::beginTileLoop(KernelOp kernel, Location l,
                                      ValueRange inits) {
  Value total = c(1);
  for (Value g : kernel.getGrid())
    total = mul(total, g);
  Value first = gpu::BlockIdOp::create(b, l, gpu::Dimension::x);
  Value step = gpu::GridDimOp::create(b, l, gpu::Dimension::x);
  auto f = scf::ForOp::create(b, l, first, total, step, inits);
  tileLoops.push_back(f);
  return f;
}

/// Whether the stage buffers of the kernel's pipeline share no bytes with
/// another shared tile (the plan lets tiles of disjoint lifetimes overlap;
/// reduction and conversion scratch lives in a tile's bytes or after them).
bool Distributor::stagesExclusive(KernelOp kernel) {
  llvm::SmallPtrSet<Operation *, 4> stages;
  kernel.walk([&](StageViewOp sv) {
    if (auto a = sv.getBuffer().getDefiningOp<AllocOp>())
      stages.insert(a);
  });
  auto range = [](AllocOp a) {
    auto off = a->getAttrOfType<IntegerAttr>("offset");
    int64_t bytes = a.getType().getNumElements() *
                    elementBytes(a.getType().getElementType());
    return off ? std::pair<int64_t, int64_t>(off.getInt(), off.getInt() + bytes)
               : std::pair<int64_t, int64_t>(-1, -1);
  };
  bool ok = !stages.empty();
  kernel.walk([&](AllocOp a) {
    if (!ok || !a.getType().isShared() || stages.contains(a))
      return;
    auto [lo, hi] = range(a);
    for (Operation *s : stages) {
      auto [slo, shi] = range(cast<AllocOp>(s));
      if (slo < 0 || lo < 0 || !(hi <= slo || shi <= lo))
        ok = false;
    }
  });
  return ok;
}

/// Whether no other shared tile and no op's scratch (`tile.scratch_offset`)
/// ever uses a byte of `a`'s (persistent blocks refill an early copy's tile
/// for the next tile while this one's epilogue runs).
bool Distributor::bytesExclusive(KernelOp kernel, AllocOp a) {
  auto off = a->getAttrOfType<IntegerAttr>("offset");
  if (!off)
    return false;
  int64_t lo = off.getInt(), hi = lo + sharedTileBytes(a.getType(), 0);
  bool ok = true;
  kernel.walk([&](Operation *op) {
    int64_t olo = -1, ohi = -1;
    if (auto o = dyn_cast<AllocOp>(op); o && o != a && o.getType().isShared()) {
      auto oo = o->getAttrOfType<IntegerAttr>("offset");
      olo = oo ? oo.getInt() : 0;
      ohi =
          oo ? olo + sharedTileBytes(o.getType(), sharedRowPad(o)) : INT64_MAX;
    } else if (auto so =
                   op->getAttrOfType<IntegerAttr>("tile.scratch_offset")) {
      olo = so.getInt();
      ohi = olo + stagingScratchBytes(op);
    }
    if (olo >= 0 && olo < hi && lo < ohi)
      ok = false;
  });
  return ok;
}

/// The twin of a persistent kernel launches on its grid: its body (after
/// the allocs) walks the program's blocks the same way, with a block
/// barrier between tiles.
void Distributor::persistTwin(KernelOp kernel) {
  Block &kb = kernel.getBodyBlock();
  Operation *firstOp = &kb.front();
  for (Operation &op : llvm::make_early_inc_range(kb))
    if (isa<AllocOp>(op) && &op != firstOp)
      op.moveBefore(firstOp);
  Operation *start = &kb.front();
  while (isa<AllocOp>(start))
    start = start->getNextNode();
  OpBuilder::InsertionGuard gd(b);
  b.setInsertionPoint(start);
  Location l = kernel.getLoc();
  scf::ForOp tiles = beginTileLoop(kernel, l, ValueRange{});
  Block *tb = tiles.getBody();
  Operation *term = tb->getTerminator();
  while (!tiles->getNextNode()->hasTrait<OpTrait::IsTerminator>())
    tiles->getNextNode()->moveBefore(term);
  // Every thread's reads of the tile's shared tiles before the next tile's
  // writes (nothing to publish: no fence).
  b.setInsertionPoint(term);
  hooks.emitBarrierAfterCopies(b, l);
  persistent = true;
}

std::optional<BulkCopy> Distributor::bulkCopyOf(AsyncCopyOp ac) {
  auto sv = ac.getDst().getDefiningOp<StageViewOp>();
  auto alloc = sv ? sv.getBuffer().getDefiningOp<AllocOp>() : AllocOp();
  if (!sv)
    return std::nullopt;
  return bulkCopyInto(alloc, cast<TileType>(sv.getResult().getType()),
                      ac.getSrc(), ac.getSrcOffsets());
}

std::optional<BulkCopy> Distributor::bulkCopyInto(AllocOp alloc, TileType rt,
                                                  Value src,
                                                  ValueRange offsets) {
  auto gt = dyn_cast<GlobalTensorType>(src.getType());
  if (!alloc || !gt)
    return std::nullopt;
  // Padded rows: the box covers the pad too (the columns after the tile's,
  // or zeros past the tensor's edge), so that a narrow tile's box rows are
  // as long as a bulk copy's shortest (a staged fragment copy's
  // `tile.row_pad`, tessera-pipeline-loops; other pads keep their copies
  // element-wise).
  int64_t pad = sharedRowPad(alloc);
  if (pad > 0 &&
      (alloc->hasAttr("swizzle") || !alloc->hasAttr(kStagedFragmentAttr)))
    return std::nullopt;
  Type elem = rt.getElementType();
  if (rt.getRank() != 2 || gt.getRank() < 2 || gt.getElementType() != elem ||
      offsets.size() != size_t(gt.getRank()) || !elem.isIntOrFloat() ||
      elem.getIntOrFloatBitWidth() % 8)
    return std::nullopt;
  // The innermost offset on a 16-byte boundary, as the program's
  // arithmetic shows (boxAlignElements; the tensor's base and row pitch are
  // checked at launch).
  if (!provablyMultipleOf(offsets.back(), boxAlignElements(elementBytes(elem))))
    return std::nullopt;
  BulkCopy bc;
  bc.tensorRank = gt.getRank();
  bc.rows = rt.getShape()[0];
  bc.cols = rt.getShape()[1] + pad;
  bc.elemBytes = elem.getIntOrFloatBitWidth() / 8;
  if (auto sw = alloc->getAttrOfType<SwizzleAttr>("swizzle")) {
    bc.blockCols = sw.getBlockCols() > 0 && sw.getBlockCols() < bc.cols
                       ? sw.getBlockCols()
                       : 0;
    int64_t rowElems = bc.blockCols ? bc.blockCols : bc.cols;
    // Only the descriptor swizzle atoms (16-byte chunks over 8 rows, rows
    // as long as the atom) are a pattern a bulk copy can write.
    if (sw.getVec() * bc.elemBytes != 16 ||
        sw.getPerPhase() * sw.getMaxPhase() != 8 ||
        rowElems * bc.elemBytes != 16 * sw.getMaxPhase())
      return std::nullopt;
    bc.swizzleBytes = int(16 * sw.getMaxPhase());
  }
  if (!hooks.canBulkCopy(bc))
    return std::nullopt;
  return bc;
}

/// Decides which pipelined loops of `kernel` run on stage barriers and bulk
/// copies (all of a loop's copies must be bulk copies the backend accepts)
/// and places their barriers from byte `base` on; returns the end of the
/// barriers (0 when there are none).
int64_t Distributor::planBulkPipelines(KernelOp kernel, int64_t base) {
  std::map<int64_t, SmallVector<AsyncCopyOp>> copies;
  std::map<int64_t, bool> waitsOnStages;
  kernel.walk([&](Operation *op) {
    auto id = op->getAttrOfType<IntegerAttr>("tile.pipeline");
    if (!id)
      return;
    if (auto ac = dyn_cast<AsyncCopyOp>(op))
      copies[id.getInt()].push_back(ac);
    if (auto w = dyn_cast<WaitGroupOp>(op); w && w.getStage().size() == 2)
      waitsOnStages[id.getInt()] = true;
  });
  int64_t bytes = hooks.stageBarrierBytes();
  int64_t at = llvm::alignTo(base, bytes), end = 0;
  for (auto &[id, list] : copies) {
    if (!waitsOnStages[id])
      continue;
    auto sv = list.front().getDst().getDefiningOp<StageViewOp>();
    if (!sv)
      continue;
    int64_t stages = cast<TileType>(sv.getBuffer().getType()).getShape()[0];
    // Copies per stage: those the loop issues each iteration (the prologue
    // fills as many stages as the copies run ahead, fewer than `stages` in
    // paired kernels).
    int64_t perStage = llvm::count_if(list, [](AsyncCopyOp ac) {
      auto f = ac->getParentOfType<scf::ForOp>();
      return f && f->hasAttr("tile.num_stages");
    });
    if (stages < 2 || perStage == 0 || list.size() % perStage)
      continue;
    if (!llvm::all_of(
            list, [&](AsyncCopyOp ac) { return bulkCopyOf(ac).has_value(); }))
      continue;
    BulkPipeline p;
    p.barriers = at;
    p.stages = stages;
    p.copiesPerStage = perStage;
    at += stages * bytes;
    // Room for release barriers, should the loop be warp-specialized.
    if (copyWarp) {
      p.empties = at;
      at += stages * bytes;
      // (Two of each where persistent blocks' tiles take turns in two
      // copies of the early tiles: planEarlyCopies.)
      int64_t n = persistBlocks ? 2 : 1;
      p.prologue = at;
      p.prologueEmpty = at + n * bytes;
      at += 2 * n * bytes;
    }
    bulkPipelines[id] = p;
    end = at;
  }
  return end;
}

LogicalResult Distributor::lowerBulkCopy(AsyncCopyOp ac,
                                         const BulkPipeline &p) {
  std::optional<BulkCopy> bc = bulkCopyOf(ac);
  auto it = shared.find(ac.getDst());
  auto sv = ac.getDst().getDefiningOp<StageViewOp>();
  if (!bc || it == shared.end() || !sv)
    return ac.emitOpError("internal: a bulk copy changed its mind");
  const SharedTile &d = it->second;
  // One thread issues: thread 0, or the copy warp's (already alone there).
  OpBuilder::InsertionGuard gd(b);
  if (!ac->hasAttr("tile.copy_warp"))
    firstThreadOnly();
  bool multicast = multicastCopies.contains(ac);
  if (multicast && !ac->hasAttr("tile.copy_warp") &&
      failed(releasePartnerStage(ac, p)))
    return failure();
  issueBulkCopy(*bc, ac.getSrc(), ac.getSrcOffsets(), d,
                stageBarrier(p, sv.getStage()), multicast);
  return success();
}

void Distributor::issueBulkCopy(const BulkCopy &bc, Value src,
                                ValueRange offsets, const SharedTile &d,
                                Value bar, bool multicast) {
  Value mem = globalMemref(src);
  // A multicast tile arrives whole: half from each block of the pair.
  hooks.emitBarrierArriveExpect(b, loc, bar, bc.rows * bc.cols * bc.elemBytes);
  if (multicast)
    hooks.emitBulkCopyMulticast(b, loc, bc, mem, offsets,
                                sharedAddress(d, d.base), bar, clusterRank, 2);
  else
    hooks.emitBulkCopy(b, loc, bc, mem, offsets, sharedAddress(d, d.base), bar);
  usedBulkCopies = true;
}

/// Decides, on the tile IR as the core passes left it, which copies of a
/// fragment to a global tensor store through a staging tile and the
/// backend's bulk stores, and where the staging tile lives: the lowest
/// offset of the plan's bytes that no shared tile live at the copy holds
/// (lifetimes by top-level op of the kernel, as tessera-plan-shared measures
/// them). Where none fits, the copy keeps the threads' own stores: staging
/// never grows the block's shared memory.
void Distributor::planBulkStores(KernelOp kernel, int64_t plannedBytes) {
  SmallVector<CopyOp> copies;
  kernel.walk([&](CopyOp cp) {
    auto st = dyn_cast<TileType>(cp.getSrc().getType());
    auto gt = dyn_cast<GlobalTensorType>(cp.getDst().getType());
    // (A box starts on a 16-byte boundary of the tensor's rows, as a bulk
    // copy's does: bulkCopyInto.)
    if (st && gt && st.isFragment() && st.getLayout() && st.getRank() == 2 &&
        !cp.getTranspose() && gt.getRank() >= 2 &&
        cp.getDstOffsets().size() == size_t(gt.getRank()) &&
        provablyMultipleOf(cp.getDstOffsets().back(),
                           boxAlignElements(elementBytes(gt.getElementType()))))
      copies.push_back(cp);
  });
  if (copies.empty() || plannedBytes <= 0)
    return;
  Block &top = kernel.getBodyBlock();
  llvm::DenseMap<Operation *, int64_t> index;
  int64_t n = 0;
  for (Operation &op : top)
    index[&op] = n++;
  auto topIndex = [&](Operation *op) {
    while (op && op->getBlock() != &top)
      op = op->getParentOp();
    return op ? index.lookup(op) : int64_t(0);
  };
  struct Live {
    int64_t first, last, lo, hi;
  };
  // A kernel that will walk its tiles on persistent blocks (the conditions
  // specialize checks before the loop's shape): its copy warp
  // refills the stage buffers for the next tile while the consumers store
  // this one's, so no staging byte may be a stage buffer's, and the bytes
  // are reused by the next tile's epilogue.
  bool persist = copyWarp && persistBlocks && !kernel.getGrid().empty();
  llvm::SmallPtrSet<Operation *, 4> stageAllocs;
  if (persist) {
    kernel.walk([&](StageViewOp sv) {
      if (auto a = sv.getBuffer().getDefiningOp<AllocOp>())
        stageAllocs.insert(a);
    });
    // (And the tiles the copy warp may fill before the loop for the next
    // tile, earlyBulkCopies: any tile a top-level copy from a global
    // tensor fills.)
    if (earlyBulk)
      for (Operation &op : kernel.getBodyBlock())
        if (auto cp = dyn_cast<CopyOp>(op);
            cp && isa<GlobalTensorType>(cp.getSrc().getType()))
          if (auto a = cp.getDst().getDefiningOp<AllocOp>())
            stageAllocs.insert(a);
  }
  SmallVector<Live> tiles;
  kernel.walk([&](AllocOp a) {
    if (!a.getType().isShared())
      return;
    auto off = a->getAttrOfType<IntegerAttr>("offset");
    Live l{topIndex(a), topIndex(a), off ? off.getInt() : 0,
           off ? off.getInt() + sharedTileBytes(a.getType(), sharedRowPad(a))
               : plannedBytes};
    if (stageAllocs.contains(a)) {
      l.first = 0;
      l.last = n;
    }
    SmallVector<Value> worklist{a.getResult()};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *u : v.getUsers()) {
        l.first = std::min(l.first, topIndex(u));
        l.last = std::max(l.last, topIndex(u));
        if (auto sv = dyn_cast<StageViewOp>(u))
          worklist.push_back(sv.getResult());
      }
    }
    tiles.push_back(l);
  });
  // Whether shared memory may be used after `op`: a loop around it, or a
  // tile op after it.
  auto usedAfter = [&](Operation *op) {
    auto isTileOp = [](Operation *x) {
      return x->getDialect() &&
             x->getDialect()->getNamespace() ==
                 TileDialect::getDialectNamespace() &&
             !isa<ReturnOp, YieldOp>(x);
    };
    for (Operation *at = op; at && at != kernel.getOperation();
         at = at->getParentOp()) {
      if (at != op && isa<LoopLikeOpInterface>(at))
        return true;
      for (Operation *x = at->getNextNode(); x; x = x->getNextNode()) {
        bool found = false;
        x->walk([&](Operation *y) { found |= isTileOp(y); });
        if (found)
          return true;
      }
    }
    return false;
  };
  for (CopyOp cp : copies) {
    auto st = cast<TileType>(cp.getSrc().getType());
    Type elem = cast<GlobalTensorType>(cp.getDst().getType()).getElementType();
    if (!elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() % 8)
      continue;
    BulkCopy bc;
    bc.tensorRank = cast<GlobalTensorType>(cp.getDst().getType()).getRank();
    bc.rows = st.getShape()[0];
    bc.cols = st.getShape()[1];
    bc.elemBytes = elem.getIntOrFloatBitWidth() / 8;
    // The widest swizzle atom (16-byte chunks XORed over 8 rows of 32, 64
    // or 128 bytes) whose rows the tile's rows fill: writes of a column of
    // chunks from 8 rows then fall in distinct banks. Rows wider than 128
    // bytes are stored as 128-byte column blocks.
    int64_t rowBytes = bc.cols * bc.elemBytes;
    for (int64_t sw : {128, 64, 32})
      if (rowBytes % sw == 0 && bc.rows % 8 == 0) {
        bc.swizzleBytes = int(sw);
        bc.blockCols = rowBytes > sw ? sw / bc.elemBytes : 0;
        break;
      }
    bool byThreads = false;
    if (!hooks.canBulkStore(bc)) {
      if (!hooks.compactCopies() || persist)
        continue;
      byThreads = true;
    }
    int64_t here = topIndex(cp);
    // The bulk store's global writes complete asynchronously (by the
    // kernel's end): no op at or after the copy may touch the tensor again.
    if (llvm::any_of(cp.getDst().getUsers(), [&](Operation *u) {
          return u != cp.getOperation() && !isa<DimOp>(u) &&
                 topIndex(u) >= here;
        }))
      continue;
    int64_t bytes = bc.rows * bc.cols * bc.elemBytes;
    // Swizzles act on address bits: the tile starts at a 1024-byte
    // boundary (the longest swizzle period), like swizzled TMA tiles.
    int64_t align = bc.swizzleBytes ? 1024 : 128;
    SmallVector<int64_t> starts{0};
    for (const Live &t : tiles)
      starts.push_back(llvm::alignTo(t.hi, align));
    llvm::sort(starts);
    bool placed = false;
    for (int64_t at : starts) {
      if (at + bytes > plannedBytes)
        break;
      if (llvm::any_of(tiles, [&](const Live &t) {
            return t.first <= here && here <= t.last && t.lo < at + bytes &&
                   at < t.hi;
          }))
        continue;
      // Right after a drain (its barrier follows the MMAs' last wait) or
      // after another bulk store (its barrier follows the store's reads).
      Operation *prev = cp->getPrevNode();
      auto drain = dyn_cast_or_null<WaitGroupOp>(prev);
      bulkStores[cp] = BulkStore{bc, at, persist || usedAfter(cp),
                                 (drain && drain.getStage().empty()) ||
                                     (prev && bulkStores.count(prev)),
                                 persist};
      bulkStores[cp].byThreads = byThreads;
      placed = true;
      break;
    }
    if (!placed && persist) {
      Operation *prev = cp->getPrevNode();
      auto drain = dyn_cast_or_null<WaitGroupOp>(prev);
      bulkStores[cp] = BulkStore{bc, -1, true,
                                 (drain && drain.getStage().empty()) ||
                                     (prev && bulkStores.count(prev)),
                                 true};
      lateStores.push_back(cp);
    }
  }
}

/// The late stores' staging goes after everything else the kernel places
/// (one region for all: each store waits for its reads before the next
/// writes it), where the block's shared memory still holds it beside the
/// scratch distribution reserves; otherwise they stay element stores.
void Distributor::placeLateStores(KernelOp kernel) {
  if (lateStores.empty())
    return;
  int64_t bytes = 0;
  for (Operation *op : lateStores) {
    const BulkCopy &bc = bulkStores[op].copy;
    bytes = std::max(bytes, bc.rows * bc.cols * bc.elemBytes);
  }
  int64_t at = llvm::alignTo(scratchBase, 1024);
  bool fits = tgt.sharedMemoryPerBlockOptin <= 0 ||
              at + bytes + reservedScratchBytes(kernel) <=
                  tgt.sharedMemoryPerBlockOptin;
  for (Operation *op : lateStores) {
    if (fits) {
      bulkStores[op].offset = at;
      bulkStores[op].deferredWait = !deferStoreWaitsOff();
    } else
      bulkStores.erase(op);
  }
  if (fits)
    scratchBase = llvm::alignTo(at + bytes, 128);
}

/// Persistent blocks with a copy warp: each tile that a top-level copy from
/// a global tensor fills (an early bulk copy's, earlyBulkCopies: attention's
/// Q) gets a second copy after everything else the kernel places, where
/// shared memory still holds it beside the scratch. Tile k of a block's
/// walk reads copy k % 2, so the copy warp fills the next tile's while the
/// consumers still read this one's, instead of after their loop
/// (specialize). TESSERA_EARLY_COPIES=1: one copy.
void Distributor::planEarlyCopies(KernelOp kernel) {
  if (!copyWarp || !persistBlocks || kernel.getGrid().empty() || !earlyBulk)
    return;
  if (const char *e = std::getenv("TESSERA_EARLY_COPIES");
      e && std::string(e) == "1")
    return;
  for (Operation &op : kernel.getBodyBlock()) {
    auto cp = dyn_cast<CopyOp>(op);
    auto a = cp ? cp.getDst().getDefiningOp<AllocOp>() : AllocOp();
    if (!a || !isa<GlobalTensorType>(cp.getSrc().getType()) ||
        !a.getType().isShared() || earlyAlt.count(a) ||
        !bytesExclusive(kernel, a))
      continue;
    int64_t bytes = sharedTileBytes(a.getType(), sharedRowPad(a));
    int64_t at = llvm::alignTo(scratchBase, 1024);
    if (tgt.sharedMemoryPerBlockOptin > 0 &&
        at + bytes + reservedScratchBytes(kernel) >
            tgt.sharedMemoryPerBlockOptin)
      continue;
    earlyAlt[a] = at;
    scratchBase = llvm::alignTo(at + bytes, 128);
  }
}

/// A copy from a global tensor in a loop at the kernel's top level that a
/// later top-level loop repeats — the same tensor, the same tile type, each
/// offset the same value or computed by the same pure ops from the loops'
/// induction variables, over the same bounds — reads bytes the kernel reads
/// again (a normalization's passes over its rows): its loads ask the
/// target's cache to keep them. The later loop's reads then hit the cache
/// where the rows the resident blocks walk fit it (TESSERA_L2_KEEP=0: no).
void Distributor::planKeptLoads(KernelOp kernel) {
  static const bool off = [] {
    const char *e = std::getenv("TESSERA_L2_KEEP");
    return e && std::string(e) == "0";
  }();
  if (off)
    return;
  SmallVector<scf::ForOp> loops;
  for (Operation &op : kernel.getBodyBlock())
    if (auto f = dyn_cast<scf::ForOp>(op))
      loops.push_back(f);
  auto copiesIn = [](scf::ForOp l) {
    SmallVector<CopyOp> v;
    for (Operation &op : *l.getBody())
      if (auto cp = dyn_cast<CopyOp>(op);
          cp && isa<GlobalTensorType>(cp.getSrc().getType()) &&
          !cp.getTranspose())
        v.push_back(cp);
    return v;
  };
  // Whether `x` (in the loop of induction variable ix) and `y` (iy) are
  // the same value per iteration.
  std::function<bool(Value, Value, Value, Value, int)> same =
      [&](Value x, Value y, Value ix, Value iy, int depth) -> bool {
    if (x == ix || y == iy)
      return x == ix && y == iy;
    if (x == y)
      return true;
    Operation *dx = x.getDefiningOp(), *dy = y.getDefiningOp();
    if (!dx || !dy || depth > 8 || dx->getName() != dy->getName() ||
        dx->getAttrDictionary() != dy->getAttrDictionary() ||
        dx->getNumOperands() != dy->getNumOperands() || dx->getNumRegions() ||
        !isMemoryEffectFree(dx) ||
        cast<OpResult>(x).getResultNumber() !=
            cast<OpResult>(y).getResultNumber())
      return false;
    for (auto [a, b2] : llvm::zip(dx->getOperands(), dy->getOperands()))
      if (!same(a, b2, ix, iy, depth + 1))
        return false;
    return true;
  };
  for (size_t i = 0; i < loops.size(); ++i) {
    scf::ForOp li = loops[i];
    Value ii = li.getInductionVar();
    for (CopyOp a : copiesIn(li))
      for (size_t j = i + 1; j < loops.size() && !keptCopies.contains(a); ++j) {
        scf::ForOp lj = loops[j];
        Value ij = lj.getInductionVar();
        if (li.getLowerBound() != lj.getLowerBound() ||
            li.getUpperBound() != lj.getUpperBound() ||
            li.getStep() != lj.getStep())
          continue;
        for (CopyOp bc : copiesIn(lj))
          if (bc.getSrc() == a.getSrc() &&
              bc.getDst().getType() == a.getDst().getType() &&
              bc.getSrcOffsets().size() == a.getSrcOffsets().size() &&
              llvm::all_of(llvm::zip(a.getSrcOffsets(), bc.getSrcOffsets()),
                           [&](auto p) {
                             return same(std::get<0>(p), std::get<1>(p), ii, ij,
                                         0);
                           }))
            keptCopies.insert(a);
      }
  }
}

void Distributor::storeStagingByThreads(const SharedTile &s, int64_t at,
                                        Value mem, ValueRange off) {
  Type gElem = s.elem;
  int64_t eb = std::max<int64_t>(1, gElem.getIntOrFloatBitWidth() / 8);
  int64_t rows = s.shape[0], cols = s.shape[1];
  // Pieces of 8 bytes (inside one 16-byte chunk, which a swizzle moves
  // whole), read from the staging tile as one integer of their bits.
  int64_t pv = std::max<int64_t>(1, 8 / eb);
  while (pv > 1 && cols % pv)
    pv /= 2;
  int64_t rank = cast<MemRefType>(mem.getType()).getRank();
  SmallVector<Value> dims;
  for (int64_t k = 0; k < rank; ++k)
    dims.push_back(memref::DimOp::create(b, loc, mem, k));
  Type pieceTy = b.getIntegerType(unsigned(pv * eb * 8));
  Value pieces = scratchView(pieceTy, rows * cols / pv, at);
  Value aligned = pv > 1 ? rowsAligned(mem, dims, pv, int(eb)) : Value();
  auto vt = VectorType::get({pv}, gElem);
  scf::ForOp loop = forEachElement({rows, cols / pv}, true, [&](ValueRange iv) {
    SmallVector<Value> t{iv[0], mul(iv[1], c(pv))};
    Value bits = memref::LoadOp::create(
        b, loc, pieces, ValueRange{divC(sharedOffset(s, t), pv)});
    Value v = vector::BitCastOp::create(
        b, loc, vt,
        vector::FromElementsOp::create(b, loc, VectorType::get({1}, pieceTy),
                                       ValueRange{bits}));
    SmallVector<Value> g = globalIndex(off, t);
    SmallVector<Value> conds = outerInside(g, dims);
    SmallVector<Value> cs(conds);
    cs.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                       add(g.back(), c(pv)), dims.back()));
    if (aligned)
      cs.push_back(aligned);
    auto ifOp = scf::IfOp::create(b, loc, andAll(b, loc, cs), true);
    OpBuilder::InsertionGuard gd(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    vector::StoreOp::create(b, loc, v, mem, g, false,
                            llvm::MaybeAlign(pv * eb));
    b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
    for (int64_t i = 0; i < pv; ++i) {
      auto [gi, in] = shifted(g, conds, i, dims);
      auto one = scf::IfOp::create(b, loc, in, false);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPoint(one.thenBlock()->getTerminator());
      memref::StoreOp::create(b, loc, vector::ExtractOp::create(b, loc, v, i),
                              mem, gi);
    }
  });
  loop->setAttr(kNoUnrollAttr, b.getUnitAttr());
}

/// How many 8 x 8 matrices of 16-bit elements one matrix store
/// (TargetHooks::emitStoreMatrices) writes per group of registers of `f`
/// into staging tile `s` (4, 2 or 1), or 0 where the backend has no such
/// store or `f`'s layout is not the one its lanes hold: register bit 0 the
/// next column, lane bits columns 2 and 4 then rows 1, 2 and 4 (mma's
/// accumulators), and every other bit moving by whole rows of 8 columns
/// (16 contiguous bytes of a row in the staging tile).
int64_t Distributor::storeMatrixCount(const FragTile &f, const SharedTile &s) {
  const LinearLayout &l = f.layout;
  if (s.shape.size() != 2 || warpSize != 32 ||
      !hooks.canStoreMatrices(s.elem) || s.elem.getIntOrFloatBitWidth() != 16 ||
      (s.vec && s.vec != 8) || s.shape[1] % 8 || !l.hasInDim(layout::kLane) ||
      !l.hasInDim(layout::kRegister) ||
      l.getInDimSizeLog2(layout::kLane) != 5 ||
      l.getInDimSizeLog2(layout::kRegister) < 1)
    return 0;
  static const int32_t lanes[5][2] = {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}};
  for (int i = 0; i < 5; ++i) {
    const LinearLayout::Basis &bs = l.getBasis(layout::kLane, i);
    if (bs[0] != lanes[i][0] || bs[1] != lanes[i][1])
      return 0;
  }
  const LinearLayout::Basis &r0 = l.getBasis(layout::kRegister, 0);
  if (r0[0] != 0 || r0[1] != 1)
    return 0;
  for (const std::string &n : l.getInDimNames()) {
    if (n == layout::kLane)
      continue;
    if (n != layout::kRegister && n != layout::kWarp &&
        l.getInDimSizeLog2(n) > 0)
      return 0;
    for (int i = n == layout::kRegister ? 1 : 0; i < l.getInDimSizeLog2(n); ++i)
      if (l.getBasis(n, i)[1] % 8)
        return 0;
  }
  return int64_t(1) << std::min(2, l.getInDimSizeLog2(layout::kRegister) - 1);
}

LogicalResult Distributor::lowerBulkStore(Operation *op, const FragTile &f,
                                          Value tensor, ValueRange off,
                                          const BulkStore &st) {
  const BulkCopy &bc = st.copy;
  Value mem = globalMemref(tensor);
  Type gElem = cast<MemRefType>(mem.getType()).getElementType();
  int64_t eb = bc.elemBytes;
  // The staging tile, addressed like a shared tile with the swizzle atom.
  SharedTile s;
  s.shape = {bc.rows, bc.cols};
  s.elem = gElem;
  s.mem = scratchView(gElem, bc.rows * bc.cols, st.offset);
  s.base = c(0);
  if (bc.swizzleBytes) {
    s.vec = 16 / eb;
    s.maxPhase = bc.swizzleBytes / 16;
    s.perPhase = 8 / s.maxPhase;
    s.blockCols = bc.blockCols;
  }
  // Pieces of consecutive registers along a row, inside one 16-byte chunk
  // (the swizzle moves whole chunks) and aligned to their size: no lane,
  // warp or later register bit may move a piece by less than its length.
  // (At most 8 bytes: a piece is stored as one integer of its bits.)
  int64_t vec = f.layout.getContiguousRegisters(layout::dimName(1));
  vec = std::min<int64_t>(vec, std::max<int64_t>(1, 8 / eb));
  while (vec > 1 && f.regs % vec)
    vec /= 2;
  for (const std::string &n : f.layout.getInDimNames())
    for (int i = 0; vec > 1 && i < f.layout.getInDimSizeLog2(n); ++i)
      if (!(n == layout::kRegister && (int64_t(1) << i) < vec) &&
          f.layout.getBasis(n, i)[1] % vec)
        vec = 1;
  // The pieces go in as integers of their bits through a view of the same
  // bytes (a vector store to workgroup memory would need the backend's
  // lowering to take it).
  Type pieceTy = b.getIntegerType(unsigned(vec * eb * 8));
  // The pair of 16-bit elements at registers r, r + 1, converted.
  auto pairAt = [&](int64_t r) -> Value {
    SmallVector<Value> two{regLoad(f, r), regLoad(f, r + 1)};
    auto vt = VectorType::get({2}, gElem);
    if (isa<FloatType>(f.elem) && isa<FloatType>(gElem) &&
        f.elem.getIntOrFloatBitWidth() > gElem.getIntOrFloatBitWidth())
      return arith::TruncFOp::create(
                 b, loc, vt,
                 vector::FromElementsOp::create(
                     b, loc, VectorType::get({2}, f.elem), two))
          .getResult();
    for (Value &r : two)
      r = convertScalar(b, loc, r, gElem);
    return vector::FromElementsOp::create(b, loc, vt, two).getResult();
  };
  int64_t mats = storeMatrixCount(f, s);
  Value pieces = vec > 1 && !mats
                     ? scratchView(pieceTy, bc.rows * bc.cols / vec, st.offset)
                     : Value();
  // Every thread's reads of the bytes (dead tiles; an asynchronous MMA's
  // reads were waited for before the wait's barrier) are done; a deferred
  // wait: so are the last bulk store's (the storing thread waits for them
  // before the barrier).
  if (st.deferredWait) {
    OpBuilder::InsertionGuard gd(b);
    firstThreadOnly();
    hooks.emitBulkStoreWait(b, loc);
  }
  if (!st.afterBarrier || st.deferredWait)
    barrier();
  if (mats) {
    // Matrix stores (TargetHooks::emitStoreMatrices): registers r (bit 0:
    // the pair, bits 1 .. log2(mats): which matrix, the rest: the group)
    // hold 8 x 8 matrices laid out as the instruction's lanes hold them;
    // lane l gives the address of row l % 8 of matrix l / 8 of the group.
    const LinearLayout &l = f.layout;
    int sel = llvm::Log2_64(mats);
    SmallVector<Value> at{remC(lane, 8), c(0)};
    auto addBasis = [&](Value bit, const LinearLayout::Basis &bs) {
      for (int d = 0; d < 2; ++d)
        if (bs[d])
          at[d] = xorI(at[d], mul(bit, c(bs[d])));
    };
    if (l.hasInDim(layout::kWarp))
      for (int i = 0; i < l.getInDimSizeLog2(layout::kWarp); ++i)
        addBasis(remC(divC(warp, int64_t(1) << i), 2),
                 l.getBasis(layout::kWarp, i));
    for (int k = 1; k <= sel; ++k)
      addBasis(remC(divC(lane, int64_t(4) << k), 2),
               l.getBasis(layout::kRegister, k));
    for (int64_t base = 0; base < f.regs; base += 2 * mats) {
      Coords rc = regCoords(l, base);
      SmallVector<Value> co{rc[0] ? xorI(at[0], c(rc[0])) : at[0],
                            rc[1] ? xorI(at[1], c(rc[1])) : at[1]};
      SmallVector<Value> pairs;
      for (int64_t j = 0; j < mats; ++j)
        pairs.push_back(pairAt(base + 2 * j));
      hooks.emitStoreMatrices(b, loc, sharedAddress(s, sharedOffset(s, co)),
                              pairs);
    }
  }
  for (int64_t base = 0; !mats && base < f.regs; base += vec) {
    Value at = sharedOffset(s, coordsOf(f.layout, base));
    if (vec == 1) {
      memref::StoreOp::create(b, loc,
                              convertScalar(b, loc, regLoad(f, base), gElem),
                              s.mem, ValueRange{at});
      continue;
    }
    SmallVector<Value> regs;
    for (int64_t i = 0; i < vec; ++i)
      regs.push_back(regLoad(f, base + i));
    Value v;
    auto vt = VectorType::get({vec}, gElem);
    if (isa<FloatType>(f.elem) && isa<FloatType>(gElem) &&
        f.elem.getIntOrFloatBitWidth() > gElem.getIntOrFloatBitWidth()) {
      // Narrowed as a vector: one conversion per pair where the target has
      // one (f32 x 2 -> f16x2 / bf16x2).
      Value wide = vector::FromElementsOp::create(
          b, loc, VectorType::get({vec}, f.elem), regs);
      v = arith::TruncFOp::create(b, loc, vt, wide);
    } else {
      for (Value &r : regs)
        r = convertScalar(b, loc, r, gElem);
      v = vector::FromElementsOp::create(b, loc, vt, regs);
    }
    Value bits = vector::ExtractOp::create(
        b, loc,
        vector::BitCastOp::create(b, loc, VectorType::get({1}, pieceTy), v), 0);
    memref::StoreOp::create(b, loc, bits, pieces, ValueRange{divC(at, vec)});
  }
  if (st.byThreads) {
    barrier();
    storeStagingByThreads(s, st.offset, mem, off);
    // (Also where nothing after the copy uses shared memory: a persistent
    // twin's next tile refills the stages that held the staging tile.)
    barrier();
    return success();
  }
  hooks.emitBulkStoreBarrier(b, loc, consumerThreads);
  {
    OpBuilder::InsertionGuard gd(b);
    firstThreadOnly();
    hooks.emitBulkStore(b, loc, bc, mem, off, sharedAddress(s, s.base));
    // Before the block exits or reuses the bytes (deferred: before the next
    // store writes them, and at the kernel's end).
    if (!st.deferredWait)
      hooks.emitBulkStoreWait(b, loc);
  }
  if (st.reused && !st.deferredWait)
    barrier();
  deferredStoreWait |= st.deferredWait;
  usedBulkCopies = true;
  (void)op;
  return success();
}

} // namespace

LogicalResult distributeKernel(Region &body,
                               const target::TargetDescription &target,
                               TargetHooks &hooks, DistributedKernel &result) {
  MLIRContext *ctx = body.getContext();
  ctx->loadDialect<gpu::GPUDialect, memref::MemRefDialect, scf::SCFDialect,
                   arith::ArithDialect, math::MathDialect,
                   vector::VectorDialect>();
  Distributor d(body, target, hooks);
  try {
    return d.run(result);
  } catch (const layout::LayoutError &e) {
    return emitError(UnknownLoc::get(ctx))
           << "distribution failed: " << e.what();
  }
}

bool twoBlocksPerSm(const target::TargetDescription &tgt, int64_t threads,
                    int64_t sharedBytes, int64_t fragmentWords) {
  if (tgt.sharedMemoryPerBlockOptin <= 0 || tgt.registersPerBlock <= 0)
    return false;
  int64_t half = tgt.registersPerBlock / (2 * std::max<int64_t>(1, threads));
  bool bySmem =
      (tgt.sharedMemoryPerBlockOptin + 1024) / (sharedBytes + 1024) >= 2;
  // (Half the registers of a block over 255 per thread: two always fit.)
  return bySmem &&
         (half >= 255 || fragmentWords + kRegistersBeyondFragments <= half);
}

TargetHooks &portableHooks() {
  static PortableHooks hooks;
  return hooks;
}

} // namespace tessera::passes
