//===- NvptxCodegen.cpp - gpu.module to PTX (LLVM NVPTX) and cubin --------===//

#include "NvptxCodegen.h"
#include "CudaTargetHooks.h"
#include "KernelFunction.h"
#include "LLVMOptimize.h"
#include "LowerTileToGpu.h"
#include "PhaseTimes.h"
#include "PtxEmitter.h"
#include "tessera/Passes/Distribute.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <cstdlib>
#include <functional>
#include <map>
#include <thread>

using namespace mlir;
using tessera::lowering::dumpFile;

namespace {

/// exp(x) and exp2(x) of f32 marked `afn` (approximate functions) as one
/// ex2.approx.ftz.f32 (of x * log2(e) for exp): the non-ftz ex2.approx
/// that LLVM selects costs ptxas a range test and two multiplies around the
/// MUFU.EX2 to keep denormal results; an approximate exp gives those up
/// (results below 2^-126 flush to zero).
template <typename ExpOp, bool natural>
struct ApproxExpToEx2 : OpRewritePattern<ExpOp> {
  using OpRewritePattern<ExpOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ExpOp op, PatternRewriter &rw) const override {
    if (!op.getType().isF32() ||
        !arith::bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn))
      return failure();
    tessera::cuda::PtxEmitter p(rw, op.getLoc());
    Value x = op.getOperand();
    if (natural)
      x = arith::MulFOp::create(
          rw, op.getLoc(), x,
          arith::ConstantOp::create(rw, op.getLoc(),
                                    rw.getF32FloatAttr(1.4426950408889634f)));
    rw.replaceOp(op, p.pureAsm("ex2.approx.ftz.f32 $0, $1;", "=f,f", {x},
                               rw.getF32Type()));
    return success();
  }
};

/// Before the NVVM lowering: arith-expand without its float min/max
/// expansion -- PTX has max.NaN.f32 / min.NaN.f32 since sm_80 (PTX 7.0), one
/// FMNMX each, which the NVPTX backend selects for llvm.maximum and
/// llvm.minimum, where arith-expand would turn every arith.maximumf into two
/// compares and two selects (a softmax's row max paid four instructions per
/// element for it); only the integer divisions arith-to-llvm cannot lower
/// are expanded. And approximate f32 exp / exp2 as ex2.approx.ftz.
/// TESSERA_PTX_FAST=0 keeps the full arith-expand and LLVM's exp, for A/B.
struct NvptxPreparePass
    : PassWrapper<NvptxPreparePass, OperationPass<gpu::GPUModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(NvptxPreparePass)
  StringRef getArgument() const override { return "tessera-nvptx-prepare"; }
  StringRef getDescription() const override {
    return "expand integer ceil/floor divisions; approximate exp as "
           "ex2.approx.ftz";
  }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    patterns.add<ApproxExpToEx2<math::ExpOp, true>,
                 ApproxExpToEx2<math::Exp2Op, false>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

bool ptxFastOff() {
  const char *v = std::getenv("TESSERA_PTX_FAST");
  return v && std::string(v) == "0";
}

/// The attribute scf-to-cf copies from an scf.for to its latch branch.
constexpr llvm::StringLiteral kLoopAnnotation = "llvm.loop_annotation";

/// The passes that lower a gpu.module of distributed kernels to the LLVM
/// and NVVM dialects.
void addNVVMPasses(OpPassManager &gm) {
  // The first clean-up of distribution's output without region
  // simplification (block merging, dead block arguments), top down: the
  // same PTX for every example and zoo kernel on sm_90a and sm_80, in a
  // quarter of the time (gemm.mlir: 82 -> 18 ms of CPU, the largest part of
  // lowering to NVVM).
  GreedyRewriteConfig firstClean;
  firstClean.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  firstClean.setUseTopDownTraversal(true);
  gm.addPass(createCanonicalizerPass(firstClean));
  gm.addPass(createCSEPass());
  if (ptxFastOff())
    gm.addPass(arith::createArithExpandOpsPass());
  else
    gm.addPass(std::make_unique<NvptxPreparePass>());
  gm.addPass(createSCFToControlFlowPass());
  gm.addPass(memref::createExpandStridedMetadataPass());
  // Distribution's vector loads and stores (their alignment attributes become
  // the LLVM accesses' alignment: ld.global.v4 and friends).
  gm.addPass(createConvertVectorToLLVMPass());
  ConvertGpuOpsToNVVMOpsOptions gpuOpts;
  gpuOpts.indexBitwidth = 64;
  gm.addPass(createConvertGpuOpsToNVVMOps(gpuOpts));
  gm.addPass(createConvertNVVMToLLVMPass());
  gm.addPass(createReconcileUnrealizedCastsPass());
  gm.addPass(createCanonicalizerPass());
  gm.addPass(createCSEPass());
}

/// What lowering to NVVM and translating to LLVM IR need registered in the
/// context: once, before any thread lowers a module.
void prepareNVVMLowering(MLIRContext *ctx) {
  // convert-gpu-to-nvvm lowers every loaded dialect with a ConvertToLLVM
  // interface; register the ones the lowering produces.
  DialectRegistry registry;
  tessera::lowering::registerKernelToLLVMInterfaces(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ctx->appendDialectRegistry(registry);
  ctx->loadDialect<cf::ControlFlowDialect, ub::UBDialect, NVVM::NVVMDialect,
                   LLVM::LLVMDialect>();
  registerBuiltinDialectTranslation(*ctx);
  registerLLVMDialectTranslation(*ctx);
  registerNVVMDialectTranslation(*ctx);
  // The dialects the passes depend on, loaded now: a pass manager loads
  // them when it runs, which two threads must not do at once.
  PassManager pm(ctx, gpu::GPUModuleOp::getOperationName());
  addNVVMPasses(pm);
  DialectRegistry deps;
  pm.getDependentDialects(deps);
  ctx->appendDialectRegistry(deps);
  for (llvm::StringRef name : deps.getDialectNames())
    ctx->getOrLoadDialect(name);
}

/// Lowers one gpu.module (the kernels, or their twins: each on a thread of
/// its own) to the LLVM and NVVM dialects.
LogicalResult lowerToNVVM(gpu::GPUModuleOp module,
                          const tessera::CompileOptions &options) {
  // Loops distribution marks `tile.no_unroll` (the copy warp's) carry
  // LLVM's unroll.disable through scf-to-cf, which copies the annotation to
  // the loop's latch branch.
  MLIRContext *ctx = module.getContext();
  auto noUnroll = LLVM::LoopAnnotationAttr::get(
      ctx, {}, {}, {},
      LLVM::LoopUnrollAttr::get(ctx, BoolAttr::get(ctx, true), {}, {}, {}, {},
                                {}, {}),
      {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {});
  module.walk([&](scf::ForOp loop) {
    if (loop->hasAttr(tessera::passes::kNoUnrollAttr))
      loop->setAttr(kLoopAnnotation, noUnroll);
    else if (auto n =
                 loop->getAttrOfType<IntegerAttr>(tessera::passes::kUnrollAttr);
             n && n.getInt() > 1)
      loop->setAttr(
          kLoopAnnotation,
          LLVM::LoopAnnotationAttr::get(
              ctx, {}, {}, {},
              LLVM::LoopUnrollAttr::get(
                  ctx, {},
                  IntegerAttr::get(IntegerType::get(ctx, 32), n.getInt()), {},
                  {}, {}, {}, {}),
              {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}));
  });
  PassManager pm(ctx, gpu::GPUModuleOp::getOperationName());
  if (options.printIRAfterAll)
    tessera::lowering::printIRAfterAll(pm);
  tessera::lowering::enablePassTimingFromEnv(pm);
  addNVVMPasses(pm);
  if (failed(pm.run(module)))
    return failure();
  // The cf-to-llvm conversion keeps the latch's annotation as a plain
  // attribute; the translation to LLVM IR reads the branch's property.
  module.walk([&](LLVM::BrOp br) {
    if (auto a = br->getDiscardableAttr(kLoopAnnotation)) {
      br.setLoopAnnotationAttr(cast<LLVM::LoopAnnotationAttr>(a));
      br->removeDiscardableAttr(kLoopAnnotation);
    }
  });
  return success();
}

std::string cudaRoot() {
  for (const char *var : {"TESSERA_CUDA_PATH", "CUDA_HOME", "CUDA_PATH"})
    if (const char *v = std::getenv(var); v && *v)
      return v;
  return "/usr/local/cuda";
}

std::string findLibdevice() {
  for (std::string dir : {cudaRoot() + "/nvvm/libdevice",
                          std::string("/usr/lib/nvidia-cuda-toolkit/libdevice"),
                          std::string("/usr/lib/cuda/nvvm/libdevice")}) {
    std::string p = dir + "/libdevice.10.bc";
    if (llvm::sys::fs::exists(p))
      return p;
  }
  return {};
}

std::string findPtxas() {
  if (const char *v = std::getenv("TESSERA_PTXAS"); v && *v)
    return v; // "none" disables it (PTX images)
  std::string p = cudaRoot() + "/bin/ptxas";
  if (llvm::sys::fs::can_execute(p))
    return p;
  if (auto found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  return {};
}

/// Entry functions whose ptxas -v report shows spill stores or loads.
std::vector<std::string> entriesThatSpill(llvm::StringRef log) {
  std::vector<std::string> out;
  llvm::StringRef current;
  llvm::SmallVector<llvm::StringRef> lines;
  log.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    size_t at = line.find("Function properties for ");
    if (at != llvm::StringRef::npos) {
      current = line.substr(at + strlen("Function properties for ")).trim();
      continue;
    }
    if (current.empty() || !line.contains("bytes spill stores"))
      continue;
    unsigned stores = 0, loads = 0;
    llvm::StringRef rest = line.trim();
    // "0 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads"
    size_t s = rest.find(" bytes spill stores");
    size_t comma = rest.rfind(',', s);
    if (s != llvm::StringRef::npos && comma != llvm::StringRef::npos)
      rest.substr(comma + 1, s - comma - 1).trim().getAsInteger(10, stores);
    size_t l = rest.find(" bytes spill loads");
    size_t comma2 = rest.rfind(',', l);
    if (l != llvm::StringRef::npos && comma2 != llvm::StringRef::npos)
      rest.substr(comma2 + 1, l - comma2 - 1).trim().getAsInteger(10, loads);
    if (stores || loads)
      out.push_back(current.str());
    current = {};
  }
  return out;
}

/// Removes `.minnctapersm 2` from the directives of the named entries;
/// returns the entries it was removed from.
std::vector<std::string>
dropOccupancyRequest(std::string &ptx,
                     const std::vector<std::string> &entries) {
  std::vector<std::string> changed;
  for (const std::string &name : entries) {
    size_t at = ptx.find(".entry " + name + "(");
    if (at == std::string::npos)
      continue;
    size_t body = ptx.find('{', at);
    size_t d = ptx.find(".minnctapersm 2", at);
    if (d == std::string::npos || d > body)
      continue;
    ptx.erase(d, strlen(".minnctapersm 2"));
    changed.push_back(name);
  }
  return changed;
}

/// Kernels that call the placeholder `__tessera_tma_map(i)` get one extra
/// parameter per map after their slots: `ptr byval([128 x i8]) align 64`
/// marked nvvm.grid_constant (PTX: `.param .align 64 .b8 [128]`, read in
/// place), and the calls become those parameters' addresses. Such kernels
/// also get `.minnctapersm 1` so that their `.maxntid` caps registers at
/// entry, which setmaxnreg needs.
LogicalResult appendTensorMapParams(llvm::Module &mod, Location loc) {
  llvm::Function *placeholder = mod.getFunction(tessera::cuda::kTmaMapFn.str());
  if (!placeholder)
    return success();
  std::map<llvm::Function *, std::vector<llvm::CallInst *>> calls;
  for (llvm::User *u : placeholder->users()) {
    auto *call = llvm::dyn_cast<llvm::CallInst>(u);
    if (!call || !llvm::isa<llvm::ConstantInt>(call->getArgOperand(0)))
      return emitError(loc)
             << "internal: bad use of the tensor map placeholder";
    calls[call->getFunction()].push_back(call);
  }
  llvm::LLVMContext &c = mod.getContext();
  auto *mapTy = llvm::ArrayType::get(llvm::Type::getInt8Ty(c), 128);
  // In the module's order (each rewritten kernel moves to the end), not the
  // map's, which follows addresses: the PTX lists the kernels the same way
  // in every compile.
  std::vector<llvm::Function *> order;
  for (llvm::Function &f : mod)
    if (calls.count(&f))
      order.push_back(&f);
  for (llvm::Function *f : order) {
    std::vector<llvm::CallInst *> &uses = calls[f];
    unsigned maps = 0;
    for (llvm::CallInst *call : uses)
      maps = std::max<unsigned>(
          maps, llvm::cast<llvm::ConstantInt>(call->getArgOperand(0))
                        ->getZExtValue() +
                    1);
    llvm::FunctionType *oldTy = f->getFunctionType();
    std::vector<llvm::Type *> params(oldTy->param_begin(), oldTy->param_end());
    unsigned first = params.size();
    for (unsigned i = 0; i < maps; ++i)
      params.push_back(llvm::PointerType::get(c, 0));
    auto *newTy =
        llvm::FunctionType::get(oldTy->getReturnType(), params, false);
    llvm::Function *nf = llvm::Function::Create(newTy, f->getLinkage(),
                                                f->getAddressSpace(), "", &mod);
    nf->copyAttributesFrom(f);
    for (unsigned i = 0; i < maps; ++i) {
      nf->addParamAttr(first + i, llvm::Attribute::getWithByValType(c, mapTy));
      nf->addParamAttr(first + i,
                       llvm::Attribute::getWithAlignment(c, llvm::Align(64)));
      nf->addParamAttr(first + i,
                       llvm::Attribute::get(c, "nvvm.grid_constant"));
      nf->addParamAttr(first + i, llvm::Attribute::NoAlias);
      nf->addParamAttr(first + i, llvm::Attribute::ReadOnly);
    }
    if (!nf->hasFnAttribute("nvvm.minctasm"))
      nf->addFnAttr("nvvm.minctasm", "1");
    nf->splice(nf->begin(), f);
    for (unsigned i = 0; i < first; ++i) {
      nf->getArg(i)->takeName(f->getArg(i));
      f->getArg(i)->replaceAllUsesWith(nf->getArg(i));
    }
    for (llvm::CallInst *call : uses) {
      unsigned idx =
          llvm::cast<llvm::ConstantInt>(call->getArgOperand(0))->getZExtValue();
      call->replaceAllUsesWith(nf->getArg(first + idx));
      call->eraseFromParent();
    }
    f->replaceAllUsesWith(nf);
    nf->takeName(f);
    f->eraseFromParent();
  }
  placeholder->eraseFromParent();
  return success();
}

/// Moves the twins without TMA (`<kernel>__fallback`) out of `primary` into
/// a gpu.module of their own, which compiles beside it (its own LLVM module,
/// on another thread) and only to PTX: the runtime loads it only when a
/// launch needs a twin. Returns that module, or null when there are no twins.
/// Everything else of `primary` (declarations, helpers) is in both; the
/// tensor-map descriptors stay with their kernels.
gpu::GPUModuleOp splitFallbackKernels(gpu::GPUModuleOp primary) {
  auto isKernel = [](Operation &op) {
    if (auto fn = dyn_cast<gpu::GPUFuncOp>(op))
      return fn.isKernel();
    if (auto fn = dyn_cast<LLVM::LLVMFuncOp>(op))
      return fn->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName());
    return false;
  };
  auto isTwin = [&](Operation &op) {
    return isKernel(op) && cast<SymbolOpInterface>(op).getName().ends_with(
                               tessera::cuda::kFallbackSuffix);
  };
  if (llvm::none_of(primary.getBody()->getOperations(), isTwin))
    return {};
  OpBuilder b(primary);
  b.setInsertionPointAfter(primary);
  auto twins = cast<gpu::GPUModuleOp>(b.clone(*primary.getOperation()));
  twins.setName((primary.getName() + tessera::cuda::kFallbackSuffix).str());
  for (Operation &op :
       llvm::make_early_inc_range(twins.getBody()->getOperations())) {
    auto global = dyn_cast<LLVM::GlobalOp>(op);
    if ((isKernel(op) && !isTwin(op)) ||
        (global &&
         global.getSymName().starts_with(tessera::cuda::kTmaGlobalPrefix)))
      op.erase();
  }
  for (Operation &op :
       llvm::make_early_inc_range(primary.getBody()->getOperations()))
    if (isTwin(op))
      op.erase();
  return twins;
}

/// One LLVM module on its way to PTX: the kernels, or their twins.
struct PtxJob {
  bool onDemand = false;
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::string ptx;
  std::string error;
  /// The twins assembled by ptxas (TESSERA_CUDA_TWINS=cubin), and its report.
  std::vector<char> cubin;
  std::string ptxasLog;
};

/// Writes a job's LLVM module and PTX as `<stem>.ll` and `<stem>.ptx` under
/// `dir` (nothing when `dir` is empty).
static void dumpJob(const std::string &dir, const std::string &stem,
                    const PtxJob &job) {
  if (dir.empty())
    return;
  std::string ll;
  llvm::raw_string_ostream os(ll);
  job.module->print(os, nullptr);
  dumpFile(dir, stem + ".ll", ll);
  dumpFile(dir, stem + ".ptx", job.ptx);
}

/// Translates the contents of `gpuModule`, alone in a builtin module, to
/// LLVM IR in a context of its own, with the codegen fixes NVPTX needs.
LogicalResult translateToLLVM(gpu::GPUModuleOp gpuModule, bool tmaKernels,
                              PtxJob &job) {
  Location loc = gpuModule.getLoc();
  OpBuilder b(gpuModule.getContext());
  auto kernels = ModuleOp::create(b, loc);
  b.setInsertionPointToStart(kernels.getBody());
  for (Operation &op : gpuModule.getBody()->getOperations())
    b.clone(op);
  job.context = std::make_unique<llvm::LLVMContext>();
  job.module = translateModuleToLLVMIR(kernels, *job.context, "tessera_cuda");
  kernels->erase();
  if (!job.module)
    return emitError(loc) << "translation to LLVM IR failed";
  llvm::Module &mod = *job.module;

  // Dynamic shared memory is an extern .shared array of no size, so that
  // it starts the block's shared window (a defined global would take a
  // byte of static shared memory before it).
  for (llvm::GlobalVariable &gv : mod.globals()) {
    auto *arr = llvm::dyn_cast<llvm::ArrayType>(gv.getValueType());
    if (gv.getAddressSpace() == 3 && arr && arr->getNumElements() == 0 &&
        gv.hasInitializer()) {
      gv.setInitializer(nullptr);
      gv.setLinkage(llvm::GlobalValue::ExternalLinkage);
      // 1024 for TMA kernels: their 128-byte swizzle atoms (the kernel
      // also rounds the base up itself). Their twins keep the alignment
      // they had beside them.
      if (tmaKernels)
        gv.setAlignment(llvm::Align(1024));
    }
  }
  return appendTensorMapParams(mod, loc);
}

/// Links libdevice where math needs it, runs LLVM's -O<optLevel> pipeline
/// and emits PTX for `chip`. Touches no MLIR, so jobs run on threads of
/// their own; failures are left in `job.error`.
void optimizeAndEmitPtx(PtxJob &job, const std::string &chip,
                        unsigned optLevel) {
  llvm::Module &mod = *job.module;
  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget) {
    job.error = "LLVM has no NVPTX target: " + error;
    return;
  }
  // sm_90a's wgmma/setmaxnreg need PTX 8.0.
  // PTX 8.4 for fp8 mma.sync on sm_89+ (ptxas of CUDA 12.4 and later).
  std::string features = chip == "sm_90a" ? "+ptx84" : "+ptx78";
  llvm::TargetOptions to;
  to.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> tm(llvmTarget->createTargetMachine(
      triple, chip, features, to, std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!tm) {
    job.error = "no NVPTX target machine for " + chip;
    return;
  }
  mod.setTargetTriple(triple);
  mod.setDataLayout(tm->createDataLayout());

  // libdevice for math calls (__nv_expf, ...), only what is used.
  bool needsLibdevice = false;
  for (llvm::Function &f : mod)
    needsLibdevice |= f.isDeclaration() && f.getName().starts_with("__nv_");
  if (needsLibdevice) {
    std::string path = findLibdevice();
    if (path.empty()) {
      job.error = "the kernel uses math functions but libdevice.10.bc was not "
                  "found (set CUDA_HOME)";
      return;
    }
    auto buf = llvm::MemoryBuffer::getFile(path);
    if (!buf) {
      job.error = "cannot read " + path;
      return;
    }
    auto lib = llvm::parseBitcodeFile((*buf)->getMemBufferRef(), *job.context);
    if (!lib) {
      llvm::consumeError(lib.takeError());
      job.error = "cannot parse " + path;
      return;
    }
    (*lib)->setTargetTriple(triple);
    (*lib)->setDataLayout(mod.getDataLayout());
    if (llvm::Linker::linkModules(mod, std::move(*lib),
                                  llvm::Linker::Flags::LinkOnlyNeeded)) {
      job.error = "linking libdevice failed";
      return;
    }
    for (llvm::Function &f : mod)
      if (!f.isDeclaration() && f.getName().starts_with("__nv_"))
        f.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  // libdevice asks __nvvm_reflect("__CUDA_FTZ"): no flush to zero.
  mod.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", (uint32_t)0);

  {
    tessera::ScopedPhase phase("LLVM -O" + std::to_string(optLevel));
    tessera::lowering::runLLVMOptimizationPipeline(mod, tm.get(), optLevel);
  }
  tessera::ScopedPhase phase("LLVM NVPTX codegen (PTX)");
  llvm::SmallVector<char, 0> out;
  llvm::raw_svector_ostream os(out);
  llvm::legacy::PassManager cg;
  if (tm->addPassesToEmitFile(cg, os, nullptr,
                              llvm::CodeGenFileType::AssemblyFile)) {
    job.error = "LLVM cannot emit PTX for " + chip;
    return;
  }
  cg.run(mod);
  job.ptx.assign(out.begin(), out.end());
}

/// Assembles `ptx` for `chip` with ptxas into `cubin`. Returns false with
/// the reason in `log`; `log` holds ptxas -v's report either way.
bool runPtxas(const std::string &ptxas, const std::string &chip,
              std::string &ptx, std::vector<char> &cubin, std::string &log) {
  llvm::SmallString<128> ptxPath, cubinPath;
  int fd;
  if (auto ec =
          llvm::sys::fs::createTemporaryFile("tessera", "ptx", fd, ptxPath)) {
    log = "cannot create a temporary file: " + ec.message();
    return false;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  llvm::sys::fs::createTemporaryFile("tessera", "cubin", cubinPath);
  std::string arch = "-arch=" + chip;
  // --split-compile=0: the kernels of a module are optimized on all cores
  // at once; compile latency is dominated by ptxas.
  // -v: the register and spill report, read below.
  llvm::SmallVector<llvm::StringRef> args = {
      ptxas, arch, "-O3", "--split-compile=0", "-v", ptxPath, "-o", cubinPath};
  int rc = tessera::lowering::runTool(ptxas, args, log);
  // A kernel asked to keep two blocks resident (.minnctapersm 2, from the
  // fragments' register estimate) that spills under that cap is compiled
  // again without the request: spills cost more than the occupancy gains.
  if (rc == 0) {
    std::vector<std::string> dropped =
        dropOccupancyRequest(ptx, entriesThatSpill(log));
    if (!dropped.empty()) {
      std::error_code ec;
      llvm::raw_fd_ostream os(ptxPath, ec);
      if (ec) {
        llvm::sys::fs::remove(ptxPath);
        llvm::sys::fs::remove(cubinPath);
        log = "cannot rewrite the PTX: " + ec.message();
        return false;
      }
      os << ptx;
      os.close();
      std::string note = "(spilled under .minnctapersm 2, compiled again "
                         "without it:";
      for (const std::string &e : dropped)
        note += " " + e;
      log.clear();
      rc = tessera::lowering::runTool(ptxas, args, log);
      log = note + ")\n" + log;
    }
  }
  llvm::sys::fs::remove(ptxPath);
  if (rc != 0) {
    llvm::sys::fs::remove(cubinPath);
    log = "ptxas failed (exit " + std::to_string(rc) + "): " + log;
    return false;
  }
  auto buf = llvm::MemoryBuffer::getFile(cubinPath);
  llvm::sys::fs::remove(cubinPath);
  if (!buf) {
    log = "cannot read the cubin ptxas wrote";
    return false;
  }
  cubin.assign((*buf)->getBufferStart(), (*buf)->getBufferEnd());
  return true;
}

} // namespace

LogicalResult tessera::cuda::emitCubin(ModuleOp module,
                                       const CompileTarget &target,
                                       const CompileOptions &options,
                                       CompiledImage &image) {
  Location loc = module.getLoc();
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<NVVM::NVVMDialect, LLVM::LLVMDialect>();

  gpu::GPUModuleOp gpuModule;
  for (auto m : module.getOps<gpu::GPUModuleOp>())
    gpuModule = m;
  if (!gpuModule)
    return emitError(loc) << "nothing to compile for the cuda backend";
  bool tmaKernels = false;
  gpuModule.walk([&](LLVM::LLVMFuncOp f) {
    tmaKernels |= f.getName() == tessera::cuda::kTmaMapFn;
  });
  // The twins of TMA kernels compile beside the kernels, to PTX only: from
  // their lowering to NVVM to their PTX on a thread of their own (their
  // module is larger than the kernels': the longer of the two paths),
  // while this one lowers and optimizes the kernels and runs ptxas on them
  // (unless the context is single-threaded, e.g. for --print-ir-after-all).
  gpu::GPUModuleOp twins = splitFallbackKernels(gpuModule);
  prepareNVVMLowering(ctx);
  tessera::lowering::initializeLLVMTargets();
  std::string chip = target.chip.empty() ? "sm_80" : target.chip;
  std::string ptxas = findPtxas();
  bool havePtxas = !ptxas.empty() && ptxas != "none";

  std::vector<PtxJob> jobs(twins ? 2 : 1);
  std::thread twinThread;
  std::function<void()> runTwins;
  // The twins' lowering or translation failed (its diagnostics are out).
  bool twinsFailed = false;
  if (twins) {
    // TESSERA_CUDA_TWINS=cubin: the twins go through ptxas too (on their
    // thread), for deployments that want no JIT at run time.
    const char *form = std::getenv("TESSERA_CUDA_TWINS");
    bool twinCubin = havePtxas && form && llvm::StringRef(form) == "cubin";
    int depth = tessera::ScopedPhase::currentDepth();
    jobs[1].onDemand = true;
    runTwins = [&jobs, &twinsFailed, &options, twins, tmaKernels, chip, depth,
                twinCubin, ptxas] {
      tessera::ScopedPhase phase(twinCubin ? "fallback twins to a cubin"
                                           : "fallback twins to PTX",
                                 depth);
      PtxJob &job = jobs[1];
      {
        tessera::ScopedPhase lower("lower to NVVM");
        if (failed(lowerToNVVM(twins, options))) {
          twinsFailed = true;
          return;
        }
      }
      {
        tessera::ScopedPhase translate("translate to LLVM IR");
        if (failed(translateToLLVM(twins, tmaKernels, job))) {
          twinsFailed = true;
          return;
        }
      }
      optimizeAndEmitPtx(job, chip, options.optLevel);
      if (twinCubin && job.error.empty()) {
        tessera::ScopedPhase ptxasPhase("ptxas");
        if (!runPtxas(ptxas, chip, job.ptx, job.cubin, job.ptxasLog))
          job.error = job.ptxasLog;
      }
    };
    // (Single-threaded, they compile after the kernels.)
    if (ctx->isMultithreadingEnabled())
      twinThread = std::thread(runTwins);
  }
  llvm::scope_exit joinTwins([&] {
    if (twinThread.joinable())
      twinThread.join();
  });

  {
    tessera::ScopedPhase phase("lower to NVVM");
    if (failed(lowerToNVVM(gpuModule, options)))
      return failure();
  }
  {
    tessera::ScopedPhase phase("translate to LLVM IR");
    if (failed(translateToLLVM(gpuModule, tmaKernels, jobs[0])))
      return failure();
  }

  PtxJob &kernels = jobs[0];
  optimizeAndEmitPtx(kernels, chip, options.optLevel);
  if (!kernels.error.empty())
    return emitError(loc) << kernels.error;
  const std::string &dir = options.dumpDir;
  dumpJob(dir, "kernel." + chip, kernels);

  if (!havePtxas) {
    image.bytes.assign(kernels.ptx.begin(), kernels.ptx.end());
    image.imageKind = "ptx";
  } else {
    tessera::ScopedPhase phase("ptxas");
    std::string log;
    if (!runPtxas(ptxas, chip, kernels.ptx, image.bytes, log))
      return emitError(loc) << log;
    image.imageKind = "cubin";
    // The PTX as assembled (an occupancy request may have been dropped).
    dumpFile(dir, "kernel." + chip + ".ptx", kernels.ptx);
    dumpFile(dir, "ptxas." + chip + ".txt", log);
    dumpFile(dir, "kernel." + chip + ".cubin",
             llvm::StringRef(image.bytes.data(), image.bytes.size()));
  }

  if (twins) {
    if (twinThread.joinable()) {
      tessera::ScopedPhase phase("wait for the fallback twins");
      twinThread.join();
    } else {
      runTwins();
    }
    if (twinsFailed)
      return failure();
    PtxJob &fb = jobs[1];
    if (!fb.error.empty())
      return emitError(loc) << fb.error;
    dumpJob(dir, "kernel." + chip + ".fallback", fb);
    if (!fb.cubin.empty()) {
      dumpFile(dir, "ptxas." + chip + ".fallback.txt", fb.ptxasLog);
      dumpFile(dir, "kernel." + chip + ".fallback.cubin",
               llvm::StringRef(fb.cubin.data(), fb.cubin.size()));
      image.onDemandBytes = std::move(fb.cubin);
      image.onDemandKind = "cubin";
    } else {
      image.onDemandBytes.assign(fb.ptx.begin(), fb.ptx.end());
      image.onDemandKind = "ptx";
    }
  }
  return success();
}
