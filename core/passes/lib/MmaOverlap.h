//===- MmaOverlap.h - a loop's last gemm beside the next one -*- C++ -*-===//
#ifndef TESSERA_PASSES_MMAOVERLAP_H
#define TESSERA_PASSES_MMAOVERLAP_H

#include "PassCommon.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>
#include <string>

namespace tessera::passes {

/// Marks a gemm distribution may leave running after it is issued: it waits
/// for it only before the first op that touches its tiles
/// (MmaOverlap.cpp).
inline constexpr llvm::StringLiteral kMmaAsyncAttr = "tile.mma_async";

/// Whether `g` runs on an asynchronous matrix atom of `tgt` (`async = true`:
/// wgmma).
bool asyncAtom(tile::GemmOp g, const target::TargetDescription &tgt);
/// Whether `op` (or an op nested in it) uses one of `tiles`.
bool touches(mlir::Operation *op,
             const llvm::SmallPtrSetImpl<mlir::Value> &tiles);

/// TESSERA_MMA_OVERLAP: 0 off, 1 wherever the rewrite applies, unset (or
/// anything else) where the block is alone on its multiprocessor
/// (MmaOverlap.cpp says why); `explain` is the default with a remark on
/// each loop of two or more gemms saying whether it applied and why not.
enum class MmaOverlapMode { Off, On, Alone };
MmaOverlapMode mmaOverlapMode();
/// TESSERA_MMA_OVERLAP=explain.
bool mmaOverlapExplain();

/// The two gemms of a tile.pipelined loop whose last one may run beside the
/// next iteration's work (MmaOverlap.cpp).
struct MmaOverlapPlan {
  tile::GemmOp first, last;
};
/// The plan for `loop` before it is pipelined, whose pipelined copies are
/// `pipelinedCopies`; nullopt when the rewrite does not apply (the caller
/// decides by mmaOverlapMode whether it is wanted).
std::optional<MmaOverlapPlan> planMmaOverlap(
    tile::PipelinedOp loop, llvm::ArrayRef<mlir::Operation *> pipelinedCopies,
    const target::TargetDescription &tgt, std::string *why = nullptr);
/// After pipelining into `loop` (`t`: its iteration number from 0, in the
/// body; `stages`: S), moves the plan's last gemm after the first one of
/// the next iteration and after the loop.
void rotateLastGemm(mlir::scf::ForOp loop, MmaOverlapPlan plan, mlir::Value t,
                    int64_t stages);

} // namespace tessera::passes

#endif
