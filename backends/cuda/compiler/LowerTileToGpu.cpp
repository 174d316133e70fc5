//===- LowerTileToGpu.cpp - tile dialect to gpu functions
//------------------===//
//
// Every tile.func becomes a gpu.func whose parameters are the runtime's
// slots; its tile.kernel runs the core passes (layouts, swizzles, pipelines,
// shared-memory plan, with the atoms the cuda hooks accept) and is then
// distributed (core/passes/lib/Distribute.cpp) through the CudaTargetHooks:
// every tile op lowers by itself from what the passes recorded. Nothing here
// recognizes a whole kernel. A kernel that copies by TMA also gets a twin
// without TMA and the descriptor of its tensor maps (LowerTileToGpu.h).
//
//===----------------------------------------------------------------------===//

#include "LowerTileToGpu.h"
#include "CudaTargetHooks.h"
#include "KernelFunction.h"
#include "KernelInfo.h"
#include "PhaseTimes.h"
#include "TileLoweringUtils.h"

#include "tessera/Passes/Distribute.h"
#include "tessera/Passes/Passes.h"

#include "tessera/Dialect/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>
#include <cstdlib>

using namespace mlir;
using namespace tessera::lowering;
namespace tile = tessera::tile;

namespace {

constexpr llvm::StringLiteral kThreadsAttr = "tessera.threads";

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

Attribute workgroupSpace(MLIRContext *ctx) {
  return gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
}

/// Shared and fragment tiles live in workgroup memory, `local` tiles are
/// per-thread arrays.
Attribute tileMemorySpace(tile::TileType t) {
  return t.isLocal() ? Attribute() : workgroupSpace(t.getContext());
}

//===----------------------------------------------------------------------===//
// Function entry: the kernel's parameters are the runtime's slots
//===----------------------------------------------------------------------===//

/// The kernel `tessera_kernel_<name>` of `gpuModule` (KernelFunction.h),
/// with its threads recorded for the twin and the overrides below.
gpu::GPUFuncOp createKernelFunction(tile::FuncOp f, gpu::GPUModuleOp gpuModule,
                                    const TypeConverter &converter) {
  int64_t threads = 0;
  f.walk([&](tile::KernelOp k) { threads = k.getThreads(); });
  gpu::GPUFuncOp fn = createSlotKernel(
      f, gpuModule, converter,
      (tessera::cuda::kKernelSymbolPrefix + f.getSymName()).str());
  if (fn)
    fn->setAttr(kThreadsAttr, OpBuilder(fn).getI64IntegerAttr(threads));
  return fn;
}

/// The descriptor global of a kernel with TMA copies (LowerTileToGpu.h):
/// its tensor maps and what its twin without TMA needs to launch.
void addTensorMapDescriptor(
    gpu::GPUFuncOp fn, ArrayRef<tessera::cuda::CudaTargetHooks::TensorMap> maps,
    int64_t twinThreads, int64_t twinShared) {
  OpBuilder b(fn);
  b.setInsertionPointAfter(fn);
  SmallVector<int32_t> words = {(int32_t)tessera::cuda::kTmaMagic,
                                (int32_t)maps.size(), (int32_t)twinThreads,
                                (int32_t)twinShared};
  for (const auto &m : maps) {
    // CU_TENSOR_MAP_DATA_TYPE_UINT8/16/32/64: a copy moves bytes.
    int32_t dtype = m.elemBytes == 1   ? 0
                    : m.elemBytes == 2 ? 1
                    : m.elemBytes == 4 ? 2
                                       : 4;
    words.append({(int32_t)m.slot, (int32_t)m.rank, dtype, (int32_t)m.elemBytes,
                  (int32_t)m.swizzle,
                  /*L2 promotion 128B*/ 2});
    for (int64_t d : m.box)
      words.push_back((int32_t)d);
    words.push_back(0);
  }
  auto arrTy = LLVM::LLVMArrayType::get(b.getI32Type(), words.size());
  LLVM::GlobalOp::create(
      b, fn.getLoc(), arrTy, /*isConstant=*/true, LLVM::Linkage::External,
      (tessera::cuda::kTmaGlobalPrefix + fn.getName()).str(),
      DenseIntElementsAttr::get(
          RankedTensorType::get({(int64_t)words.size()}, b.getI32Type()),
          ArrayRef<int32_t>(words)),
      /*alignment=*/4, /*addrSpace=*/1);
}

} // namespace

LogicalResult tessera::cuda::lowerTileToGpu(
    ModuleOp module, const tessera::CompileTarget &target,
    const tessera::CompileOptions &options,
    std::vector<std::pair<std::string, unsigned>> &shared,
    std::vector<std::pair<std::string, unsigned>> *threads,
    std::vector<std::pair<std::string, std::array<std::string, 3>>> *grids) {
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<gpu::GPUDialect, memref::MemRefDialect, scf::SCFDialect,
                   arith::ArithDialect, math::MathDialect, LLVM::LLVMDialect,
                   vector::VectorDialect>();
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
  TileTypeConverter converter(tileMemorySpace);
  for (auto f : module.getOps<tile::FuncOp>())
    if (f.isExternal())
      return f.emitOpError("has no body to compile");
  // The core passes, then distribution through the cuda hooks.
  if (!module.getOps<tile::FuncOp>().empty()) {
    std::string spec =
        target.descriptionPath.empty() ? target.chip : target.descriptionPath;
    std::string error;
    auto desc = tessera::passes::resolveTarget(spec, &error);
    if (!desc)
      return emitError(module.getLoc()) << error;
    bool hasWgmma = llvm::any_of(desc->mmaAtoms, [](const auto &a) {
      return a.kind == tessera::target::MmaKind::Wgmma;
    });
    CudaTargetHooks hooks(hasWgmma);
    // A copy warp for loops on TMA copies feeding wgmma, in kernels that
    // stay one block per SM (distribution decides; docs/backends/cuda.md);
    // TESSERA_CUDA_WARP_SPECIALIZATION=0 turns it off.
    const char *ws = std::getenv("TESSERA_CUDA_WARP_SPECIALIZATION");
    hooks.setWarpSpecialization(!(ws && std::string(ws) == "0"));
    // Warp-specialized kernels walk their tiles on persistent blocks where
    // tessera-pipeline-loops marks them (tile.persistent: an early tile
    // that fits twice; TESSERA_PERSISTENT=1 every kernel, =0 none;
    // docs/backends/cuda.md, docs/benchmarks.md).
    hooks.setPersistentBlocks(true);
    // Two consumer warpgroups take turns issuing the wgmma of a loop whose
    // gemm results are read in the same iteration (attention's S, a
    // block-scaled step) with TESSERA_PINGPONG=1: measured neutral to 14%
    // slower on the H200 so far, so opt-in (docs/backends/cuda.md).
    const char *pp = std::getenv("TESSERA_PINGPONG");
    hooks.setConsumerTurns(pp && std::string(pp) == "1");
    // Epilogues that store a fragment to a tensor by TMA from a shared
    // staging tile (H100: gemm.mlir 4096 0.213 -> 0.193 ms, 8192 1.66 ->
    // 1.56 ms, fp8 -7%; docs/benchmarks.md); TESSERA_TMA_STORE=0 turns it
    // off.
    const char *ts = std::getenv("TESSERA_TMA_STORE");
    hooks.setBulkStores(!(ts && std::string(ts) == "0"));
    // Twins (kernels without TMA for tensors a tensor map cannot describe)
    // copy in their checked form alone (TargetHooks::compactCopies);
    // TESSERA_COMPACT_TWINS=0 keeps the unchecked versions too.
    const char *ct = std::getenv("TESSERA_COMPACT_TWINS");
    bool compactTwins = !(ct && std::string(ct) == "0");
    {
      tessera::ScopedPhase phase("tile passes");
      if (failed(runCorePasses(module, spec, hooks, options.printIRAfterAll)))
        return failure();
    }
    for (auto f : llvm::make_early_inc_range(module.getOps<tile::FuncOp>())) {
      std::string name = f.getSymName().str();
      // Paired blocks (tile.cluster = 2) launch on a grid rounded up to
      // whole pairs: the metadata takes the formulas the passes left.
      // Widened blocks (tile.widened) launch fewer, larger blocks; split
      // ones (tile.threads_from) more threads per block.
      bool widened = f.getKernel()->hasAttr("tile.widened");
      bool split = f.getKernel()->hasAttr("tile.threads_from");
      auto info = tessera::extractKernelInfo(f);
      if (failed(info))
        return failure();
      if (grids && (widened || f.getKernel()->hasAttr("tile.cluster_rounded")))
        grids->emplace_back(name, info->grid);
      gpu::GPUFuncOp fn = createKernelFunction(f, gpuModule, converter);
      if (!fn)
        return failure();
      if (widened || split)
        if (auto t = fn->getAttrOfType<IntegerAttr>(kThreadsAttr))
          fn->setAttr("tessera.threads_override", t);
      // The twin without TMA, distributed only when the kernel uses TMA.
      OpBuilder tb(fn);
      tb.setInsertionPointAfter(fn);
      auto twin = cast<gpu::GPUFuncOp>(tb.clone(*fn.getOperation()));
      twin.setName((fn.getName() + kFallbackSuffix).str());
      auto distribute = [&](gpu::GPUFuncOp k,
                            tessera::passes::DistributedKernel &dk) {
        tessera::ScopedPhase phase(("distribute " + k.getName()).str());
        if (failed(distributeKernelFunction(k, *desc, hooks, dk,
                                            options.printIRAfterAll)))
          return failure();
        k->setAttr("tessera.shared_bytes",
                   OpBuilder(ctx).getI64IntegerAttr(dk.sharedBytes));
        return success();
      };
      // With TMA stores, a copy to distribute without them should their
      // maps take the kernel past the maps a launch passes (its loads keep
      // theirs then).
      gpu::GPUFuncOp noStores;
      if (hooks.bulkStores()) {
        noStores = cast<gpu::GPUFuncOp>(tb.clone(*fn.getOperation()));
        noStores.setName((fn.getName() + "__no_tma_store").str());
      }
      tessera::passes::DistributedKernel dk, twinDk;
      (void)hooks.takeTensorMaps();
      hooks.setBulkCopies(true);
      if (failed(distribute(fn, dk)))
        return failure();
      std::vector<CudaTargetHooks::TensorMap> maps = hooks.takeTensorMaps();
      if (noStores && dk.bulkCopies && maps.size() > kMaxTensorMaps) {
        tessera::passes::DistributedKernel plain;
        hooks.setBulkStores(false);
        LogicalResult ok = distribute(noStores, plain);
        hooks.setBulkStores(true);
        if (failed(ok))
          return failure();
        std::string keep = fn.getName().str();
        fn.erase();
        fn = noStores;
        fn.setName(keep);
        dk = plain;
        maps = hooks.takeTensorMaps();
      } else if (noStores) {
        noStores.erase();
      }
      if (dk.bulkCopies) {
        hooks.setBulkCopies(false);
        hooks.setPersistentTwin(dk.persistent);
        // A twin that stays a twin runs only for tensors the maps cannot
        // describe: its copies in their compact form (compile time).
        hooks.setCompactCopies(maps.size() <= kMaxTensorMaps && compactTwins);
        LogicalResult twinOk = distribute(twin, twinDk);
        hooks.setCompactCopies(false);
        hooks.setPersistentTwin(false);
        hooks.setBulkCopies(true);
        if (failed(twinOk))
          return failure();
        if (maps.size() > kMaxTensorMaps) {
          // More tensors than a launch passes maps for: the twin (cp.async)
          // is the kernel.
          std::string keep = fn.getName().str();
          fn.erase();
          fn = twin;
          fn.setName(keep);
          dk = twinDk;
        } else {
          auto threadsAttr = twin->getAttrOfType<IntegerAttr>(kThreadsAttr);
          addTensorMapDescriptor(fn, maps,
                                 threadsAttr ? threadsAttr.getInt() : 0,
                                 twinDk.sharedBytes);
        }
      } else {
        twin.erase();
      }
      // Multicast copies: the kernel runs in clusters (.reqnctapercluster).
      if (dk.cluster[0] * dk.cluster[1] * dk.cluster[2] > 1)
        fn->setAttr("nvvm.cluster_dim",
                    DenseI32ArrayAttr::get(ctx, {(int32_t)dk.cluster[0],
                                                 (int32_t)dk.cluster[1],
                                                 (int32_t)dk.cluster[2]}));
      // A warp-specialized kernel launches with its copy warp.
      if (auto t = fn->getAttrOfType<IntegerAttr>(kThreadsAttr);
          t && dk.threads > t.getInt()) {
        fn.setKnownBlockSizeAttr(
            DenseI32ArrayAttr::get(ctx, {(int32_t)dk.threads, 1, 1}));
        fn->setAttr(kThreadsAttr, OpBuilder(ctx).getI64IntegerAttr(dk.threads));
        fn->setAttr("tessera.threads_override",
                    OpBuilder(ctx).getI64IntegerAttr(dk.threads));
      }
      // Where shared memory leaves room for two blocks per multiprocessor
      // and the fragments fit in half the registers, ask ptxas for two
      // (.minnctapersm 2): otherwise it may spend every register on the
      // ILP of unrolled epilogues and keep one block resident.
      {
        int64_t launched = std::max<int64_t>(1, dk.threads);
        int64_t half = desc->registersPerBlock / (2 * launched);
        if (half < 255 &&
            tessera::passes::twoBlocksPerSm(*desc, launched, dk.sharedBytes,
                                            dk.fragmentRegisters))
          fn->setAttr("nvvm.minctasm", OpBuilder(ctx).getI32IntegerAttr(2));
      }
      // Persistent blocks: as many blocks as stay resident on the device's
      // multiprocessors, at most one per tile; each walks the tiles.
      if (dk.persistent && grids) {
        std::string tiles;
        for (const std::string &g : info->grid)
          if (g != "1")
            tiles += (tiles.empty() ? "(" : " * (") + g + ")";
        if (tiles.empty())
          tiles = "1";
        std::string perSm = fn->hasAttr("nvvm.minctasm") ? "2 * " : "";
        std::array<std::string, 3> pg = {
            "min(" + tiles + ", " + perSm + "__compute_units)", "1", "1"};
        bool found = false;
        for (auto &[n, g] : *grids)
          if (n == name) {
            g = pg;
            found = true;
          }
        if (!found)
          grids->emplace_back(name, pg);
      }
      shared.emplace_back(name, (unsigned)dk.sharedBytes);
    }
  }
  if (threads)
    for (auto fn : gpuModule.getOps<gpu::GPUFuncOp>())
      if (auto t = fn->getAttrOfType<IntegerAttr>("tessera.threads_override"))
        threads->emplace_back(
            fn.getName().drop_front(kKernelSymbolPrefix.size()).str(),
            (unsigned)t.getInt());

  approximateFastExp(gpuModule);

  return success();
}
