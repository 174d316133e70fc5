//===- CudaTargetHooks.h - NVIDIA's part of distribution --------*- C++ -*-===//
//
// The TargetHooks of the cuda backend: mma.sync atoms as inline PTX,
// ldmatrix for 16-bit operands in shared memory, cp.async for async copies
// and their groups; on sm_90a wgmma atoms with shared operands read through
// matrix descriptors built from the tile's swizzle (and A from registers),
// fenced per tile.gemm, and TMA tile copies (cp.async.bulk.tensor through
// tensor maps the runtime builds at launch) completing on mbarriers. Shuffles
// keep the portable gpu-dialect default; barriers on sm_90a first fence
// generic-proxy shared-memory writes for the async proxy (wgmma reads shared
// memory through it).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_BACKENDS_CUDA_CUDATARGETHOOKS_H
#define TESSERA_BACKENDS_CUDA_CUDATARGETHOOKS_H

#include "tessera/plugin/target_hooks.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace tessera::cuda {

/// The name of the placeholder `ptr (i32)` function whose calls stand for
/// the address of the i-th tensor map: an extra 128-byte grid-constant
/// kernel parameter after the slots (NvptxCodegen appends the parameters).
inline constexpr llvm::StringLiteral kTmaMapFn = "__tessera_tma_map";

class CudaTargetHooks final : public TargetHooks {
public:
  /// `wgmma`: the chip has warpgroup MMA (sm_90a).
  explicit CudaTargetHooks(bool wgmma) : wgmma(wgmma) {}
  bool canEmitAtom(const target::MmaAtom &atom) const override;
  bool canEmitAtomFor(const target::MmaAtom &atom,
                      const target::MmaUse &use) const override;
  llvm::SmallVector<mlir::Value>
  emitMma(mlir::OpBuilder &b, mlir::Location loc, const target::MmaAtom &atom,
          llvm::ArrayRef<mlir::Value> a, llvm::ArrayRef<mlir::Value> b_,
          llvm::ArrayRef<mlir::Value> c) override;
  bool loadMmaOperand(mlir::OpBuilder &b, mlir::Location loc,
                      const target::MmaAtom &atom, MmaOperandKind which,
                      const SharedMatrix &m, bool transposed, mlir::Value row0,
                      mlir::Value col0, mlir::Type elemType,
                      llvm::SmallVectorImpl<mlir::Value> &out) override;
  bool emitAsyncCopy(mlir::OpBuilder &b, mlir::Location loc, mlir::Value shared,
                     mlir::Value global, int bytes, mlir::Value valid) override;
  bool canAtomicAddVector(mlir::Type elem, int64_t n) const override;
  void emitAtomicAddVector(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value addr, mlir::ValueRange vals) override;
  void emitCommitGroup(mlir::OpBuilder &b, mlir::Location loc) override;
  void emitWaitGroup(mlir::OpBuilder &b, mlir::Location loc,
                     int64_t pending) override;
  llvm::SmallVector<mlir::Value>
  emitMmaShared(mlir::OpBuilder &b, mlir::Location loc,
                const target::MmaAtom &atom, const MmaOperandRef &a,
                const MmaOperandRef &b_,
                llvm::ArrayRef<mlir::Value> c) override;
  bool mmaStartsFromZero(const target::MmaAtom &atom) const override {
    return atom.kind == target::MmaKind::Wgmma;
  }
  bool storesFragmentPairs(mlir::Type elem) const override;
  bool mmaOperandsFirst(const target::MmaAtom &atom) const override;
  void prepareMmaOperands(
      mlir::OpBuilder &b, mlir::Location loc, const target::MmaAtom &atom,
      llvm::MutableArrayRef<llvm::SmallVector<mlir::Value>> operands) override;
  void beginMmaSequence(mlir::OpBuilder &b, mlir::Location loc,
                        const target::MmaAtom &atom,
                        llvm::SmallVectorImpl<mlir::Value> &acc) override;
  void endMmaSequence(mlir::OpBuilder &b, mlir::Location loc,
                      const target::MmaAtom &atom,
                      llvm::SmallVectorImpl<mlir::Value> &acc) override;
  void emitBarrier(mlir::OpBuilder &b, mlir::Location loc) override;
  void emitBarrierAfterCopies(mlir::OpBuilder &b, mlir::Location loc) override {
    TargetHooks::emitBarrier(b, loc);
  }
  bool deferMmaWait(mlir::OpBuilder &b, mlir::Location loc,
                    const target::MmaAtom &atom) override;
  bool mmaIsAsync(const target::MmaAtom &atom) const override {
    return atom.kind == target::MmaKind::Wgmma;
  }
  bool commitMma(mlir::OpBuilder &b, mlir::Location loc,
                 const target::MmaAtom &atom) override;
  void waitMma(mlir::OpBuilder &b, mlir::Location loc,
               const target::MmaAtom &atom, int64_t pending,
               llvm::SmallVectorImpl<mlir::Value> &acc) override;
  void drainMma(mlir::OpBuilder &b, mlir::Location loc,
                const target::MmaAtom &atom,
                llvm::SmallVectorImpl<mlir::Value> &acc) override;

  // TMA (sm_90a): tile copies by tensor map completing on mbarriers.
  bool canBulkCopy(const BulkCopy &c) const override;
  void emitBulkCopy(mlir::OpBuilder &b, mlir::Location loc, const BulkCopy &c,
                    mlir::Value tensor, mlir::ValueRange offsets,
                    mlir::Value shared, mlir::Value barrier) override;
  int64_t clusterMulticast() const override {
    return wgmma && bulkCopies ? 2 : 1;
  }
  void emitBulkCopyMulticast(mlir::OpBuilder &b, mlir::Location loc,
                             const BulkCopy &c, mlir::Value tensor,
                             mlir::ValueRange offsets, mlir::Value shared,
                             mlir::Value barrier, mlir::Value rank,
                             int64_t clusterSize) override;
  void emitClusterArrive(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value barrier, mlir::Value rank) override;
  void emitClusterBarrierWait(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value barrier, mlir::Value phase) override;
  void emitClusterSync(mlir::OpBuilder &b, mlir::Location loc) override;
  void emitBarrierInit(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value barrier, int64_t arrivals) override;
  void emitBarrierInitFence(mlir::OpBuilder &b, mlir::Location loc) override;
  void emitBarrierArriveExpect(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value barrier, int64_t bytes) override;
  void emitBarrierWait(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value barrier, mlir::Value phase) override;

  int64_t copyWarpThreads(int64_t consumerThreads) const override;
  void emitRoleStart(mlir::OpBuilder &b, mlir::Location loc, bool copyRole,
                     int64_t consumerThreads, int64_t copyThreads) override;
  void emitPartialBarrier(mlir::OpBuilder &b, mlir::Location loc,
                          int64_t threads, bool untilReads = false) override;
  bool persistentBlocks() const override {
    return wgmma && bulkCopies && warpSpecialization && persistent;
  }
  bool persistentTwin() const override { return twinPersistent; }
  bool compactCopies() const override { return compact; }
  mlir::Value loadGlobalKept(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value address, mlir::Type type) override;
  bool consumerTurns() const override { return wgmma && turns; }
  void emitTurnWait(mlir::OpBuilder &b, mlir::Location loc, int64_t group,
                    int64_t threads) override;
  void emitTurnPass(mlir::OpBuilder &b, mlir::Location loc, int64_t group,
                    int64_t threads) override;

  // TMA stores (sm_90a): a staging tile to a tensor map's box, bulk groups.
  bool canBulkStore(const BulkCopy &c) const override;
  void emitBulkStore(mlir::OpBuilder &b, mlir::Location loc, const BulkCopy &c,
                     mlir::Value tensor, mlir::ValueRange offsets,
                     mlir::Value shared) override;
  void emitBulkStoreBarrier(mlir::OpBuilder &b, mlir::Location loc,
                            int64_t threads) override;
  void emitBulkStoreWait(mlir::OpBuilder &b, mlir::Location loc) override;
  bool canStoreMatrices(mlir::Type elem) const override;
  void emitStoreMatrices(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value rowAddress,
                         mlir::ValueRange pairs) override;

  /// A tensor map the kernel being distributed uses (its index is its place
  /// in tensorMaps()): the descriptor words after the slot (LowerTileToGpu.h).
  struct TensorMap {
    int64_t slot = 0, rank = 0, elemBytes = 0, swizzle = 0;
    int64_t box[5] = {1, 1, 1, 1, 1};
    bool operator==(const TensorMap &o) const {
      return slot == o.slot && rank == o.rank && elemBytes == o.elemBytes &&
             swizzle == o.swizzle && std::equal(box, box + 5, o.box);
    }
  };
  /// The maps emitBulkCopy used since the last call; clears them.
  std::vector<TensorMap> takeTensorMaps() { return std::move(maps); }
  /// Whether bulk copies may be used (off for a TMA kernel's twin).
  void setBulkCopies(bool on) { bulkCopies = on; }
  /// Whether fragment-to-tensor copies may store by TMA (TESSERA_TMA_STORE).
  void setBulkStores(bool on) { bulkStoresOn = on; }
  bool bulkStores() const { return bulkStoresOn; }
  /// Whether loops on TMA copies get a copy warp.
  void setWarpSpecialization(bool on) { warpSpecialization = on; }
  /// Whether warp-specialized kernels walk their tiles on persistent blocks.
  void setPersistentBlocks(bool on) { persistent = on; }
  /// Whether two consumer warpgroups take turns issuing wgmma.
  void setConsumerTurns(bool on) { turns = on; }
  /// Whether the kernel being distributed is the twin of a persistent one.
  void setPersistentTwin(bool on) { twinPersistent = on; }
  void setCompactCopies(bool on) { compact = on; }

private:
  /// The index of the tensor map of `c`'s tile (rows of it) in the tensor
  /// `tensor`, recording it if new, and a value holding the map's address.
  std::pair<int64_t, mlir::Value> tensorMap(mlir::OpBuilder &b,
                                            mlir::Location loc,
                                            const BulkCopy &c,
                                            mlir::Value tensor, int64_t rows);
  void issueBulkCopy(mlir::OpBuilder &b, mlir::Location loc, const BulkCopy &c,
                     mlir::Value tensor, mlir::ValueRange offsets,
                     mlir::Value shared, mlir::Value barrier, mlir::Value rank,
                     int64_t clusterSize);
  bool wgmma;
  bool bulkCopies = true;
  bool bulkStoresOn = false;
  bool warpSpecialization = false;
  bool persistent = false;
  bool twinPersistent = false;
  bool compact = false;
  bool turns = false;
  /// TESSERA_WAIT_FENCE=1 puts a fence before waitMma's wait (opt-in).
  bool waitFence = [] {
    const char *v = std::getenv("TESSERA_WAIT_FENCE");
    return v && std::string(v) == "1";
  }();
  std::vector<TensorMap> maps;
};

/// The kernel parameter (slot) index of the tensor pointer a global memref
/// was unpacked from, or -1.
int64_t kernelSlotOf(mlir::Value memref);

} // namespace tessera::cuda

#endif
