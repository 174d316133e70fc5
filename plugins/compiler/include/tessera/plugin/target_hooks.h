//===- tessera/plugin/target_hooks.h - what a backend adds to distribution
//-===//
//
// The core's distribution (core/distribute) lowers every tile op by itself to
// per-thread code over upstream dialects (gpu ids, shuffles and barriers,
// memref in workgroup memory, vector, arith, scf), driven by the layouts,
// swizzles and stages the core passes recorded. What differs between vendors
// sits behind this interface, which a compiler plugin implements: emitting a
// matrix instruction ("MMA atom" of the TargetDescription), loading an atom's
// operand from shared memory in one instruction, asynchronous global-to-shared
// copies and their groups, loads from global tensors that read zero outside
// them (buffer loads), barriers and lane shuffles.
//
// Every hook has a portable default except emitMma: a backend that returns
// false (or inherits the default) gets the core's plain code. The core never
// asks which vendor it serves; it asks these hooks.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_PLUGIN_TARGET_HOOKS_H
#define TESSERA_PLUGIN_TARGET_HOOKS_H

#include "tessera/target/TargetDescription.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>

namespace tessera {

/// Which operand of an MMA atom.
enum class MmaOperandKind { A, B };

/// A rank-2 tile in shared memory, as distribution addresses it.
struct SharedMatrix {
  /// Rows and columns of the tile as stored.
  int64_t rows = 0, cols = 0;
  /// Bytes of one element.
  int elemBytes = 0;
  /// Elements per contiguous (unswizzled) chunk of a row: the swizzle's
  /// `vec`, or `cols` when the tile is not swizzled.
  int64_t contiguousElems = 0;
  /// Elements from one row to the next: `cols`, or more where the rows are
  /// padded (unswizzled tiles read by matrix loads that take a row stride).
  int64_t rowStride = 0;
  /// Columns per column block (the tile is stored as cols/blockCols
  /// row-major blocks one after the other), or 0: one block.
  int64_t blockCols = 0;
  /// Bytes of the rows the XOR swizzle permutes within (32, 64 or 128: the
  /// swizzle atoms of matrix descriptors), or 0 when the tile is not
  /// swizzled that way.
  int swizzleBytes = 0;
  /// The shared-memory address (an `index` holding the address of the
  /// workgroup pointer, in bytes) of element (row, col); `row` and `col` are
  /// `index` values.
  std::function<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::Value row,
                            mlir::Value col)>
      addressOf;
  /// The tile as a memref: `memref` (1-D, in workgroup memory) and the index
  /// of element (row, col) in it, for backends whose matrix loads take a
  /// memref and an element index rather than an address.
  mlir::Value memref;
  std::function<mlir::Value(mlir::OpBuilder &, mlir::Location, mlir::Value row,
                            mlir::Value col)>
      offsetOf;
};

/// One operand of an MMA atom instance: registers (in the atom's register
/// order), or a shared tile read by descriptor from (row0, col0) of the
/// operand as the atom reads it (A: M x K, B: K x N); `transposed` says the
/// tile is stored the other way round.
struct MmaOperandRef {
  llvm::ArrayRef<mlir::Value> regs;
  const SharedMatrix *shared = nullptr;
  mlir::Value row0, col0;
  bool transposed = false;
};

/// A whole rank-2 shared tile filled from a global tensor by one
/// asynchronous copy (TargetHooks::canBulkCopy), or stored to one
/// (TargetHooks::canBulkStore): what a backend needs to know at compile
/// time.
struct BulkCopy {
  /// Rank of the global tensor; the tile covers its last two dims.
  int64_t tensorRank = 2;
  /// The tile as stored: rows x cols elements of elemBytes bytes, in column
  /// blocks of blockCols columns (0: one block), each block row-major.
  int64_t rows = 0, cols = 0, blockCols = 0;
  int elemBytes = 0;
  /// 0: the blocks are dense row-major; 32, 64 or 128: the 16-byte chunks of
  /// each row are XOR-permuted by the row's index as matrix descriptors'
  /// swizzle atoms of that many bytes do (the block's rows are that long).
  int swizzleBytes = 0;
};

/// A global tensor that a copy loads from through TargetHooks::loadGlobal,
/// and where in it the copy reads.
struct GlobalTensorRef {
  /// The tensor as distribution holds it: a row-major memref (its dims may
  /// be dynamic).
  mlir::Value memref;
  /// Its size in bytes: the product of its dims times the element's bytes
  /// (an `index`).
  mlir::Value extentBytes;
  /// The byte offset in the tensor of the copy's first element (the tile's
  /// origin; an `index`, possibly at or past the extent for a tile that
  /// starts outside the tensor). loadGlobal's indices count from there.
  mlir::Value originBytes;
  /// How far the copy reaches: every element it may load lies in
  /// [originBytes, originBytes + reachBytes) (an `index`).
  mlir::Value reachBytes;
  /// What the backend's beginGlobalLoads built for the copy's loads (a
  /// buffer resource, say); opaque to the core.
  mlir::Value state;
};

class TargetHooks {
public:
  virtual ~TargetHooks() = default;

  /// Whether emitMma can emit `atom`.
  virtual bool canEmitAtom(const target::MmaAtom &atom) const = 0;
  /// Whether the backend can emit `atom` for a gemm that uses it so. Layout
  /// inference chooses only among atoms for which this holds.
  virtual bool canEmitAtomFor(const target::MmaAtom &atom,
                              const target::MmaUse &) const {
    return canEmitAtom(atom);
  }

  /// Emits one instance of `atom` for the calling lane: `a` and `b` hold the
  /// lane's operand elements in the order of the atom's register layouts
  /// (register i of the layout is element i), `c` the accumulators likewise.
  /// Returns the new accumulators (same count and types as `c`).
  virtual llvm::SmallVector<mlir::Value>
  emitMma(mlir::OpBuilder &b, mlir::Location loc, const target::MmaAtom &atom,
          llvm::ArrayRef<mlir::Value> a, llvm::ArrayRef<mlir::Value> b_,
          llvm::ArrayRef<mlir::Value> c) = 0;

  /// Emits one instance of an atom that reads at least one operand from
  /// shared memory by descriptor (its layout is "shared"); same contract as
  /// emitMma otherwise. Returns an empty vector when it cannot.
  virtual llvm::SmallVector<mlir::Value>
  emitMmaShared(mlir::OpBuilder &, mlir::Location, const target::MmaAtom &,
                const MmaOperandRef & /*a*/, const MmaOperandRef & /*b*/,
                llvm::ArrayRef<mlir::Value> /*c*/) {
    return {};
  }
  /// Whether emitMmaShared can start an instance of `atom` from a zero
  /// accumulator without reading one (wgmma's scale-d = 0). Where it can, a
  /// `clear` gemm writes no zeros into its accumulator registers: the atoms
  /// of its first K step get null accumulator values in `c` and must return
  /// a*b alone (TESSERA_MMA_ZERO_START=0 turns this off).
  virtual bool mmaStartsFromZero(const target::MmaAtom &) const {
    return false;
  }
  /// Whether the operands that the atoms of a gemm read from registers are
  /// to be built before beginMmaSequence, all of them, rather than next to
  /// each instruction: matrix instructions that read registers
  /// asynchronously (wgmma's A) need them written before the fence that
  /// starts the sequence. Then prepareMmaOperands gets them.
  virtual bool mmaOperandsFirst(const target::MmaAtom &) const { return false; }
  /// The register operands of every atom instance of one gemm (each in the
  /// atom's register order), built before beginMmaSequence when
  /// mmaOperandsFirst holds. The backend may replace each by the registers
  /// its instruction reads (e.g. packed pairs), which emitMma and
  /// emitMmaShared then receive in their place.
  virtual void
  prepareMmaOperands(mlir::OpBuilder &, mlir::Location, const target::MmaAtom &,
                     llvm::MutableArrayRef<llvm::SmallVector<mlir::Value>>) {}
  /// Around the atoms of one tile.gemm: `acc` holds every accumulator of the
  /// thread (none where the gemm's first atoms start from zero, see
  /// mmaStartsFromZero); a backend whose matrix instructions run
  /// asynchronously fences them here (and may replace the values it passes
  /// on).
  virtual void beginMmaSequence(mlir::OpBuilder &, mlir::Location,
                                const target::MmaAtom &,
                                llvm::SmallVectorImpl<mlir::Value> & /*acc*/) {}
  virtual void endMmaSequence(mlir::OpBuilder &, mlir::Location,
                              const target::MmaAtom &,
                              llvm::SmallVectorImpl<mlir::Value> & /*acc*/) {}
  /// Instead of endMmaSequence, for a gemm that accumulates across the
  /// iterations of a pipelined loop and whose accumulator nothing else in the
  /// loop touches: lets the atoms just issued run on while the loop goes on,
  /// waiting only for those of the previous iteration (whose shared operands
  /// the loop overwrites next). Returns false when the backend's atoms are
  /// synchronous (then endMmaSequence is used). drainMma, emitted after the
  /// loop, waits for the rest.
  virtual bool deferMmaWait(mlir::OpBuilder &, mlir::Location,
                            const target::MmaAtom &) {
    return false;
  }
  /// Whether deferMmaWait would defer `atom` (its instructions run
  /// asynchronously and read shared operands after they are issued).
  virtual bool mmaIsAsync(const target::MmaAtom &) const { return false; }
  /// Instead of endMmaSequence, for a gemm distribution may leave running
  /// (`tile.mma_async`, an atom mmaIsAsync holds for): commits the atoms
  /// issued since the last commit as one group (none: an empty group) and
  /// returns without waiting. Returns false when it cannot (then
  /// endMmaSequence is used).
  virtual bool commitMma(mlir::OpBuilder &, mlir::Location,
                         const target::MmaAtom &) {
    return false;
  }
  /// Waits until at most `pending` of the groups commitMma committed are in
  /// flight (the newest ones). `acc` holds the accumulators of the groups
  /// that are done, which the backend fences (and may replace) as
  /// endMmaSequence does.
  virtual void waitMma(mlir::OpBuilder &, mlir::Location,
                       const target::MmaAtom &, int64_t /*pending*/,
                       llvm::SmallVectorImpl<mlir::Value> & /*acc*/) {}
  virtual void drainMma(mlir::OpBuilder &, mlir::Location,
                        const target::MmaAtom &,
                        llvm::SmallVectorImpl<mlir::Value> & /*acc*/) {}

  /// Loads the lane's `which` operand of `atom` from shared tile `m`, the
  /// atom's operand origin at (row0, col0) of the tile *as the atom reads it*
  /// (A: M x K, B: K x N); `transposed` says the tile is stored the other way
  /// round (A as K x M, B as N x K). On success appends the elements in the
  /// atom's register order to `out` and returns true; false lets the core
  /// load element by element.
  virtual bool loadMmaOperand(mlir::OpBuilder &, mlir::Location,
                              const target::MmaAtom &, MmaOperandKind,
                              const SharedMatrix &, bool /*transposed*/,
                              mlir::Value /*row0*/, mlir::Value /*col0*/,
                              mlir::Type /*elemType*/,
                              llvm::SmallVectorImpl<mlir::Value> & /*out*/) {
    return false;
  }

  /// Atoms whose accumulator order is opaque (MmaAtom::cOpaque): writes one
  /// instance's accumulators `regs` (the backend's order) to shared memory
  /// as a row-major m x n tile of `memref` (1-D, workgroup memory, the
  /// accumulator's element type) from element `offset` with rows `stride`
  /// elements apart. Every lane of the warp calls it. Returns false when
  /// it cannot.
  virtual bool storeAccumulator(mlir::OpBuilder &, mlir::Location,
                                const target::MmaAtom &,
                                llvm::ArrayRef<mlir::Value> /*regs*/,
                                mlir::Value /*memref*/, mlir::Value /*offset*/,
                                int64_t /*stride*/) {
    return false;
  }
  /// The reverse: one instance's accumulators from such a tile, appended to
  /// `regs` in the backend's order.
  virtual bool loadAccumulator(mlir::OpBuilder &, mlir::Location,
                               const target::MmaAtom &, mlir::Value /*memref*/,
                               mlir::Value /*offset*/, int64_t /*stride*/,
                               llvm::SmallVectorImpl<mlir::Value> & /*regs*/) {
    return false;
  }
  /// Whether copies into shared tiles should store each vector they move
  /// (`vec` elements, a whole aligned piece of one row) with one vector.store
  /// on the tile's memref, also where the global side is loaded element by
  /// element (edge tiles, register staging). The default stores elements:
  /// LLVM's vectorizer merges consecutive ones, and vector ops on workgroup
  /// memrefs need the backend's lowering to take them. Asked per piece:
  /// `n` elements of type `elem`.
  virtual bool storesSharedVectors(mlir::Type /*elem*/, int64_t /*n*/) const {
    return false;
  }

  /// Whether a fragment-to-fragment conversion (same layout) into `elem`
  /// should convert and store pairs of consecutive registers as one
  /// 2-element vector: a backend with packed 2 x 16-bit registers (and a
  /// conversion of two f32 into one) then keeps the pair packed, also where
  /// the fragment lives across a loop's iterations. The default stores
  /// elements.
  virtual bool storesFragmentPairs(mlir::Type /*elem*/) const { return false; }

  /// Registers per thread this backend's code keeps live beside the
  /// fragments while register staging (AsyncCopyKind::Registers) holds the
  /// next tile: matrix operands its atoms load themselves, addresses, loop
  /// state, none of which the core counts. Staging then holds only the
  /// pieces that fit in `registersPerThread - fragments - reserve` and
  /// copies the others straight into their stage. 0: no reserve (stage the
  /// whole tile wherever fragments and staging fit the register file).
  virtual int64_t
  stagingRegisterReserve(const target::TargetDescription & /*tgt*/) const {
    return 0;
  }

  /// A barrier among the lanes of one warp that orders their shared-memory
  /// accesses (the default: a block barrier, which every lane reaches).
  virtual void emitWarpBarrier(mlir::OpBuilder &b, mlir::Location loc) {
    emitBarrier(b, loc);
  }

  /// Starts an asynchronous copy of `bytes` bytes (4, 8 or 16) from global
  /// address `global` to shared address `shared` (both `index` values holding
  /// addresses); when `valid` (i1) is false the destination is zero-filled
  /// and the source not read. Returns false when the target has no such copy
  /// (the core then copies synchronously and groups become no-ops).
  virtual bool emitAsyncCopy(mlir::OpBuilder &, mlir::Location,
                             mlir::Value /*shared*/, mlir::Value /*global*/,
                             int /*bytes*/, mlir::Value /*valid*/) {
    return false;
  }
  /// Loads from a global tensor that read zero outside it without a branch
  /// (AMD buffer loads: a resource built from an address and a byte extent
  /// returns 0 for offsets past the extent). Distribution asks once per copy
  /// from a global tensor into shared memory, a fragment or the staging
  /// registers, before its loads and where it dominates them. Returning true
  /// commits the backend to serve every load of the copy through loadGlobal
  /// (declining single pieces only), at every size of the tensor the copy
  /// may meet at run time: a backend whose loads reach less far must stop
  /// the kernel where `t.reachBytes` exceeds their reach rather than read
  /// wrong data. The hook may record what the copy's loads share in
  /// `t.state` (a buffer resource). False (the default): the core emits its
  /// own loads, masked at the tensor's edges.
  virtual bool beginGlobalLoads(mlir::OpBuilder &, mlir::Location,
                                GlobalTensorRef & /*t*/) {
    return false;
  }
  /// Loads `n` consecutive elements of type `elem` of one row from element
  /// `index` (an `index`, counted from the copy's first element: the
  /// row-major linear index in `t.memref` minus that of the origin) of the
  /// copy prepared by beginGlobalLoads, as a `vector<n x elem>` (`elem` for
  /// n = 1), with zeros where `valid` says the data lies outside the tensor,
  /// whose memory must not be read then. `valid` is an i1 for the whole
  /// piece (a piece of n > 1 elements is then inside the tensor and aligned
  /// to its size: the core passes true), or a `vector<n x i1>` with a bit
  /// per element (the piece at a row's end or in an unaligned tensor; no
  /// alignment beyond the element's). Returns null where the backend
  /// declines the piece (the core then loads it itself, masked).
  virtual mlir::Value loadGlobal(mlir::OpBuilder &, mlir::Location,
                                 const GlobalTensorRef & /*t*/,
                                 mlir::Value /*index*/, mlir::Type /*elem*/,
                                 int64_t /*n*/, mlir::Value /*valid*/) {
    return {};
  }

  /// Closes the group of async copies issued since the last commit.
  virtual void emitCommitGroup(mlir::OpBuilder &, mlir::Location) {}
  /// Waits until at most `pending` committed groups are in flight (the core
  /// adds the block barrier).
  virtual void emitWaitGroup(mlir::OpBuilder &, mlir::Location,
                             int64_t /*pending*/) {}

  /// Whole-tile asynchronous copies (a tensor-memory accelerator): one
  /// thread copies a tile of a global tensor into shared memory, and the copy
  /// completes on a stage barrier in shared memory that counts the bytes it
  /// expects. Distribution moves a pipelined loop to them when the backend
  /// accepts every copy of the loop; the loop's waits then wait on the
  /// stage's barrier instead of on group counts.
  ///
  /// Whether emitBulkCopy can copy `c`.
  virtual bool canBulkCopy(const BulkCopy & /*c*/) const { return false; }
  /// Issues the copy of `c` (called by one thread) from `tensor` (the global
  /// row-major memref) at `offsets` (one index per tensor dim: the tile's
  /// first element) to the shared tile at address `shared` (its element
  /// (0, 0); `index`), completing on the stage barrier at `barrier`.
  virtual void emitBulkCopy(mlir::OpBuilder &, mlir::Location, const BulkCopy &,
                            mlir::Value /*tensor*/,
                            mlir::ValueRange /*offsets*/,
                            mlir::Value /*shared*/, mlir::Value /*barrier*/) {}
  /// Thread-block clusters (tile.cluster = 2, tessera-raster-order): how
  /// many blocks of a cluster one bulk copy can fill at once, or 1 when the
  /// backend has no such copy (then a paired kernel runs unclustered).
  virtual int64_t clusterMulticast() const { return 1; }
  /// Issues the share of block `rank` (an `index`, 0 .. clusterSize - 1) of
  /// copy `c`: rows [rank * rows / clusterSize, (rank + 1) * rows /
  /// clusterSize) of the tile (of each column block), written to the same
  /// shared address in every block of the cluster and completing on the
  /// barrier at `barrier` in each of them. Called by one thread of each
  /// block; each block's barrier expects the whole tile.
  virtual void
  emitBulkCopyMulticast(mlir::OpBuilder &, mlir::Location, const BulkCopy &,
                        mlir::Value /*tensor*/, mlir::ValueRange /*offsets*/,
                        mlir::Value /*shared*/, mlir::Value /*barrier*/,
                        mlir::Value /*rank*/, int64_t /*clusterSize*/) {}
  /// One arrival on the barrier at the shared address `barrier` in block
  /// `rank` of the cluster. It publishes only that the caller's reads of a
  /// stage are done (the caller has waited for them), not other writes.
  virtual void emitClusterArrive(mlir::OpBuilder &, mlir::Location,
                                 mlir::Value /*barrier*/,
                                 mlir::Value /*rank*/) {}
  /// emitBarrierWait on a barrier that other blocks of the cluster arrive
  /// on (emitClusterArrive).
  virtual void emitClusterBarrierWait(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value barrier, mlir::Value phase) {
    emitBarrierWait(b, loc, barrier, phase);
  }
  /// A barrier among every thread of every block of the cluster.
  virtual void emitClusterSync(mlir::OpBuilder &, mlir::Location) {}

  /// Bytes (and alignment) of one stage barrier.
  virtual int64_t stageBarrierBytes() const { return 8; }
  /// Initializes the barrier at `barrier` (called by one thread; the core
  /// then calls emitBarrierInitFence and a block barrier) to complete each
  /// phase after `arrivals` arrivals and their expected bytes.
  virtual void emitBarrierInit(mlir::OpBuilder &, mlir::Location,
                               mlir::Value /*barrier*/, int64_t /*arrivals*/) {}
  /// Makes barrier initializations visible to the copy engine.
  virtual void emitBarrierInitFence(mlir::OpBuilder &, mlir::Location) {}
  /// One arrival on `barrier` that also expects `bytes` more bytes of copies
  /// in the current phase (0: a plain arrival).
  virtual void emitBarrierArriveExpect(mlir::OpBuilder &, mlir::Location,
                                       mlir::Value /*barrier*/,
                                       int64_t /*bytes*/) {}
  /// Waits until the phase of parity `phase` (an `index`, 0 or 1) of
  /// `barrier` has completed.
  virtual void emitBarrierWait(mlir::OpBuilder &, mlir::Location,
                               mlir::Value /*barrier*/, mlir::Value /*phase*/) {
  }

  /// Warp specialization of a pipelined loop on stage barriers: a backend
  /// that returns n > 0 (a multiple of the warp size) gets n more threads per
  /// block, after the kernel's own; the first of them issues every copy of
  /// the loop, waiting on a second barrier per stage until the kernel's
  /// threads (the consumers) have released the stage, while the consumers
  /// only wait for data. 0: no specialization.
  virtual int64_t copyWarpThreads(int64_t /*consumerThreads*/) const {
    return 0;
  }
  /// Persistent blocks for warp-specialized loops: a backend that returns
  /// true launches min(blocks, compute units) blocks (the grid formula's
  /// `__compute_units`), each walking the program's blocks in raster order;
  /// the stage barriers' phases run on from one block's tile to the next,
  /// so the copy warp fills the next tile's stages while the consumers
  /// finish the last one.
  virtual bool persistentBlocks() const { return false; }
  /// The same walk without specialization: the twin of a persistent kernel,
  /// which launches on the same grid.
  virtual bool persistentTwin() const { return false; }
  /// Code size before speed (a kernel that runs only where a faster one
  /// cannot): copies between global memory and shared tiles or fragments
  /// get only their checked form, without the version for tiles wholly
  /// inside the tensor. The cuda backend asks it for the twins of TMA
  /// kernels, whose lowering was the longer half of a compile.
  virtual bool compactCopies() const { return false; }
  /// A load of `type` (a vector of whole elements, or one element) from
  /// global address `address` (an `index`) of a tensor that a later loop of
  /// the kernel reads again (a copy repeated with the same tile and offsets:
  /// a multi-pass normalization's rows): a backend with cache eviction
  /// priorities loads it asking the L2 cache to keep the line for the
  /// later read. Returns nothing for the ordinary load.
  virtual mlir::Value loadGlobalKept(mlir::OpBuilder &, mlir::Location,
                                     mlir::Value /*address*/,
                                     mlir::Type /*type*/) {
    return {};
  }
  /// At the start of the copy warps' code (`copyRole`) and of the
  /// consumers' in a specialized kernel: where a backend moves registers
  /// from the copy warps to the consumers.
  virtual void emitRoleStart(mlir::OpBuilder &, mlir::Location,
                             bool /*copyRole*/, int64_t /*consumerThreads*/,
                             int64_t /*copyThreads*/) {}
  /// A barrier among the first `threads` threads of the block only (the
  /// consumers of a specialized kernel); orders shared memory like
  /// emitBarrier. `untilReads`: it only orders earlier reads before later
  /// writes (no writes need publishing to asynchronous units), so a backend
  /// may leave out the fences that wait for outstanding memory operations.
  virtual void emitPartialBarrier(mlir::OpBuilder &b, mlir::Location loc,
                                  int64_t /*threads*/,
                                  bool /*untilReads*/ = false) {
    emitBarrier(b, loc);
  }

  /// A block-wide barrier that also orders shared-memory accesses.
  virtual void emitBarrier(mlir::OpBuilder &b, mlir::Location loc);
  /// A block-wide barrier where no thread wrote shared memory with ordinary
  /// stores since the last barrier (only copies that completed on a stage
  /// barrier did): a backend that fences ordinary writes for its
  /// asynchronous units in emitBarrier may skip that here.
  virtual void emitBarrierAfterCopies(mlir::OpBuilder &b, mlir::Location loc) {
    emitBarrier(b, loc);
  }
  /// Whether emitAtomicAddVector adds `n` consecutive elements of type
  /// `elem` with one instruction.
  virtual bool canAtomicAddVector(mlir::Type /*elem*/, int64_t /*n*/) const {
    return false;
  }
  /// Atomically adds `vals` (as canAtomicAddVector accepted) to the
  /// consecutive global-memory elements starting at address `addr` (an
  /// `index` aligned to the whole vector); no result.
  virtual void emitAtomicAddVector(mlir::OpBuilder &, mlir::Location,
                                   mlir::Value /*addr*/,
                                   mlir::ValueRange /*vals*/) {}
  /// `v` (32-bit) from lane `lane ^ mask` of the same warp.
  virtual mlir::Value emitShuffleXor(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::Value v, int mask, int warpSize);

  /// Turns of the consumers' groups (a ping-pong of two warpgroups, which
  /// take turns issuing their asynchronous matrix atoms so that one group's
  /// element-wise work runs while the other's atoms do): a backend that
  /// returns true emits emitTurnWait (wait on group `group`'s barrier, 0 or
  /// 1, with `threads` participants: this group waits, the other passes)
  /// and emitTurnPass (arrive on group `group`'s barrier without waiting).
  virtual bool consumerTurns() const { return false; }
  virtual void emitTurnWait(mlir::OpBuilder &, mlir::Location,
                            int64_t /*group*/, int64_t /*threads*/) {}
  virtual void emitTurnPass(mlir::OpBuilder &, mlir::Location,
                            int64_t /*group*/, int64_t /*threads*/) {}

  /// Whole-tile stores (a tensor-memory accelerator's stores): a copy of a
  /// fragment to a global tensor is written by the threads into a shared
  /// staging tile laid out as `c` says (in bytes of the kernel's shared
  /// memory that no live tile holds then), published by
  /// emitBulkStoreBarrier, and one thread stores the whole tile with
  /// emitBulkStore, clipping the parts outside the tensor, then waits with
  /// emitBulkStoreWait before the staging bytes are reused. False (the
  /// default): the threads store their registers to global memory.
  ///
  /// Whether emitBulkStore can store `c` (the tensor's rank and the
  /// staging tile's shape, element and swizzle).
  virtual bool canBulkStore(const BulkCopy & /*c*/) const { return false; }
  /// Issues the store of `c` (called by one thread) from the shared tile at
  /// address `shared` (its element (0, 0); `index`) to `tensor` (the global
  /// row-major memref) at `offsets` (one index per tensor dim: the tile's
  /// first element), and closes them as a group.
  virtual void emitBulkStore(mlir::OpBuilder &, mlir::Location,
                             const BulkCopy &, mlir::Value /*tensor*/,
                             mlir::ValueRange /*offsets*/,
                             mlir::Value /*shared*/) {}
  /// The barrier among the threads that wrote a staging tile (the first
  /// `threads` threads of the block, or all of them for 0) before one of
  /// them issues emitBulkStore: it also makes their ordinary shared-memory
  /// writes visible to the bulk store.
  virtual void emitBulkStoreBarrier(mlir::OpBuilder &b, mlir::Location loc,
                                    int64_t threads) {
    if (threads)
      emitPartialBarrier(b, loc, threads);
    else
      emitBarrier(b, loc);
  }
  /// In the thread that issued bulk stores: waits until they have read
  /// their shared memory (their global writes may still be in flight).
  virtual void emitBulkStoreWait(mlir::OpBuilder &, mlir::Location) {}
  /// Whether emitStoreMatrices can store 8 x 8 matrices of `elem` (16-bit).
  virtual bool canStoreMatrices(mlir::Type /*elem*/) const { return false; }
  /// Stores `pairs.size()` (1, 2 or 4) 8 x 8 matrices of 16-bit elements to
  /// shared memory in one instruction, called by every lane of a warp
  /// together: `rowAddress` (an `index`) is the shared address of row
  /// `lane % 8` of matrix `lane / 8` (16 contiguous bytes; lanes past the
  /// matrices' rows pass any), and `pairs[i]` the lane's two elements of
  /// matrix i (row lane / 4, columns 2 (lane % 4) and 2 (lane % 4) + 1) as a
  /// 2-element vector.
  virtual void emitStoreMatrices(mlir::OpBuilder &, mlir::Location,
                                 mlir::Value /*rowAddress*/,
                                 mlir::ValueRange /*pairs*/) {}
};

} // namespace tessera

#endif // TESSERA_PLUGIN_TARGET_HOOKS_H
