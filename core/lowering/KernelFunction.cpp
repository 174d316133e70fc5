//===- KernelFunction.cpp - what the GPU backends' lowerings share --------===//

#include "KernelFunction.h"
#include "TileLoweringUtils.h"

#include "tessera/Passes/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

namespace tessera::lowering {

gpu::GPUFuncOp createSlotKernel(tile::FuncOp f, gpu::GPUModuleOp gpuModule,
                                const TypeConverter &converter,
                                llvm::StringRef symbol) {
  MLIRContext *ctx = f.getContext();
  Location loc = f.getLoc();
  tile::KernelOp kernel;
  f.walk([&](tile::KernelOp k) { kernel = k; });
  if (!kernel) {
    f.emitOpError("launches no tile.kernel");
    return {};
  }
  SmallVector<Type> params;
  Block &old = f.getBody().front();
  for (BlockArgument arg : old.getArguments())
    appendSlotTypes(arg.getType(), params);
  OpBuilder b(gpuModule.getBodyRegion());
  b.setInsertionPointToEnd(&gpuModule.getBodyRegion().front());
  auto fn =
      gpu::GPUFuncOp::create(b, loc, symbol, b.getFunctionType(params, {}));
  fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  fn.setKnownBlockSizeAttr(
      DenseI32ArrayAttr::get(ctx, {(int32_t)kernel.getThreads(), 1, 1}));
  Block *entry = &fn.getBody().front();
  b.setInsertionPointToStart(entry);
  unsigned p = 0;
  unpackArgumentSlots(b, loc, old, converter,
                      [&](Type) -> Value { return entry->getArgument(p++); });
  entry->getOperations().splice(entry->end(), old.getOperations());
  f.erase();
  return fn;
}

LogicalResult runCorePasses(ModuleOp module, const std::string &spec,
                            const TargetHooks &hooks, bool printIR) {
  PassManager pm(module.getContext());
  if (printIR)
    printIRAfterAll(pm);
  enablePassTimingFromEnv(pm);
  passes::buildTesseraPipeline(
      pm, spec, [&](const target::MmaAtom &a, const target::MmaUse &use) {
        return hooks.canEmitAtomFor(a, use);
      });
  return pm.run(module);
}

LogicalResult distributeKernelFunction(gpu::GPUFuncOp fn,
                                       const target::TargetDescription &target,
                                       TargetHooks &hooks,
                                       passes::DistributedKernel &result,
                                       bool printIR) {
  if (failed(passes::distributeKernel(fn.getBody(), target, hooks, result)))
    return failure();
  fn.walk([](tile::ReturnOp r) {
    OpBuilder b(r);
    gpu::ReturnOp::create(b, r.getLoc());
    r.erase();
  });
  if (printIR)
    llvm::errs() << "// -----// IR Dump After TesseraDistribute ("
                 << fn.getName() << ") //----- //\n"
                 << fn << "\n";
  return success();
}

void approximateFastExp(Operation *root) {
  const char *fmaEnv = std::getenv("TESSERA_EXP_FMA");
  bool fma = !(fmaEnv && llvm::StringRef(fmaEnv) == "0");
  root->walk([&](math::ExpOp e) {
    if (!e.getType().isF32() ||
        !bitEnumContainsAll(e.getFastmath(), arith::FastMathFlags::afn))
      return;
    OpBuilder b(e);
    Location loc = e.getLoc();
    auto cst = [&](float v) {
      return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
    };
    const float log2e = 1.4426950408889634f;
    Value x;
    if (auto sub = e.getOperand().getDefiningOp<arith::SubFOp>(); fma && sub)
      // exp(a - b) = 2^(a log2 e - b log2 e): one fma per element beside
      // b's product, which is computed once where b is shared (a
      // softmax's row max), instead of a subtraction and a multiply.
      x = math::FmaOp::create(b, loc, sub.getLhs(), cst(log2e),
                              arith::MulFOp::create(b, loc, sub.getRhs(),
                                                    cst(-log2e),
                                                    e.getFastmath()),
                              e.getFastmath());
    else
      x = arith::MulFOp::create(b, loc, e.getOperand(), cst(log2e),
                                e.getFastmath());
    Value r = math::Exp2Op::create(b, e.getLoc(), x, e.getFastmath());
    e.replaceAllUsesWith(r);
    e.erase();
  });
}

void registerKernelToLLVMInterfaces(DialectRegistry &registry) {
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
}

void printIRAfterAll(PassManager &pm) {
  pm.getContext()->disableMultithreading();
  pm.enableIRPrinting([](Pass *, Operation *) { return false; },
                      [](Pass *, Operation *) { return true; },
                      /*printModuleScope=*/true,
                      /*printAfterOnlyOnChange=*/false);
}

void enablePassTimingFromEnv(PassManager &pm) {
  const char *v = std::getenv("TESSERA_MLIR_TIMING");
  if (v && *v && llvm::StringRef(v) != "0")
    pm.enableTiming();
}

int runTool(llvm::StringRef program, llvm::ArrayRef<llvm::StringRef> args,
            std::string &output) {
  llvm::SmallString<128> logPath;
  llvm::sys::fs::createTemporaryFile("tessera-tool", "txt", logPath);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, logPath.str(),
                                                logPath.str()};
  std::string err;
  int rc = llvm::sys::ExecuteAndWait(program, args, std::nullopt, redirects, 0,
                                     0, &err);
  if (auto buf = llvm::MemoryBuffer::getFile(logPath))
    output = (*buf)->getBuffer().str();
  output += err;
  llvm::sys::fs::remove(logPath);
  return rc;
}

void dumpFile(const std::string &dir, const std::string &name,
              llvm::StringRef data) {
  if (dir.empty())
    return;
  (void)llvm::sys::fs::create_directories(dir);
  std::error_code ec;
  llvm::raw_fd_ostream os(dir + "/" + name, ec, llvm::sys::fs::OF_None);
  if (!ec)
    os << data;
}

} // namespace tessera::lowering
