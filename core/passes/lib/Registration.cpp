//===- Registration.cpp - the passes and the tessera-pipeline pipeline ----===//

#include "tessera/Passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace tessera::passes {

void registerInferLayoutsPass();
void registerSwizzleSharedPass();
void registerPipelinePass();
void registerPlanSharedPass();
void registerRasterOrderPass();
void registerWidenBlocksPass();
void registerSplitThreadsPass();
void registerKStepsPass();
void registerDeepenKeysPass();
void registerPlaceOperandsPass();

void buildTesseraPipeline(OpPassManager &pm, const std::string &target,
                          AtomFilter filter) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createWidenBlocksPass(target));
  pm.addPass(createDeepenKeysPass(target));
  pm.addPass(createSplitThreadsPass(target, filter));
  pm.addPass(createKStepsPass(target));
  pm.addPass(createRasterOrderPass(target));
  pm.addPass(createPlaceOperandsPass(target, filter));
  pm.addPass(createInferLayoutsPass(target, std::move(filter)));
  pm.addPass(createSwizzleSharedPass(target));
  pm.addPass(createPipelinePass(target));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createPlanSharedPass(target));
}

void registerTesseraPasses() {
  registerInferLayoutsPass();
  registerSwizzleSharedPass();
  registerPipelinePass();
  registerPlanSharedPass();
  registerRasterOrderPass();
  registerWidenBlocksPass();
  registerSplitThreadsPass();
  registerKStepsPass();
  registerDeepenKeysPass();
  registerPlaceOperandsPass();
  // `--tessera-pipeline=sm_90a`, `--tessera-pipeline=path/to/t.toml` or
  // `--tessera-pipeline=target=sm_90a`.
  registerPassPipeline(
      "tessera-pipeline",
      "verify, canonicalize, widen GEMM blocks, deepen key blocks, split "
      "threads, choose K "
      "steps, choose the block order, place "
      "operands, infer layouts, swizzle, pipeline, plan shared memory for a "
      "target (chip name or description path)",
      [](OpPassManager &pm, StringRef options,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        std::string t = options.trim().str();
        if (llvm::StringRef(t).starts_with("target="))
          t = t.substr(7);
        if (t.empty())
          return errorHandler("tessera-pipeline needs a target: "
                              "--tessera-pipeline=<chip or file.toml>");
        buildTesseraPipeline(pm, t);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)>) {});
}

} // namespace tessera::passes
