//===- AmdgpuCodegen.cpp - gpu.module to ROCDL, LLVM AMDGPU and hsaco -----===//

#include "AmdgpuCodegen.h"
#include "KernelFunction.h"
#include "LLVMOptimize.h"
#include "LowerTileToGpu.h"

#include "tessera/Passes/Passes.h"

#include "mlir/Conversion/GPUToROCDL/GPUToROCDLPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <cstdlib>
#include <map>

using namespace mlir;

namespace {

//===----------------------------------------------------------------------===//
// Math without the ROCm device libraries
//===----------------------------------------------------------------------===//

TypedAttr floatConst(Type t, double v) {
  if (auto vt = dyn_cast<VectorType>(t))
    return DenseElementsAttr::get(vt, FloatAttr::get(vt.getElementType(), v));
  return FloatAttr::get(t, v);
}

/// Replaces every math op of `m` by LLVM intrinsics (which the AMDGPU
/// backend selects to v_exp_f32, v_log_f32, v_sqrt_f32, ... with its own
/// range reduction) or a short expansion over them, so that nothing needs
/// ocml: the ROCm device libraries are not on the machines that compile.
LogicalResult lowerMathToIntrinsics(gpu::GPUModuleOp m) {
  SmallVector<Operation *> ops;
  m.walk([&](Operation *op) {
    if (isa<math::MathDialect>(op->getDialect()))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value x = op->getNumOperands() ? op->getOperand(0) : Value();
    Type t = op->getResult(0).getType();
    auto cst = [&](double v) -> Value {
      return arith::ConstantOp::create(b, loc, floatConst(t, v));
    };
    // Generic intrinsic calls: convert-gpu-to-rocdl would send the LLVM
    // dialect's math intrinsic ops (llvm.intr.exp2, ...) to ocml.
    auto intr = [&](llvm::StringRef name, ValueRange args) -> Value {
      return LLVM::CallIntrinsicOp::create(b, loc, t, b.getStringAttr(name),
                                           args)
          .getResult(0);
    };
    Value r;
    if (auto e = dyn_cast<math::ExpOp>(op)) {
      // exp(x) = exp2(x * log2 e) where approximation is allowed (one
      // multiply and v_exp_f32); llvm.exp keeps the backend's accurate
      // expansion otherwise.
      if (bitEnumContainsAll(e.getFastmath(), arith::FastMathFlags::afn))
        r = intr("llvm.exp2",
                 {arith::MulFOp::create(b, loc, x, cst(1.4426950408889634))});
      else
        r = intr("llvm.exp", {x});
    } else if (isa<math::Exp2Op>(op)) {
      r = intr("llvm.exp2", {x});
    } else if (isa<math::LogOp>(op)) {
      r = intr("llvm.log", {x});
    } else if (isa<math::Log2Op>(op)) {
      r = intr("llvm.log2", {x});
    } else if (isa<math::Log10Op>(op)) {
      r = intr("llvm.log10", {x});
    } else if (isa<math::SqrtOp>(op)) {
      r = intr("llvm.sqrt", {x});
    } else if (isa<math::RsqrtOp>(op)) {
      r = arith::DivFOp::create(b, loc, cst(1.0), intr("llvm.sqrt", {x}));
    } else if (isa<math::AbsFOp>(op)) {
      r = intr("llvm.fabs", {x});
    } else if (isa<math::FloorOp>(op)) {
      r = intr("llvm.floor", {x});
    } else if (isa<math::CeilOp>(op)) {
      r = intr("llvm.ceil", {x});
    } else if (isa<math::SinOp>(op)) {
      r = intr("llvm.sin", {x});
    } else if (isa<math::CosOp>(op)) {
      r = intr("llvm.cos", {x});
    } else if (isa<math::FmaOp>(op)) {
      r = intr("llvm.fma", {x, op->getOperand(1), op->getOperand(2)});
    } else if (isa<math::CopySignOp>(op)) {
      r = intr("llvm.copysign", {x, op->getOperand(1)});
    } else if (isa<math::TanhOp>(op)) {
      // tanh|x| = 1 - 2 / (exp(2|x|) + 1), sign from x: exact at the ends
      // (exp overflows to inf, giving 1) and without cancellation issues
      // beyond those of the division near 0.
      Value ax = intr("llvm.fabs", {x});
      Value e2 = intr(
          "llvm.exp2",
          {arith::MulFOp::create(b, loc, ax, cst(2.0 * 1.4426950408889634))});
      Value frac = arith::DivFOp::create(
          b, loc, cst(2.0), arith::AddFOp::create(b, loc, e2, cst(1.0)));
      Value mag = arith::SubFOp::create(b, loc, cst(1.0), frac);
      r = intr("llvm.copysign", {mag, x});
    } else {
      return op->emitOpError("has no lowering for AMD GPUs without the ROCm "
                             "device libraries");
    }
    op->getResult(0).replaceAllUsesWith(r);
    op->erase();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// gpu -> ROCDL -> LLVM dialect
//===----------------------------------------------------------------------===//

LogicalResult lowerToROCDL(ModuleOp module, llvm::StringRef chip,
                           const tessera::CompileOptions &options) {
  // convert-gpu-to-rocdl lowers every loaded dialect with a ConvertToLLVM
  // interface; register the ones the lowering produces.
  DialectRegistry registry;
  tessera::lowering::registerKernelToLLVMInterfaces(registry);
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
  // Vector ops lower inside convert-gpu-to-rocdl (its ConvertToLLVM
  // interfaces), which also maps the workgroup memory space of LDS
  // vector loads; their alignment attributes become the accesses' (dwordx4,
  // ds_read_b128).
  ConvertGpuOpsToROCDLOpsOptions gpuOpts;
  gpuOpts.chipset = chip.str();
  gpuOpts.indexBitwidth = 64;
  gpuOpts.runtime = gpu::amd::Runtime::HIP;
  gm.addPass(createConvertGpuOpsToROCDLOps(gpuOpts));
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  return pm.run(module);
}

//===----------------------------------------------------------------------===//
// Tools
//===----------------------------------------------------------------------===//

std::string findLld() {
  if (const char *v = std::getenv("TESSERA_LD_LLD"); v && *v)
    return v;
  for (const char *p : {"/usr/lib/llvm-22/bin/ld.lld"})
    if (llvm::sys::fs::can_execute(p))
      return p;
  for (const char *name : {"ld.lld-22", "ld.lld"})
    if (auto found = llvm::sys::findProgramByName(name))
      return *found;
  return {};
}

//===----------------------------------------------------------------------===//
// Budgets from the code object's metadata
//===----------------------------------------------------------------------===//

/// What the AMDGPU backend reports for one kernel (the NT_AMDGPU_METADATA
/// note, "amdhsa.kernels").
struct KernelResources {
  std::string name;
  int64_t ldsBytes = 0, vgprs = 0, agprs = 0, sgprs = 0, scratchBytes = 0;
  int64_t vgprSpills = 0;
};

LogicalResult readKernelResources(Location loc, llvm::StringRef hsaco,
                                  std::vector<KernelResources> &out) {
  auto obj = llvm::object::ObjectFile::createELFObjectFile(
      llvm::MemoryBufferRef(hsaco, "hsaco"));
  if (!obj) {
    llvm::consumeError(obj.takeError());
    return emitError(loc) << "the linked hsaco is not an ELF file";
  }
  auto *elf = dyn_cast<llvm::object::ELF64LEObjectFile>(obj->get());
  if (!elf)
    return emitError(loc) << "the linked hsaco is not a 64-bit ELF file";
  const auto &file = elf->getELFFile();
  auto sections = file.sections();
  if (!sections) {
    llvm::consumeError(sections.takeError());
    return emitError(loc) << "cannot read the hsaco's sections";
  }
  bool found = false;
  for (const auto &sec : *sections) {
    if (sec.sh_type != llvm::ELF::SHT_NOTE)
      continue;
    llvm::Error err = llvm::Error::success();
    for (const auto &note : file.notes(sec, err)) {
      if (note.getName() != "AMDGPU" ||
          note.getType() != llvm::ELF::NT_AMDGPU_METADATA)
        continue;
      llvm::ArrayRef<uint8_t> desc = note.getDesc(sec.sh_addralign);
      llvm::msgpack::Document doc;
      if (!doc.readFromBlob(
              llvm::StringRef((const char *)desc.data(), desc.size()),
              /*Multi=*/false))
        return emitError(loc) << "cannot parse the hsaco's kernel metadata";
      found = true;
      auto &root = doc.getRoot().getMap(/*Convert=*/true);
      auto &kernels = root["amdhsa.kernels"].getArray(/*Convert=*/true);
      for (auto &k : kernels) {
        auto &m = k.getMap(/*Convert=*/true);
        auto num = [&](const char *key) -> int64_t {
          auto it = m.find(m.getDocument()->getNode(key));
          if (it == m.end())
            return 0;
          auto &n = it->second;
          return n.getKind() == llvm::msgpack::Type::Int    ? n.getInt()
                 : n.getKind() == llvm::msgpack::Type::UInt ? n.getUInt()
                                                            : 0;
        };
        KernelResources r;
        auto it = m.find(m.getDocument()->getNode(".name"));
        if (it != m.end() &&
            it->second.getKind() == llvm::msgpack::Type::String)
          r.name = it->second.getString().str();
        r.ldsBytes = num(".group_segment_fixed_size");
        r.vgprs = num(".vgpr_count");
        r.agprs = num(".agpr_count");
        r.sgprs = num(".sgpr_count");
        r.scratchBytes = num(".private_segment_fixed_size");
        r.vgprSpills = num(".vgpr_spill_count");
        out.push_back(r);
      }
    }
    if (err) {
      llvm::consumeError(std::move(err));
      return emitError(loc) << "cannot read the hsaco's notes";
    }
  }
  if (!found)
    return emitError(loc) << "the hsaco has no AMDGPU kernel metadata note";
  return success();
}

} // namespace

LogicalResult tessera::hip::emitHsaco(
    ModuleOp module, const CompileTarget &target, const CompileOptions &options,
    const std::vector<std::pair<std::string, unsigned>> &sharedBytes,
    std::vector<char> &bytes) {
  Location loc = module.getLoc();
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<ROCDL::ROCDLDialect, LLVM::LLVMDialect>();
  std::string spec =
      target.descriptionPath.empty() ? target.chip : target.descriptionPath;
  std::string error;
  auto desc = tessera::passes::resolveTarget(spec, &error);
  if (!desc)
    return emitError(loc) << error;
  std::string chip = desc->chip;

  gpu::GPUModuleOp gpuModule;
  for (auto m : module.getOps<gpu::GPUModuleOp>())
    gpuModule = m;
  if (!gpuModule)
    return emitError(loc) << "nothing to compile for the hip backend";
  // The block size of each kernel, for its flat work-group size: with the
  // exact size the backend may give each wave all the registers a SIMD has
  // for that many waves, rather than budget for 1024 threads.
  std::map<std::string, int64_t> threads;
  // Budget errors point at the tile.func of the kernel.
  std::map<std::string, Location> kernelLocs;
  for (auto fn : gpuModule.getOps<gpu::GPUFuncOp>()) {
    kernelLocs.emplace(fn.getName().str(), fn.getLoc());
    if (auto t = fn->getAttrOfType<IntegerAttr>(kThreadsAttr))
      threads[fn.getName().str()] = t.getInt();
  }
  if (failed(lowerMathToIntrinsics(gpuModule)))
    return failure();
  if (failed(lowerToROCDL(module, chip, options)))
    return failure();

  OpBuilder b(ctx);
  auto kernels = ModuleOp::create(b, loc);
  b.setInsertionPointToStart(kernels.getBody());
  for (Operation &op : gpuModule.getBody()->getOperations())
    b.clone(op);
  registerBuiltinDialectTranslation(*ctx);
  registerLLVMDialectTranslation(*ctx);
  registerROCDLDialectTranslation(*ctx);
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(kernels, llvmContext, "tessera_hip");
  kernels->erase();
  if (!llvmModule)
    return emitError(loc) << "translation to LLVM IR failed";

  // Dynamic LDS is an external addrspace(3) array of no size (HIP's
  // `extern __shared__`): the launch sizes it, and it is not part of the
  // kernel's fixed group segment.
  for (llvm::GlobalVariable &gv : llvmModule->globals()) {
    auto *arr = llvm::dyn_cast<llvm::ArrayType>(gv.getValueType());
    if (gv.getAddressSpace() == 3 && arr && arr->getNumElements() == 0) {
      gv.setInitializer(nullptr);
      gv.setLinkage(llvm::GlobalValue::ExternalLinkage);
      gv.setAlignment(llvm::Align(16));
    }
  }
  for (llvm::Function &f : *llvmModule) {
    if (f.getCallingConv() != llvm::CallingConv::AMDGPU_KERNEL)
      continue;
    auto it = threads.find(f.getName().str());
    if (it == threads.end())
      continue;
    std::string n = std::to_string(it->second);
    f.addFnAttr("amdgpu-flat-work-group-size", n + "," + n);
    f.addFnAttr("uniform-work-group-size", "true");
  }
  // Code object v5 (ROCm 5.x+ loaders read it; v6 needs ROCm 6.2).
  llvmModule->addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version",
                            500);

  tessera::lowering::initializeLLVMTargets();
  llvm::Triple triple("amdgcn-amd-amdhsa");
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return emitError(loc) << "LLVM has no AMDGPU target: " << error;
  // The wave size the description (and so distribution) assumed.
  std::string features =
      desc->warpSize == 64 ? "+wavefrontsize64" : "+wavefrontsize32";
  llvm::TargetOptions to;
  to.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> tm(llvmTarget->createTargetMachine(
      triple, chip, features, to, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!tm)
    return emitError(loc) << "no AMDGPU target machine for " << chip;
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(tm->createDataLayout());
  for (llvm::Function &f : *llvmModule)
    if (f.isDeclaration() && !f.isIntrinsic() && !f.use_empty())
      return emitError(loc) << "the kernels call '" << f.getName()
                            << "', which needs the ROCm device libraries";

  tessera::lowering::runLLVMOptimizationPipeline(*llvmModule, tm.get(),
                                                 options.optLevel);
  if (!options.dumpDir.empty()) {
    std::string ll;
    llvm::raw_string_ostream os(ll);
    llvmModule->print(os, nullptr);
    tessera::lowering::dumpFile(options.dumpDir, "kernel." + chip + ".ll", ll);
  }

  llvm::SmallVector<char, 0> object;
  {
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager cg;
    if (tm->addPassesToEmitFile(cg, os, nullptr,
                                llvm::CodeGenFileType::ObjectFile))
      return emitError(loc) << "LLVM cannot emit an object for " << chip;
    cg.run(*llvmModule);
  }
  tessera::lowering::dumpFile(options.dumpDir, "kernel." + chip + ".o",
                              llvm::StringRef(object.data(), object.size()));

  // ld.lld -shared makes the relocatable object a loadable code object.
  std::string lld = findLld();
  if (lld.empty())
    return emitError(loc) << "ld.lld was not found (set TESSERA_LD_LLD); the "
                             "hip backend links its code objects with it";
  llvm::SmallString<128> objPath, hsacoPath;
  int fd;
  if (auto ec = llvm::sys::fs::createTemporaryFile("tessera", "o", fd, objPath))
    return emitError(loc) << "cannot create a temporary file: " << ec.message();
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(object.data(), object.size());
  }
  llvm::sys::fs::createTemporaryFile("tessera", "hsaco", hsacoPath);
  std::string log;
  int rc = tessera::lowering::runTool(
      lld, {lld, "-shared", "--no-undefined", objPath, "-o", hsacoPath}, log);
  llvm::sys::fs::remove(objPath);
  if (rc != 0) {
    llvm::sys::fs::remove(hsacoPath);
    return emitError(loc) << "ld.lld failed (exit " << rc << "): " << log;
  }
  auto hsaco = llvm::MemoryBuffer::getFile(hsacoPath);
  llvm::sys::fs::remove(hsacoPath);
  if (!hsaco)
    return emitError(loc) << "cannot read the hsaco ld.lld wrote";
  bytes.assign((*hsaco)->getBufferStart(), (*hsaco)->getBufferEnd());
  tessera::lowering::dumpFile(options.dumpDir, "kernel." + chip + ".hsaco",
                              (*hsaco)->getBuffer());

  // Budgets: distribution checked the fragments and the planned LDS; the
  // code object says what the backend really used (addresses, indices and
  // spills included). A kernel that cannot launch on the chip fails here.
  std::vector<KernelResources> resources;
  if (failed(readKernelResources(loc, (*hsaco)->getBuffer(), resources)))
    return failure();
  std::map<std::string, int64_t> dynamicLds;
  for (auto &[name, bytes] : sharedBytes)
    dynamicLds[(kKernelSymbolPrefix + name).str()] = bytes;
  bool ok = true;
  for (const KernelResources &r : resources) {
    auto locIt = kernelLocs.find(r.name);
    Location kloc = locIt == kernelLocs.end() ? loc : locIt->second;
    int64_t lds = r.ldsBytes + dynamicLds[r.name];
    if (desc->sharedMemoryPerBlockOptin > 0 &&
        lds > desc->sharedMemoryPerBlockOptin) {
      emitError(kloc) << "kernel '" << r.name << "' needs " << lds
                      << " bytes of LDS (" << r.ldsBytes << " static + "
                      << dynamicLds[r.name] << " dynamic), more than the "
                      << desc->sharedMemoryPerBlockOptin << " of target '"
                      << desc->name << "'";
      ok = false;
    }
    // On CDNA's unified register file (gfx90a, gfx94x, gfx950) the
    // metadata's VGPR count already spans the AGPRs after them.
    bool unified = chip == "gfx90a" ||
                   llvm::StringRef(chip).starts_with("gfx94") ||
                   chip == "gfx950";
    int64_t regs = unified ? std::max(r.vgprs, r.agprs) : r.vgprs + r.agprs;
    int64_t block = threads.count(r.name) ? threads[r.name] : 0;
    if (desc->registersPerThread > 0 && regs > desc->registersPerThread) {
      emitError(kloc) << "kernel '" << r.name << "' needs " << regs
                      << " VGPRs (" << r.agprs
                      << " of them AGPRs) per thread, more than the "
                      << desc->registersPerThread << " of target '"
                      << desc->name << "'";
      ok = false;
    } else if (desc->registersPerBlock > 0 && block > 0 &&
               regs * block > desc->registersPerBlock) {
      emitError(kloc) << "kernel '" << r.name << "' needs " << regs
                      << " registers per thread x " << block
                      << " threads, more than the " << desc->registersPerBlock
                      << " a block may have on target '" << desc->name << "'";
      ok = false;
    }
  }
  return success(ok);
}
