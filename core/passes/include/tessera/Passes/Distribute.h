//===- Distribute.h - every tile op to per-thread code ----------*- C++ -*-===//
//
// Distribution, the core's last step before a backend's dialect conversion
// (docs/compiler.md): after the core passes have recorded layouts, swizzles,
// stages and shared-memory offsets, each tile op is lowered by itself to
// per-thread code over upstream dialects — gpu ids, barriers and shuffles,
// memref (workgroup memory for shared tiles, a private array per fragment
// indexed by its layout's register bits), vector, arith, math and scf —
// calling the backend's TargetHooks for what is vendor-specific.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_PASSES_DISTRIBUTE_H
#define TESSERA_PASSES_DISTRIBUTE_H

#include "tessera/plugin/target_hooks.h"
#include "tessera/target/TargetDescription.h"

#include "mlir/IR/Operation.h"
#include "mlir/Pass/Pass.h"

namespace tessera::passes {

/// Marks an scf.for distribution makes that unrolling cannot speed up (the
/// copy warp's, whose iterations wait for stages the consumers release):
/// the cuda backend gives it llvm.loop.unroll.disable.
inline constexpr llvm::StringLiteral kNoUnrollAttr = "tile.no_unroll";

/// Marks a kernel whose blocks walk its tiles (persistent blocks), decided
/// by tessera-pipeline-loops: launched on min(tiles, compute units) blocks
/// where the backend can (TargetHooks::persistentBlocks), one block per
/// tile otherwise.
inline constexpr llvm::StringLiteral kPersistentAttr = "tile.persistent";

/// Marks an scf.for whose body should be unrolled `n` times (an integer
/// attribute): a loop that loads a value one iteration ahead into a
/// loop-carried register (tessera-pipeline-loops' fragment prefetch), where
/// one copy of the body per register lets each load land in the register
/// that the next iteration reads without a move that waits for it. The cuda
/// backend gives it llvm.loop.unroll.count.
inline constexpr llvm::StringLiteral kUnrollAttr = "tile.unroll";

/// What distribution of one kernel decided.
struct DistributedKernel {
  /// Bytes of dynamic shared memory the kernel needs: the planned tiles plus
  /// the scratch of reductions and layout conversions.
  int64_t sharedBytes = 0;
  /// 32-bit registers its fragments (and register staging) take per
  /// thread, all of them summed.
  int64_t fragmentRegisters = 0;
  /// The same where the most of them are live at once (FragmentLiveness):
  /// what the chip's registers per thread must hold.
  int64_t fragmentRegistersPeak = 0;
  /// Whether some pipelined loop copies by TargetHooks::emitBulkCopy (a
  /// backend whose bulk copies can fail at launch keeps a twin without).
  bool bulkCopies = false;
  /// Threads per block the kernel launches with: the tile.kernel's, plus the
  /// copy warp of a warp-specialized loop (TargetHooks::copyWarpThreads).
  int64_t threads = 0;
  /// Blocks per thread-block cluster along x, y, z: {1, 2, 1} where a paired
  /// kernel (tile.cluster = 2) fills shared tiles by multicast copies, else
  /// all 1 (no cluster).
  int64_t cluster[3] = {1, 1, 1};
  /// The blocks walk the program's blocks (TargetHooks::persistentBlocks):
  /// the launch grid is min(blocks, compute units) along x.
  bool persistent = false;
};

/// Registers per thread a kernel needs beyond its fragments (addresses,
/// indices, loop state), in residency estimates.
constexpr int64_t kRegistersBeyondFragments = 32;

/// Whether two blocks of `threads` threads, `sharedBytes` of shared memory
/// and `fragmentWords` fragment registers per thread stay resident on one
/// multiprocessor of `tgt` (by shared memory and registers).
bool twoBlocksPerSm(const target::TargetDescription &tgt, int64_t threads,
                    int64_t sharedBytes, int64_t fragmentWords);

/// Distributes the tile ops of `body`, the single-block region of a function
/// whose tile.func arguments have been replaced already (global tensors by
/// unrealized casts of row-major memrefs, scalars by values) and which holds
/// one tile.kernel after the core passes. `tile.return` is left for the
/// caller to replace. Errors (budgets, unsupported combinations) are
/// reported on the offending op.
mlir::LogicalResult distributeKernel(mlir::Region &body,
                                     const target::TargetDescription &target,
                                     TargetHooks &hooks,
                                     DistributedKernel &result);

/// Hooks with the portable defaults and no MMA atom (vector FMA only): what
/// `tessera-opt --tessera-distribute` uses to show distribution without a
/// backend.
TargetHooks &portableHooks();

} // namespace tessera::passes

#endif
