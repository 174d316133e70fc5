//===- SpirvScheduling.h - how distributed Vulkan kernels are laid out -*- C++
//-*-===//
//
// Rewrites of a distributed, legalized kernel (and of its SPIR-V module)
// that change only how the driver sees the kernel, never what it computes:
// values kept in SSA form across loops instead of in private arrays, global
// loads issued before the barrier they do not depend on, decorations and
// loop controls. Each is a switch of its own in the compiler's environment
// (docs/backends/spirv.md, "Switches for the next A/B"), off by default
// until measured on NVIDIA's driver; core/cache/CompileKey.cpp keys the
// compile cache on them.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_SPIRV_SPIRVSCHEDULING_H
#define TESSERA_BACKENDS_SPIRV_SPIRVSCHEDULING_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"

namespace tessera::spirv {

/// True where the environment sets `name` to "1".
bool switchOn(const char *name);
/// Whether environment variable `name` is "0" (a default-on switch off).
bool switchOff(const char *name);

/// TESSERA_SPIRV_CARRY=1. Private arrays (fragments: a gemm's accumulator
/// registers) that a loop reads and writes only at constant indices, in the
/// loop body itself, are carried through the loop as values (scf.for
/// iter_args: OpPhi in the loop header) instead of being loaded at the top
/// of each iteration and stored at its end; the array is stored once after
/// the loop. Where the carried values of a loop are the `components`
/// (m * n / subgroup) components of one cooperative matrix in order, the
/// loop carries that matrix instead, so a gemm's accumulators stay
/// cooperative matrices across the K loop (no OpCompositeExtract / Insert
/// between iterations), as a shader written with coopmat variables has
/// them.
void carryPrivateArrays(mlir::gpu::GPUFuncOp fn, int64_t subgroupSize);

/// TESSERA_SPIRV_EARLY_LOADS=1. Right after a workgroup barrier, a region
/// (scf.if) that only loads from storage buffers the kernel never writes
/// into private arrays (register staging's refill of the next stage) moves
/// above the barrier, with the index arithmetic it needs: the barrier
/// orders workgroup memory, which it does not touch, and the loads then
/// overlap the barrier's wait.
void issueLoadsBeforeBarriers(mlir::gpu::GPUFuncOp fn);

/// TESSERA_SPIRV_SPLIT_REFILL=1. A refill in a loop that fills two or more
/// private arrays (register staging of A and B) is split: the first half of
/// the arrays is loaded where it was, the rest halfway through the loop
/// body (before the gemm's second K step: the first multiply-add whose
/// accumulator another multiply-add of the body computed; else the middle
/// of the body's ops after the refill). The second half's registers are
/// then live for half an iteration instead of a whole one, beside the
/// accumulators and the first K step's operands, at the cost of half the
/// latency hiding for those loads.
void splitRefills(mlir::gpu::GPUFuncOp fn);

/// TESSERA_SPIRV_LOOP_CONTROL=unroll|dont_unroll: the loop control of the
/// loops that synchronize the workgroup in their body (a workgroup
/// OpControlBarrier not inside a nested loop): the software-pipelined K
/// loops.
void setLoopControl(mlir::spirv::ModuleOp m);

/// TESSERA_SPIRV_READONLY=1: storage-buffer variables of a binding that no
/// access of the module writes are decorated NonWritable and Restrict
/// (glslang's `readonly restrict`).
void decorateReadOnlyBuffers(mlir::spirv::ModuleOp m);

/// TESSERA_SPIRV_CONTINUE=1: each loop gets a continue block of its own
/// (the induction variable's step and the back edge), as glslang emits
/// loops; the upstream conversion makes the loop's last body block the
/// continue target, so the whole body is the continue construct.
void separateContinueBlocks(mlir::spirv::ModuleOp m);

} // namespace tessera::spirv

#endif
