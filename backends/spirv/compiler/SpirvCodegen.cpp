//===- SpirvCodegen.cpp - distributed gpu.module to a SPIR-V image --------===//
//
// The upstream conversions take the legalized gpu.module to one spirv.module
// (gpu, arith, math, memref, scf, vector, index, ub). Then the kernel ABI of
// tessera/spirv/image.h: each entry function's 32-bit slot arguments become
// loads from a push-constant block of its own, and its storage-buffer
// arguments become the interface variables at set 0, bindings 0..n-1
// (spirv-lower-abi-attrs). The module is serialized and put behind the image
// table the runtime plugin reads.
//
//===----------------------------------------------------------------------===//

#include "KernelFunction.h"
#include "LowerTileToSpirv.h"
#include "SpirvScheduling.h"

#include "tessera/Passes/Passes.h"
#include "tessera/spirv/image.h"

#include "mlir/Conversion/ArithToSPIRV/ArithToSPIRV.h"
#include "mlir/Conversion/FuncToSPIRV/FuncToSPIRV.h"
#include "mlir/Conversion/GPUToSPIRV/GPUToSPIRV.h"
#include "mlir/Conversion/IndexToSPIRV/IndexToSPIRV.h"
#include "mlir/Conversion/MathToSPIRV/MathToSPIRV.h"
#include "mlir/Conversion/MemRefToSPIRV/MemRefToSPIRV.h"
#include "mlir/Conversion/SCFToSPIRV/SCFToSPIRV.h"
#include "mlir/Conversion/UBToSPIRV/UBToSPIRV.h"
#include "mlir/Conversion/VectorToSPIRV/VectorToSPIRV.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/SPIRV/Serialization.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace spv = ::mlir::spirv;

namespace {

/// The SPIR-V environment every Vulkan 1.3 device of a TargetDescription is
/// assumed to have: 16- and 8-bit arithmetic and storage, subgroup shuffles
/// and arithmetic, float atomics. spirv-update-vce keeps only what a module
/// uses.
spv::TargetEnvAttr targetEnv(MLIRContext *ctx,
                             const tessera::target::TargetDescription &d) {
  using C = spv::Capability;
  using E = spv::Extension;
  SmallVector<C> caps = {C::Shader,
                         C::Float16,
                         C::Int16,
                         C::Int8,
                         C::Int64,
                         C::StorageBuffer16BitAccess,
                         C::StorageBuffer8BitAccess,
                         C::GroupNonUniform,
                         C::GroupNonUniformShuffle,
                         C::GroupNonUniformArithmetic,
                         C::GroupNonUniformBallot,
                         C::GroupNonUniformVote,
                         C::AtomicFloat32AddEXT};
  SmallVector<E> exts = {E::SPV_KHR_16bit_storage, E::SPV_KHR_8bit_storage,
                         E::SPV_KHR_storage_buffer_storage_class,
                         E::SPV_EXT_shader_atomic_float_add};
  // Cooperative matrices in shaders come with the Vulkan memory model.
  if (llvm::any_of(d.mmaAtoms, [](const tessera::target::MmaAtom &a) {
        return a.kind == tessera::target::MmaKind::CoopMat;
      })) {
    caps.append({C::CooperativeMatrixKHR, C::VulkanMemoryModel,
                 C::VulkanMemoryModelDeviceScope});
    exts.append(
        {E::SPV_KHR_cooperative_matrix, E::SPV_KHR_vulkan_memory_model});
  }
  auto vce = spv::VerCapExtAttr::get(spv::Version::V_1_6, caps, exts, ctx);
  Builder b(ctx);
  int64_t shared = d.sharedMemoryPerBlockOptin ? d.sharedMemoryPerBlockOptin
                                               : d.sharedMemoryPerBlock;
  auto limits = spv::ResourceLimitsAttr::get(
      ctx, (int)shared, d.maxThreadsPerBlock,
      b.getI32ArrayAttr({d.maxThreadsPerBlock, 1, 1}), d.warpSize, d.warpSize,
      d.warpSize, b.getArrayAttr({}), b.getArrayAttr({}));
  return spv::TargetEnvAttr::get(vce, limits, spv::ClientAPI::Vulkan);
}

/// What the upstream patterns leave out: exp2 and log2 (GLSL.std.450 has
/// both) and float atomic adds (SPV_EXT_shader_atomic_float_add).
template <typename From, typename To>
struct UnaryGLPattern final : OpConversionPattern<From> {
  using OpConversionPattern<From>::OpConversionPattern;
  LogicalResult matchAndRewrite(From op, typename From::Adaptor a,
                                ConversionPatternRewriter &rw) const override {
    Type t = this->getTypeConverter()->convertType(op.getType());
    if (!t || !isa<FloatType>(getElementTypeOrSelf(t)))
      return failure();
    rw.replaceOpWithNewOp<To>(op, t, a.getOperand());
    return success();
  }
};

struct AtomicFAddPattern final : OpConversionPattern<memref::AtomicRMWOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(memref::AtomicRMWOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    if (op.getKind() != arith::AtomicRMWKind::addf || !op.getType().isF32())
      return failure();
    const auto &tc = *getTypeConverter<SPIRVTypeConverter>();
    Value ptr = spv::getElementPtr(tc, op.getMemRefType(), a.getMemref(),
                                   a.getIndices(), op.getLoc(), rw);
    if (!ptr)
      return failure();
    auto space =
        cast<spv::StorageClassAttr>(op.getMemRefType().getMemorySpace());
    spv::Scope scope = space.getValue() == spv::StorageClass::Workgroup
                           ? spv::Scope::Workgroup
                           : spv::Scope::Device;
    rw.replaceOpWithNewOp<spv::EXTAtomicFAddOp>(
        op, rw.getF32Type(), ptr, spv::ScopeAttr::get(rw.getContext(), scope),
        spv::MemorySemanticsAttr::get(rw.getContext(),
                                      spv::MemorySemantics::None),
        a.getValue());
    return success();
  }
};

/// Integer atomics with relaxed semantics (as the float add above): the
/// upstream pattern asks for acquire-release without a storage-class bit,
/// which Vulkan's validation rejects. Relaxed is what tile.atomic promises
/// (no ordering with other memory).
struct AtomicIntPattern final : OpConversionPattern<memref::AtomicRMWOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(memref::AtomicRMWOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    using K = arith::AtomicRMWKind;
    if (!op.getType().isInteger(32))
      return failure();
    const auto &tc = *getTypeConverter<SPIRVTypeConverter>();
    Value ptr = spv::getElementPtr(tc, op.getMemRefType(), a.getMemref(),
                                   a.getIndices(), op.getLoc(), rw);
    if (!ptr)
      return failure();
    auto space =
        cast<spv::StorageClassAttr>(op.getMemRefType().getMemorySpace());
    auto scope = spv::ScopeAttr::get(
        rw.getContext(), space.getValue() == spv::StorageClass::Workgroup
                             ? spv::Scope::Workgroup
                             : spv::Scope::Device);
    auto sem = spv::MemorySemanticsAttr::get(rw.getContext(),
                                             spv::MemorySemantics::None);
    Type t = tc.convertType(op.getType());
    Value v = a.getValue();
    switch (op.getKind()) {
    case K::addi:
      rw.replaceOpWithNewOp<spv::AtomicIAddOp>(op, t, ptr, scope, sem, v);
      return success();
    case K::maxs:
      rw.replaceOpWithNewOp<spv::AtomicSMaxOp>(op, t, ptr, scope, sem, v);
      return success();
    case K::mins:
      rw.replaceOpWithNewOp<spv::AtomicSMinOp>(op, t, ptr, scope, sem, v);
      return success();
    case K::maxu:
      rw.replaceOpWithNewOp<spv::AtomicUMaxOp>(op, t, ptr, scope, sem, v);
      return success();
    case K::minu:
      rw.replaceOpWithNewOp<spv::AtomicUMinOp>(op, t, ptr, scope, sem, v);
      return success();
    default:
      return failure();
    }
  }
};

LogicalResult convertToSpirv(ModuleOp module, gpu::GPUModuleOp gpuModule,
                             spv::TargetEnvAttr env,
                             const tessera::CompileOptions &options) {
  MLIRContext *ctx = module.getContext();
  gpuModule->setAttr(spv::getTargetEnvAttrName(), env);
  std::unique_ptr<ConversionTarget> target = SPIRVConversionTarget::get(env);
  SPIRVConversionOptions opts;
  opts.use64bitIndex = false;
  opts.emulateLT32BitScalarTypes = false;
  opts.emulateUnsupportedFloatTypes = true;
  SPIRVTypeConverter converter(env, opts);
  populateMMAToSPIRVCoopMatrixTypeConversion(converter);
  RewritePatternSet patterns(ctx);
  populateGPUToSPIRVPatterns(converter, patterns);
  populateGpuWMMAToSPIRVCoopMatrixKHRConversionPatterns(converter, patterns);
  ScfToSPIRVContext scfContext;
  populateSCFToSPIRVPatterns(converter, scfContext, patterns);
  arith::populateArithToSPIRVPatterns(converter, patterns);
  populateMathToSPIRVPatterns(converter, patterns);
  populateMemRefToSPIRVPatterns(converter, patterns);
  populateVectorToSPIRVPatterns(converter, patterns);
  index::populateIndexToSPIRVPatterns(converter, patterns);
  ub::populateUBToSPIRVConversionPatterns(converter, patterns);
  populateFuncToSPIRVPatterns(converter, patterns);
  patterns.add<UnaryGLPattern<math::Exp2Op, spv::GLExp2Op>,
               UnaryGLPattern<math::Log2Op, spv::GLLog2Op>, AtomicFAddPattern>(
      converter, ctx);
  // Before the upstream integer atomics (their semantics fail validation).
  patterns.add<AtomicIntPattern>(converter, ctx, /*benefit=*/2);
  if (failed(applyFullConversion(gpuModule.getOperation(), *target,
                                 std::move(patterns))))
    return failure();
  (void)options;
  return success();
}

/// Replaces the slot arguments of each entry function (those whose ABI
/// attribute names set 1) by loads from a push-constant block of its own,
/// leaving the storage buffers (set 0) to spirv-lower-abi-attrs.
LogicalResult pushConstantSlots(spv::ModuleOp spvModule) {
  MLIRContext *ctx = spvModule.getContext();
  for (auto fn : llvm::to_vector(spvModule.getOps<spv::FuncOp>())) {
    if (!fn->hasAttr(spv::getEntryPointABIAttrName()))
      continue;
    llvm::BitVector slots(fn.getNumArguments());
    unsigned numSlots = 0;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      auto abi = fn.getArgAttrOfType<spv::InterfaceVarABIAttr>(
          i, spv::getInterfaceVarABIAttrName());
      if (abi && abi.getDescriptorSet() == 1) {
        slots.set(i);
        ++numSlots;
      }
    }
    if (numSlots == 0)
      continue;
    Location loc = fn.getLoc();
    OpBuilder b(ctx);
    b.setInsertionPoint(fn);
    auto i32 = b.getI32Type();
    auto arr = spv::ArrayType::get(i32, numSlots, /*stride=*/4);
    auto block = spv::StructType::get({arr}, ArrayRef<uint32_t>{0});
    auto ptrTy = spv::PointerType::get(block, spv::StorageClass::PushConstant);
    std::string name = ("__tessera_slots_" + fn.getName()).str();
    auto var = spv::GlobalVariableOp::create(b, loc, TypeAttr::get(ptrTy),
                                             b.getStringAttr(name),
                                             FlatSymbolRefAttr());
    Block &entry = fn.getBody().front();
    b.setInsertionPointToStart(&entry);
    Value base = spv::AddressOfOp::create(b, loc, var);
    Value zero = spv::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0));
    unsigned k = 0;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      if (!slots.test(i))
        continue;
      BlockArgument arg = entry.getArgument(i);
      if (arg.getType() != i32)
        return fn.emitOpError("slot argument ") << i << " is not i32";
      Value ki = spv::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(k++));
      Value ptr =
          spv::AccessChainOp::create(b, loc, base, ValueRange{zero, ki});
      Value v = spv::LoadOp::create(b, loc, ptr);
      arg.replaceAllUsesWith(v);
    }
    if (failed(fn.eraseArguments(slots)))
      return fn.emitOpError("could not drop the slot arguments");
  }
  return success();
}

/// Under the Vulkan memory model (the one modules with cooperative matrices
/// declare) a plain load or store is private to its invocation: barriers
/// order only non-private accesses between invocations (Vulkan spec, Memory
/// Model, "Private vs. Non-Private"), so without more, the exchanges through
/// workgroup memory that distribution separates by barriers (reductions
/// across warps, layout conversions, the cooperative-matrix reorder) are
/// not ordered at all. Accesses to workgroup memory, and in kernels whose
/// shared tiles spill to the device-memory scratch (`scratchFns`) accesses
/// to storage buffers, become non-private, and the barriers that order
/// memory make the writes before them available and those after them
/// visible: what spirv-opt's memory-model upgrade and glslang do for shared
/// variables. Function-storage accesses (fragments, locals) stay private.
void nonPrivateSharedAccesses(spv::ModuleOp m,
                              const llvm::StringSet<> &scratchFns) {
  MLIRContext *ctx = m.getContext();
  constexpr spv::MemorySemantics ordering =
      spv::MemorySemantics::Acquire | spv::MemorySemantics::Release |
      spv::MemorySemantics::AcquireRelease |
      spv::MemorySemantics::SequentiallyConsistent;
  auto availableVisible = [&](spv::MemorySemantics sem) {
    // Only barriers that order some storage class.
    if (!spv::bitEnumContainsAny(sem, ordering) || sem == (sem & ordering))
      return sem;
    return sem | spv::MemorySemantics::MakeAvailable |
           spv::MemorySemantics::MakeVisible;
  };
  for (auto fn : m.getOps<spv::FuncOp>()) {
    bool scratch = scratchFns.contains(fn.getName());
    auto shared = [&](Value ptr) {
      auto pt = dyn_cast<spv::PointerType>(ptr.getType());
      if (!pt)
        return false;
      spv::StorageClass sc = pt.getStorageClass();
      return sc == spv::StorageClass::Workgroup ||
             (scratch && sc == spv::StorageClass::StorageBuffer);
    };
    auto nonPrivate = [&](std::optional<spv::MemoryAccess> old) {
      return spv::MemoryAccessAttr::get(
          ctx, old.value_or(spv::MemoryAccess::None) |
                   spv::MemoryAccess::NonPrivatePointer);
    };
    fn.walk([&](Operation *op) {
      if (auto l = dyn_cast<spv::LoadOp>(op)) {
        if (shared(l.getPtr()))
          l.setMemoryAccessAttr(nonPrivate(l.getMemoryAccess()));
      } else if (auto st = dyn_cast<spv::StoreOp>(op)) {
        if (shared(st.getPtr()))
          st.setMemoryAccessAttr(nonPrivate(st.getMemoryAccess()));
      } else if (auto cl = dyn_cast<spv::KHRCooperativeMatrixLoadOp>(op)) {
        if (shared(cl.getPointer()))
          cl.setMemoryOperandAttr(nonPrivate(cl.getMemoryOperand()));
      } else if (auto cs = dyn_cast<spv::KHRCooperativeMatrixStoreOp>(op)) {
        if (shared(cs.getPointer()))
          cs.setMemoryOperandAttr(nonPrivate(cs.getMemoryOperand()));
      } else if (auto cb = dyn_cast<spv::ControlBarrierOp>(op)) {
        cb.setMemorySemantics(availableVisible(cb.getMemorySemantics()));
      } else if (auto mb = dyn_cast<spv::MemoryBarrierOp>(op)) {
        mb.setMemorySemantics(availableVisible(mb.getMemorySemantics()));
      }
    });
  }
}

/// Whether an op of `m` uses Device scope (atomics on global tensors), which
/// the Vulkan memory model allows only with VulkanMemoryModelDeviceScope.
bool usesDeviceScope(spv::ModuleOp m) {
  bool found = false;
  m.walk([&](Operation *op) {
    for (NamedAttribute a : op->getAttrs())
      if (auto s = dyn_cast<spv::ScopeAttr>(a.getValue()))
        found |= s.getValue() == spv::Scope::Device;
  });
  return found;
}

void appendWord(std::vector<char> &out, uint32_t w) {
  for (int i = 0; i < 4; ++i)
    out.push_back(char((w >> (8 * i)) & 0xff));
}

void appendPadded(std::vector<char> &out, const char *data, size_t n) {
  out.insert(out.end(), data, data + n);
  while (out.size() % 4)
    out.push_back(0);
}

} // namespace

LogicalResult tessera::spirv::emitSpirvImage(
    ModuleOp module, const tessera::CompileTarget &target,
    const tessera::CompileOptions &options,
    const std::vector<KernelRecord> &kernels, std::vector<char> &image) {
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<spv::SPIRVDialect, ub::UBDialect>();
  gpu::GPUModuleOp gpuModule;
  for (auto m : module.getOps<gpu::GPUModuleOp>())
    if (m.getName() == kGpuModuleName)
      gpuModule = m;
  if (!gpuModule)
    return emitError(module.getLoc()) << "no kernels to emit";
  std::string spec =
      target.descriptionPath.empty() ? target.chip : target.descriptionPath;
  std::string error;
  auto desc = tessera::passes::resolveTarget(spec, &error);
  if (!desc)
    return emitError(module.getLoc()) << error;
  spv::TargetEnvAttr env = targetEnv(ctx, *desc);

  {
    // bf16 arithmetic has no SPIR-V type: compute in f32 through integer
    // conversions (the storage stays 16-bit).
    PassManager pm(ctx);
    arith::ArithExpandOpsPassOptions expand;
    expand.includeBf16 = true;
    pm.nest<gpu::GPUModuleOp>().addPass(
        arith::createArithExpandOpsPass(expand));
    pm.addPass(createCanonicalizerPass());
    if (failed(pm.run(module)))
      return failure();
  }
  if (failed(narrowFloatsToIntegers(gpuModule)))
    return failure();
  if (failed(convertToSpirv(module, gpuModule, env, options)))
    return failure();
  spv::ModuleOp spvModule;
  for (auto m : module.getOps<spv::ModuleOp>())
    spvModule = m;
  if (!spvModule)
    return emitError(module.getLoc()) << "the SPIR-V conversion made no module";
  if (failed(pushConstantSlots(spvModule)))
    return failure();
  // Barriers of kernels with shared tiles in device memory order that
  // memory too.
  llvm::StringSet<> scratchFns;
  for (auto fn : spvModule.getOps<spv::FuncOp>()) {
    if (!fn->hasAttr("tessera.scratch_bytes"))
      continue;
    scratchFns.insert(fn.getName());
    fn.walk([&](spv::ControlBarrierOp bar) {
      bar.setMemorySemantics(bar.getMemorySemantics() |
                             spv::MemorySemantics::UniformMemory);
    });
  }
  PassManager pm(ctx);
  if (options.printIRAfterAll)
    tessera::lowering::printIRAfterAll(pm);
  OpPassManager &sm = pm.nest<spv::ModuleOp>();
  sm.addPass(spv::createSPIRVLowerABIAttributesPass());
  sm.addPass(spv::createSPIRVUpdateVCEPass());
  sm.addPass(createCanonicalizerPass());
  if (failed(pm.run(module)))
    return failure();

  // spirv-update-vce lowers the version to the least the ops need, but the
  // entry points' interfaces list every global variable they use (the rule
  // since SPIR-V 1.4): keep 1.6, which every Vulkan 1.3 device accepts.
  // Cooperative matrices in shaders need the Vulkan memory model declared,
  // which no op asks for by itself.
  if (auto vce = spvModule.getVceTriple()) {
    SmallVector<spv::Capability> caps(vce->getCapabilities());
    SmallVector<spv::Extension> exts(vce->getExtensions());
    if (llvm::is_contained(caps, spv::Capability::CooperativeMatrixKHR) &&
        !llvm::is_contained(caps, spv::Capability::VulkanMemoryModel)) {
      caps.push_back(spv::Capability::VulkanMemoryModel);
      if (!llvm::is_contained(exts,
                              spv::Extension::SPV_KHR_vulkan_memory_model))
        exts.push_back(spv::Extension::SPV_KHR_vulkan_memory_model);
    }
    if (llvm::is_contained(caps, spv::Capability::VulkanMemoryModel)) {
      spvModule.setMemoryModel(spv::MemoryModel::Vulkan);
      nonPrivateSharedAccesses(spvModule, scratchFns);
      if (usesDeviceScope(spvModule) &&
          !llvm::is_contained(caps,
                              spv::Capability::VulkanMemoryModelDeviceScope))
        caps.push_back(spv::Capability::VulkanMemoryModelDeviceScope);
    }
    spvModule.setVceTripleAttr(
        spv::VerCapExtAttr::get(spv::Version::V_1_6, caps, exts, ctx));
  }
  // Buffers the kernel only reads are readonly restrict (on by default:
  // NVIDIA's driver ran gemm.mlir 0.778 -> 0.575 ms with it, 2026-11-27;
  // TESSERA_SPIRV_READONLY=0 turns it off). Other switches are for A/B
  // measurements on NVIDIA's driver (SpirvScheduling.h).
  if (!tessera::spirv::switchOff("TESSERA_SPIRV_READONLY"))
    tessera::spirv::decorateReadOnlyBuffers(spvModule);
  if (tessera::spirv::switchOn("TESSERA_SPIRV_CONTINUE"))
    tessera::spirv::separateContinueBlocks(spvModule);
  tessera::spirv::setLoopControl(spvModule);
  SmallVector<uint32_t> words;
  if (failed(spv::serialize(spvModule, words)))
    return failure();
  if (!options.dumpDir.empty()) {
    std::error_code ec = llvm::sys::fs::create_directories(options.dumpDir);
    llvm::raw_fd_ostream os(options.dumpDir + "/kernels." + target.chip +
                                ".spv",
                            ec, llvm::sys::fs::OF_None);
    if (!ec)
      os.write(reinterpret_cast<const char *>(words.data()), words.size() * 4);
  }

  // The image table, then the module.
  image.clear();
  std::vector<char> records;
  for (const KernelRecord &k : kernels) {
    std::vector<char> r;
    appendWord(r, 0); // record_words, patched below
    appendWord(r, k.threads);
    appendWord(r, 1);
    appendWord(r, 1);
    appendWord(r, k.subgroupSize);
    appendWord(r, k.sharedBytes);
    appendWord(r, (uint32_t)k.slotKinds.size());
    appendWord(r, 4 * (uint32_t)k.slotKinds.size());
    appendWord(r, (uint32_t)k.symbol.size());
    appendWord(r, k.scratchBytes);
    appendWord(r, k.scratchBindings);
    appendPadded(r, k.symbol.data(), k.symbol.size());
    appendPadded(r, reinterpret_cast<const char *>(k.slotKinds.data()),
                 k.slotKinds.size());
    uint32_t n = r.size() / 4;
    for (int i = 0; i < 4; ++i)
      r[i] = char((n >> (8 * i)) & 0xff);
    records.insert(records.end(), r.begin(), r.end());
  }
  uint32_t spirvOffset =
      TESSERA_SPIRV_IMAGE_HEADER_WORDS + (uint32_t)records.size() / 4;
  appendWord(image, TESSERA_SPIRV_IMAGE_MAGIC);
  appendWord(image, TESSERA_SPIRV_IMAGE_VERSION);
  appendWord(image, (uint32_t)kernels.size());
  appendWord(image, spirvOffset);
  appendWord(image, (uint32_t)words.size());
  for (int i = 0; i < 3; ++i)
    appendWord(image, 0);
  image.insert(image.end(), records.begin(), records.end());
  for (uint32_t w : words)
    appendWord(image, w);
  return success();
}
