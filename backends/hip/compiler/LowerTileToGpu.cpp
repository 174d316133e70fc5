//===- LowerTileToGpu.cpp - tile dialect to gpu functions for AMD ---------===//
//
// Every tile.func becomes a gpu.func whose parameters are the runtime's
// slots; its tile.kernel runs the core passes (layouts, swizzles for the
// chip's LDS banks, pipelines, shared-memory plan, with the atoms the hip
// hooks accept) and is then distributed (core/passes/lib/Distribute.cpp)
// through the HipTargetHooks: every tile op lowers by itself from what the
// passes recorded. Nothing here recognizes a whole kernel.
//
//===----------------------------------------------------------------------===//

#include "LowerTileToGpu.h"
#include "AccumulatorScaling.h"
#include "HipTargetHooks.h"
#include "KernelFunction.h"
#include "TileLoweringUtils.h"

#include "tessera/Passes/Distribute.h"
#include "tessera/Passes/Passes.h"

#include "tessera/Dialect/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace tessera::lowering;
namespace tile = tessera::tile;

namespace {

/// Shared and fragment tiles live in workgroup memory (LDS), `local` tiles
/// are per-thread arrays.
Attribute tileMemorySpace(tile::TileType t) {
  return t.isLocal() ? Attribute()
                     : gpu::AddressSpaceAttr::get(t.getContext(),
                                                  gpu::AddressSpace::Workgroup);
}

/// The kernel `tessera_kernel_<name>` of `gpuModule` (KernelFunction.h),
/// its threads recorded.
gpu::GPUFuncOp createKernelFunction(tile::FuncOp f, gpu::GPUModuleOp gpuModule,
                                    const TypeConverter &converter) {
  int64_t threads = 0;
  f.walk([&](tile::KernelOp k) { threads = k.getThreads(); });
  gpu::GPUFuncOp fn = createSlotKernel(
      f, gpuModule, converter,
      (tessera::hip::kKernelSymbolPrefix + f.getSymName()).str());
  if (fn)
    fn->setAttr(tessera::hip::kThreadsAttr,
                OpBuilder(fn).getI64IntegerAttr(threads));
  return fn;
}

} // namespace

LogicalResult tessera::hip::lowerTileToGpu(
    ModuleOp module, const tessera::CompileTarget &target,
    const tessera::CompileOptions &options,
    std::vector<std::pair<std::string, unsigned>> &shared,
    std::vector<std::pair<std::string, unsigned>> *threads) {
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<gpu::GPUDialect, memref::MemRefDialect, scf::SCFDialect,
                   arith::ArithDialect, math::MathDialect, LLVM::LLVMDialect,
                   ROCDL::ROCDLDialect, vector::VectorDialect>();
  gpu::GPUModuleOp gpuModule;
  for (auto m : module.getOps<gpu::GPUModuleOp>())
    if (m.getName() == kGpuModuleName)
      gpuModule = m;
  if (!gpuModule) {
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), kGpuModuleName);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
  }
  for (auto f : module.getOps<tile::FuncOp>())
    if (f.isExternal())
      return f.emitOpError("has no body to compile");
  if (module.getOps<tile::FuncOp>().empty())
    return success();

  std::string spec =
      target.descriptionPath.empty() ? target.chip : target.descriptionPath;
  std::string error;
  auto desc = tessera::passes::resolveTarget(spec, &error);
  if (!desc)
    return emitError(module.getLoc()) << error;
  HipTargetHooks hooks(desc->chip);

  // The core passes, choosing only among the atoms the hooks can emit.
  // The core passes, choosing only among the atoms the hooks can emit.
  if (failed(runCorePasses(module, spec, hooks, options.printIRAfterAll)))
    return failure();

  TileTypeConverter converter(tileMemorySpace);
  for (auto f : llvm::make_early_inc_range(module.getOps<tile::FuncOp>())) {
    std::string name = f.getSymName().str();
    bool split = f.getKernel()->hasAttr("tile.threads_from");
    gpu::GPUFuncOp fn = createKernelFunction(f, gpuModule, converter);
    if (!fn)
      return failure();
    if (split && threads)
      threads->emplace_back(
          name,
          (unsigned)fn->getAttrOfType<IntegerAttr>(kThreadsAttr).getInt());
    tessera::passes::DistributedKernel dk;
    if (failed(distributeKernelFunction(fn, *desc, hooks, dk,
                                        options.printIRAfterAll)))
      return failure();
    hoistAccumulatorScaling(fn);
    fn->setAttr("tessera.shared_bytes",
                OpBuilder(ctx).getI64IntegerAttr(dk.sharedBytes));
    if (dk.threads > 0 &&
        dk.threads != fn->getAttrOfType<IntegerAttr>(kThreadsAttr).getInt())
      return fn.emitOpError("distribution asked for ")
             << dk.threads << " threads per block; the hip backend launches "
             << "the kernel's own count";
    shared.emplace_back(name, (unsigned)dk.sharedBytes);
  }
  return success();
}
