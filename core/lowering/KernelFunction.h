//===- KernelFunction.h - what the GPU backends' lowerings share -*- C++
//-*-===//
//
// Pieces every backend that builds gpu.func kernels from tile.funcs needs in
// the same form: the kernel function whose parameters are the runtime's
// slots, IR printing after each pass, and running an external tool (ptxas,
// ld.lld) or dumping an intermediate file.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LOWERING_KERNELFUNCTION_H
#define TESSERA_LOWERING_KERNELFUNCTION_H

#include "tessera/Dialect/Tile/TileOps.h"
#include "tessera/Passes/Distribute.h"
#include "tessera/plugin/target_hooks.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace tessera::lowering {

/// Moves `f`'s body into a new kernel gpu.func `symbol` at the end of
/// `gpuModule` whose parameters are the runtime's slots (appendSlotTypes),
/// its arguments unpacked into memrefs and values (unpackArgumentSlots), with
/// the tile.kernel's threads as its known block size; erases `f`. Null (with
/// an error on `f`) when `f` launches no tile.kernel.
mlir::gpu::GPUFuncOp createSlotKernel(tile::FuncOp f,
                                      mlir::gpu::GPUModuleOp gpuModule,
                                      const mlir::TypeConverter &converter,
                                      llvm::StringRef symbol);

/// Runs the core passes (layouts, swizzles, pipelines, shared-memory plan)
/// for target `spec` on `module`, layout inference choosing only among the
/// atoms `hooks` can emit.
mlir::LogicalResult runCorePasses(mlir::ModuleOp module,
                                  const std::string &spec,
                                  const TargetHooks &hooks, bool printIR);

/// Distributes the kernel `fn` (built by createSlotKernel) through `hooks`
/// and turns its tile.return into gpu.return; `printIR` dumps it after.
mlir::LogicalResult distributeKernelFunction(
    mlir::gpu::GPUFuncOp fn, const target::TargetDescription &target,
    TargetHooks &hooks, passes::DistributedKernel &result, bool printIR);

/// f32 exp that may be approximated (fastmath afn) becomes exp2(x * log2 e):
/// one multiply and the target's exp2 instead of a range-reduced expf;
/// exp(a - b) becomes exp2(fma(a, log2 e, b * -log2 e))
/// (TESSERA_EXP_FMA=0: exp2((a - b) * log2 e)).
void approximateFastExp(mlir::Operation *root);

/// Registers the ConvertToLLVM interfaces of the dialects distribution
/// leaves in a kernel (arith, cf, func, index, memref, ub, vector), which
/// convert-gpu-to-nvvm / -rocdl use for every loaded dialect that has one;
/// a backend adds its own (math, its intrinsics' dialect).
void registerKernelToLLVMInterfaces(mlir::DialectRegistry &registry);

/// `tessera compile --print-ir-after-all`: every pass of `pm` prints the
/// whole module after it runs.
void printIRAfterAll(mlir::PassManager &pm);

/// With TESSERA_MLIR_TIMING set (non-empty, not "0"), `pm` prints MLIR's
/// pass timing report (wall and user time per pass) to stderr when it
/// finishes: where the core passes and a backend's lowering spend their time.
void enablePassTimingFromEnv(mlir::PassManager &pm);

/// Runs `program args` with stdout and stderr to a temporary file; returns
/// the exit code, the output in `output`.
int runTool(llvm::StringRef program, llvm::ArrayRef<llvm::StringRef> args,
            std::string &output);

/// Writes `data` to `dir`/`name` when `dir` is not empty (--dump-dir).
void dumpFile(const std::string &dir, const std::string &name,
              llvm::StringRef data);

} // namespace tessera::lowering

#endif
