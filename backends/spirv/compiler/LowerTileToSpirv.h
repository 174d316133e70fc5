//===- LowerTileToSpirv.h - tile dialect to a Vulkan SPIR-V image -*- C++
//-*-===//
//
// The spirv backend's compile side. Every tile.func runs the core passes with
// the Vulkan TargetDescription, becomes a gpu.func whose parameters follow the
// kernel ABI of tessera/spirv/image.h (tensors as storage buffers, every slot
// a 32-bit push-constant word), is distributed through the SpirvTargetHooks,
// and is then made legal for Vulkan's logical addressing (global tensors
// linearized over their storage buffer, shared tiles as workgroup variables,
// fragments as function variables, vectors scalarized) before the upstream
// conversions to the SPIR-V dialect, the push-constant ABI, serialization and
// the image table.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_SPIRV_LOWERTILETOSPIRV_H
#define TESSERA_BACKENDS_SPIRV_LOWERTILETOSPIRV_H

#include "tessera/plugin/compiler_plugin.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace tessera::spirv {

inline constexpr llvm::StringLiteral kKernelSymbolPrefix = "tessera_kernel_";
inline constexpr llvm::StringLiteral kGpuModuleName = "tessera_kernels";

/// What the image table records of one kernel (tessera/spirv/image.h).
struct KernelRecord {
  std::string name; ///< the tile.func's name
  std::string symbol;
  unsigned threads = 0;
  unsigned subgroupSize = 0;
  unsigned sharedBytes = 0;
  /// Bytes per workgroup of shared tiles placed in device memory, and the
  /// storage-buffer bindings (after the tensors') that view that scratch.
  unsigned scratchBytes = 0, scratchBindings = 0;
  std::vector<uint8_t> slotKinds;
};

/// Lowers every tile.func of `module` into a kernel of one gpu.module,
/// distributed and legalized for Vulkan; fills `kernels` in order.
mlir::LogicalResult lowerTileToSpirvGpu(mlir::ModuleOp module,
                                        const tessera::CompileTarget &target,
                                        const tessera::CompileOptions &options,
                                        std::vector<KernelRecord> &kernels);

/// Rewrites bf16 and fp8 storage and values under `root` as integers of
/// their width (SPIR-V has no such types); arithmetic on them is an error.
mlir::LogicalResult narrowFloatsToIntegers(mlir::Operation *root);

/// Converts the gpu.module lowerTileToSpirvGpu produced to one spirv.module
/// (push-constant ABI, entry points), serializes it and writes the image.
mlir::LogicalResult emitSpirvImage(mlir::ModuleOp module,
                                   const tessera::CompileTarget &target,
                                   const tessera::CompileOptions &options,
                                   const std::vector<KernelRecord> &kernels,
                                   std::vector<char> &image);

} // namespace tessera::spirv

#endif
