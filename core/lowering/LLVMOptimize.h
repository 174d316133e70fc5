//===- LLVMOptimize.h - LLVM's -O<level> pipeline on a module ----*- C++
//-*-===//
#ifndef TESSERA_CORE_LOWERING_LLVMOPTIMIZE_H
#define TESSERA_CORE_LOWERING_LLVMOPTIMIZE_H

#include "llvm/Passes/PassBuilder.h"

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace tessera::lowering {

/// Registers every LLVM target, its MC layer and asm printer, once per
/// process (thread-safe).
void initializeLLVMTargets();

/// Runs LLVM's default optimization pipeline of -O<optLevel> (0..3, higher
/// reads as 3) on `module`, for the target machine `tm`, tuned by `pto`.
void runLLVMOptimizationPipeline(
    llvm::Module &module, llvm::TargetMachine *tm, unsigned optLevel,
    llvm::PipelineTuningOptions pto = llvm::PipelineTuningOptions());

} // namespace tessera::lowering

#endif
