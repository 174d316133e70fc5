//===- NvptxCodegen.cpp - gpu.module to PTX (LLVM NVPTX) and cubin --------===//

#include "NvptxCodegen.h"
#include "CudaTargetHooks.h"
#include "KernelFunction.h"
#include "LLVMOptimize.h"
#include "LowerTileToGpu.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

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
#include <map>

using namespace mlir;

namespace {

LogicalResult lowerToNVVM(ModuleOp module,
                          const tessera::CompileOptions &options) {
  // convert-gpu-to-nvvm lowers every loaded dialect with a ConvertToLLVM
  // interface; register the ones the lowering produces.
  DialectRegistry registry;
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  module.getContext()->appendDialectRegistry(registry);
  module.getContext()->loadDialect<cf::ControlFlowDialect, ub::UBDialect>();
  PassManager pm(module.getContext());
  if (options.printIRAfterAll)
    tessera::lowering::printIRAfterAll(pm);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  OpPassManager &gm = pm.nest<gpu::GPUModuleOp>();
  gm.addPass(arith::createArithExpandOpsPass());
  gm.addPass(createSCFToControlFlowPass());
  gm.addPass(memref::createExpandStridedMetadataPass());
  // Distribution's vector loads and stores (their alignment attributes become
  // the LLVM accesses' alignment: ld.global.v4 and friends).
  gm.addPass(createConvertVectorToLLVMPass());
  ConvertGpuOpsToNVVMOpsOptions gpuOpts;
  gpuOpts.indexBitwidth = 64;
  gm.addPass(createConvertGpuOpsToNVVMOps(gpuOpts));
  gm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  return pm.run(module);
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
  for (auto &[f, uses] : calls) {
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

} // namespace

LogicalResult tessera::cuda::emitCubin(ModuleOp module,
                                       const CompileTarget &target,
                                       const CompileOptions &options,
                                       std::vector<char> &bytes,
                                       std::string &imageKind) {
  Location loc = module.getLoc();
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<NVVM::NVVMDialect, LLVM::LLVMDialect>();
  if (failed(lowerToNVVM(module, options)))
    return failure();

  gpu::GPUModuleOp gpuModule;
  for (auto m : module.getOps<gpu::GPUModuleOp>())
    gpuModule = m;
  if (!gpuModule)
    return emitError(loc) << "nothing to compile for the cuda backend";

  // The gpu.module's contents, alone in a builtin module, translate to LLVM IR.
  OpBuilder b(ctx);
  auto kernels = ModuleOp::create(b, loc);
  b.setInsertionPointToStart(kernels.getBody());
  for (Operation &op : gpuModule.getBody()->getOperations())
    b.clone(op);
  registerBuiltinDialectTranslation(*ctx);
  registerLLVMDialectTranslation(*ctx);
  registerNVVMDialectTranslation(*ctx);
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(kernels, llvmContext, "tessera_cuda");
  kernels->erase();
  if (!llvmModule)
    return emitError(loc) << "translation to LLVM IR failed";

  // Dynamic shared memory is an extern .shared array of no size, so that
  // it starts the block's shared window (a defined global would take a
  // byte of static shared memory before it).
  for (llvm::GlobalVariable &gv : llvmModule->globals()) {
    auto *arr = llvm::dyn_cast<llvm::ArrayType>(gv.getValueType());
    if (gv.getAddressSpace() == 3 && arr && arr->getNumElements() == 0 &&
        gv.hasInitializer()) {
      gv.setInitializer(nullptr);
      gv.setLinkage(llvm::GlobalValue::ExternalLinkage);
      // 1024 for TMA kernels: their 128-byte swizzle atoms (the kernel
      // also rounds the base up itself).
      if (llvmModule->getFunction(tessera::cuda::kTmaMapFn.str()))
        gv.setAlignment(llvm::Align(1024));
    }
  }

  if (failed(appendTensorMapParams(*llvmModule, loc)))
    return failure();

  tessera::lowering::initializeLLVMTargets();
  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return emitError(loc) << "LLVM has no NVPTX target: " << error;
  std::string chip = target.chip.empty() ? "sm_80" : target.chip;
  // sm_90a's wgmma/setmaxnreg need PTX 8.0.
  // PTX 8.4 for fp8 mma.sync on sm_89+ (ptxas of CUDA 12.4 and later).
  std::string features = chip == "sm_90a" ? "+ptx84" : "+ptx78";
  llvm::TargetOptions to;
  to.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> tm(llvmTarget->createTargetMachine(
      triple, chip, features, to, std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!tm)
    return emitError(loc) << "no NVPTX target machine for " << chip;
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(tm->createDataLayout());

  // libdevice for math calls (__nv_expf, ...), only what is used.
  bool needsLibdevice = false;
  for (llvm::Function &f : *llvmModule)
    needsLibdevice |= f.isDeclaration() && f.getName().starts_with("__nv_");
  if (needsLibdevice) {
    std::string path = findLibdevice();
    if (path.empty())
      return emitError(loc) << "the kernel uses math functions but "
                               "libdevice.10.bc was not found (set CUDA_HOME)";
    auto buf = llvm::MemoryBuffer::getFile(path);
    if (!buf)
      return emitError(loc) << "cannot read " << path;
    auto lib = llvm::parseBitcodeFile((*buf)->getMemBufferRef(), llvmContext);
    if (!lib) {
      llvm::consumeError(lib.takeError());
      return emitError(loc) << "cannot parse " << path;
    }
    (*lib)->setTargetTriple(triple);
    (*lib)->setDataLayout(llvmModule->getDataLayout());
    if (llvm::Linker::linkModules(*llvmModule, std::move(*lib),
                                  llvm::Linker::Flags::LinkOnlyNeeded))
      return emitError(loc) << "linking libdevice failed";
    for (llvm::Function &f : *llvmModule)
      if (!f.isDeclaration() && f.getName().starts_with("__nv_"))
        f.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  // libdevice asks __nvvm_reflect("__CUDA_FTZ"): no flush to zero.
  llvmModule->addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz",
                            (uint32_t)0);

  tessera::lowering::runLLVMOptimizationPipeline(*llvmModule, tm.get(),
                                                 options.optLevel);

  std::string ptx;
  {
    llvm::SmallVector<char, 0> out;
    llvm::raw_svector_ostream os(out);
    llvm::legacy::PassManager cg;
    if (tm->addPassesToEmitFile(cg, os, nullptr,
                                llvm::CodeGenFileType::AssemblyFile))
      return emitError(loc) << "LLVM cannot emit PTX for " << chip;
    cg.run(*llvmModule);
    ptx.assign(out.begin(), out.end());
  }

  if (!options.dumpDir.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream ll(options.dumpDir + "/kernel." + chip + ".ll", ec);
    if (!ec)
      llvmModule->print(ll, nullptr);
    llvm::raw_fd_ostream px(options.dumpDir + "/kernel." + chip + ".ptx", ec);
    if (!ec)
      px << ptx;
  }

  std::string ptxas = findPtxas();
  if (ptxas.empty() || ptxas == "none") {
    bytes.assign(ptx.begin(), ptx.end());
    imageKind = "ptx";
    return success();
  }
  llvm::SmallString<128> ptxPath, cubinPath;
  int fd;
  if (auto ec =
          llvm::sys::fs::createTemporaryFile("tessera", "ptx", fd, ptxPath))
    return emitError(loc) << "cannot create a temporary file: " << ec.message();
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  llvm::sys::fs::createTemporaryFile("tessera", "cubin", cubinPath);
  std::string arch = "-arch=" + chip;
  std::string log;
  // --split-compile=0: the kernels of a module (a TMA kernel and its twin)
  // are optimized on all cores at once; compile latency is
  // dominated by ptxas.
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
      if (ec)
        return emitError(loc) << "cannot rewrite the PTX: " << ec.message();
      os << ptx;
      os.close();
      std::string note = "(spilled under .minnctapersm 2, compiled again "
                         "without it:";
      for (const std::string &e : dropped)
        note += " " + e;
      log.clear();
      rc = tessera::lowering::runTool(ptxas, args, log);
      log = note + ")\n" + log;
      if (!options.dumpDir.empty()) {
        llvm::raw_fd_ostream px(options.dumpDir + "/kernel." + chip + ".ptx",
                                ec);
        if (!ec)
          px << ptx;
      }
    }
  }
  llvm::sys::fs::remove(ptxPath);
  if (rc != 0) {
    llvm::sys::fs::remove(cubinPath);
    return emitError(loc) << "ptxas failed (exit " << rc << "): " << log;
  }
  if (!options.dumpDir.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(options.dumpDir + "/ptxas." + chip + ".txt", ec);
    if (!ec)
      os << log;
  }
  auto cubin = llvm::MemoryBuffer::getFile(cubinPath);
  llvm::sys::fs::remove(cubinPath);
  if (!cubin)
    return emitError(loc) << "cannot read the cubin ptxas wrote";
  bytes.assign((*cubin)->getBufferStart(), (*cubin)->getBufferEnd());
  imageKind = "cubin";
  if (!options.dumpDir.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(options.dumpDir + "/kernel." + chip + ".cubin", ec,
                            llvm::sys::fs::OF_None);
    if (!ec)
      os.write(bytes.data(), bytes.size());
  }
  return success();
}
