//===- CpuCodegen.cpp - LLVM dialect to a host shared object --------------===//

#include "CpuCodegen.h"
#include "KernelFunction.h"
#include "LLVMOptimize.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;

namespace {

/// math.exp and friends become inline polynomials: vectorizable, and the
/// shared object needs no libm.
struct ApproximateMath : PassWrapper<ApproximateMath, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ApproximateMath)
  StringRef getArgument() const override {
    return "tessera-cpu-approximate-math";
  }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

LogicalResult lowerToLLVMDialect(ModuleOp module,
                                 const tessera::CompileOptions &options) {
  PassManager pm(module.getContext());
  if (options.printIRAfterAll)
    tessera::lowering::printIRAfterAll(pm);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(std::make_unique<ApproximateMath>());
  pm.addPass(arith::createArithExpandOpsPass());
  pm.addPass(createSCFToControlFlowPass());
  // The gemm micro-kernel's vector.load/store/fma/broadcast.
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  return pm.run(module);
}

std::string findLinker() {
  for (const char *name : {"ld.lld-22", "ld.lld"}) {
    if (auto p = llvm::sys::findProgramByName(name))
      return *p;
  }
  if (llvm::sys::fs::exists("/usr/lib/llvm-22/bin/ld.lld"))
    return "/usr/lib/llvm-22/bin/ld.lld";
  return {};
}

} // namespace

/// x86 code generation calls __truncsfbf2 for every f32 -> bf16 rounding it
/// makes itself (a bf16 value in a register is kept as an f32 there on
/// chips without AVX512-BF16, and stored back through the call), and the
/// module's loader has nothing to resolve it with (libgcc 12 lacks it):
/// the module carries its own, hidden. Round to nearest even; NaNs stay
/// quiet NaNs of the same sign.
static void defineBf16Truncation(llvm::Module &m) {
  const char *name = "__truncsfbf2";
  if (m.getFunction(name))
    return;
  llvm::LLVMContext &ctx = m.getContext();
  auto *fty = llvm::FunctionType::get(llvm::Type::getBFloatTy(ctx),
                                      {llvm::Type::getFloatTy(ctx)}, false);
  auto *f =
      llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage, name, m);
  f->setVisibility(llvm::GlobalValue::HiddenVisibility);
  f->setDSOLocal(true);
  llvm::IRBuilder<> ib(llvm::BasicBlock::Create(ctx, "", f));
  llvm::Value *x = f->getArg(0);
  llvm::Value *bits = ib.CreateBitCast(x, ib.getInt32Ty());
  llvm::Value *high = ib.CreateLShr(bits, 16);
  llvm::Value *lsb = ib.CreateAnd(high, 1);
  llvm::Value *rounded = ib.CreateLShr(
      ib.CreateAdd(bits, ib.CreateAdd(ib.getInt32(0x7fff), lsb)), 16);
  llvm::Value *nan = ib.CreateOr(high, 0x40);
  llvm::Value *r = ib.CreateSelect(ib.CreateFCmpUNO(x, x), nan, rounded);
  ib.CreateRet(ib.CreateBitCast(ib.CreateTrunc(r, ib.getInt16Ty()),
                                llvm::Type::getBFloatTy(ctx)));
}

LogicalResult tessera::cpu::emitSharedObject(ModuleOp module,
                                             const CompileTarget &target,
                                             const CompileOptions &options,
                                             std::vector<char> &bytes) {
  Location loc = module.getLoc();
  if (failed(lowerToLLVMDialect(module, options)))
    return failure();

  tessera::lowering::initializeLLVMTargets();
  llvm::Triple triple(target.triple);
  std::string error;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return emitError(loc) << "cannot compile for '" << target.triple
                          << "': " << error;
  bool native =
      triple.getArch() ==
          llvm::Triple(llvm::sys::getProcessTriple()).getArch() &&
      (target.chip.empty() || target.chip == "host" || target.chip == "native");
  std::string cpu = native ? llvm::sys::getHostCPUName().str()
                           : (target.chip.empty() || target.chip == "host"
                                  ? std::string("generic")
                                  : target.chip);
  std::string features;
  if (native) {
    llvm::SubtargetFeatures f;
    for (auto &[name, on] : llvm::sys::getHostCPUFeatures())
      f.AddFeature(name, on);
    features = f.getString();
  }
  llvm::TargetOptions to;
  to.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> tm(llvmTarget->createTargetMachine(
      triple, cpu, features, to, llvm::Reloc::PIC_, std::nullopt,
      options.optLevel >= 3 ? llvm::CodeGenOptLevel::Aggressive
                            : llvm::CodeGenOptLevel::Default));
  if (!tm)
    return emitError(loc) << "no LLVM target machine for " << target.triple
                          << " cpu " << cpu;

  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "tessera");
  if (!llvmModule)
    return emitError(loc) << "translation to LLVM IR failed";
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(tm->createDataLayout());

  // The optimization pipeline of -O<level>.
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = options.optLevel >= 2;
  pto.SLPVectorization = options.optLevel >= 2;
  tessera::lowering::runLLVMOptimizationPipeline(*llvmModule, tm.get(),
                                                 options.optLevel, pto);
  if (triple.isX86())
    defineBf16Truncation(*llvmModule);

  llvm::SmallVector<char, 0> object;
  {
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager cg;
    if (tm->addPassesToEmitFile(cg, os, nullptr,
                                llvm::CodeGenFileType::ObjectFile))
      return emitError(loc)
             << "LLVM cannot emit an object file for " << target.triple;
    cg.run(*llvmModule);
  }

  if (!options.dumpDir.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream ll(
        options.dumpDir + "/kernel." + target.triple + ".ll", ec);
    if (!ec)
      llvmModule->print(ll, nullptr);
  }

  // Link the object into a shared object with lld.
  std::string linker = findLinker();
  if (linker.empty())
    return emitError(loc) << "ld.lld not found (install lld-22)";
  llvm::SmallString<128> objPath, soPath;
  int objFd;
  if (auto ec =
          llvm::sys::fs::createTemporaryFile("tessera", "o", objFd, objPath))
    return emitError(loc) << "cannot create a temporary file: " << ec.message();
  {
    llvm::raw_fd_ostream os(objFd, /*shouldClose=*/true);
    os.write(object.data(), object.size());
  }
  if (auto ec = llvm::sys::fs::createTemporaryFile("tessera", "so", soPath)) {
    llvm::sys::fs::remove(objPath);
    return emitError(loc) << "cannot create a temporary file: " << ec.message();
  }
  llvm::SmallString<128> errPath;
  llvm::sys::fs::createTemporaryFile("tessera-ld", "txt", errPath);
  std::string errMsg;
  llvm::StringRef args[] = {linker, "-shared", "--no-undefined-version",
                            "-O1",  "-o",      soPath,
                            objPath};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, errPath.str(),
                                                errPath.str()};
  int rc = llvm::sys::ExecuteAndWait(linker, args, std::nullopt, redirects, 0,
                                     0, &errMsg);
  llvm::sys::fs::remove(objPath);
  std::string linkLog;
  if (auto buf = llvm::MemoryBuffer::getFile(errPath))
    linkLog = (*buf)->getBuffer().str();
  llvm::sys::fs::remove(errPath);
  if (rc != 0) {
    llvm::sys::fs::remove(soPath);
    return emitError(loc) << "linking the shared object failed (" << linker
                          << ", exit " << rc << "): " << errMsg << linkLog;
  }
  auto so = llvm::MemoryBuffer::getFile(soPath);
  llvm::sys::fs::remove(soPath);
  if (!so)
    return emitError(loc) << "cannot read the linked shared object";
  bytes.assign((*so)->getBufferStart(), (*so)->getBufferEnd());
  return success();
}
