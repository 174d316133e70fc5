//===- Passes.h - tessera's target-parameterized core passes ---*- C++ -*-===//
//
// Every pass takes a TargetDescription through its `target` option (a chip
// name such as `sm_90a`, or a path to a .toml description) and never asks
// which vendor it compiles for. See docs/passes.md.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_PASSES_PASSES_H
#define TESSERA_PASSES_PASSES_H

#include "tessera/target/TargetDescription.h"

#include "mlir/Pass/Pass.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace tessera::passes {

/// Resolves `spec` to a TargetDescription: an existing file path is read as
/// is; otherwise `spec` is a chip/target name looked up as `<spec>.toml` in,
/// in order: every directory of $TESSERA_TARGET_PATH (':'-separated), every
/// `<dir>/targets` of $TESSERA_PLUGIN_PATH, the installed plugin dir
/// `<exe>/../lib/tessera/plugins/targets`, and the source tree's
/// `backends/*/targets` (compiled-in). On failure returns nullopt and sets
/// *error to a message listing the places searched.
std::optional<target::TargetDescription> resolveTarget(const std::string &spec,
                                                       std::string *error);

/// Which MMA atoms layout inference may choose (a backend passes the atoms
/// its TargetHooks can emit); empty: all of the description's.
using AtomFilter =
    std::function<bool(const target::MmaAtom &, const target::MmaUse &)>;

std::unique_ptr<mlir::Pass> createInferLayoutsPass(const std::string &target,
                                                   AtomFilter filter = {});
std::unique_ptr<mlir::Pass> createSwizzleSharedPass(const std::string &target);
std::unique_ptr<mlir::Pass> createPipelinePass(const std::string &target);
std::unique_ptr<mlir::Pass> createPlanSharedPass(const std::string &target);
std::unique_ptr<mlir::Pass> createRasterOrderPass(const std::string &target);
std::unique_ptr<mlir::Pass> createWidenBlocksPass(const std::string &target);
/// `filter`: as for layout inference, whose layouts this pass measures.
std::unique_ptr<mlir::Pass> createSplitThreadsPass(const std::string &target,
                                                   AtomFilter filter = {});
std::unique_ptr<mlir::Pass> createKStepsPass(const std::string &target);
std::unique_ptr<mlir::Pass> createDeepenKeysPass(const std::string &target);
/// `filter`: as for layout inference, whose choice this pass measures.
std::unique_ptr<mlir::Pass> createPlaceOperandsPass(const std::string &target,
                                                    AtomFilter filter = {});

/// Adds verify/canonicalize, widen blocks, deepen keys, split threads, K steps,
/// raster order, place
/// operands, infer layouts, swizzle, pipeline, plan shared.
void buildTesseraPipeline(mlir::OpPassManager &pm, const std::string &target,
                          AtomFilter filter = {});

/// Registers the passes (`tessera-infer-layouts`,
/// `tessera-swizzle-shared`, `tessera-pipeline-loops`... see docs/passes.md)
/// and the pipeline `tessera-pipeline=<chip or path>`.
void registerTesseraPasses();

} // namespace tessera::passes

#endif
