//===- LowerTileToGpu.h - tile dialect to gpu/scf/memref for NVIDIA -*- C++
//-*-===//
//
// The SIMT path of the cuda backend: every tile.func becomes a gpu.func
// kernel `tessera_kernel_<name>` inside one gpu.module, whose parameters are
// the runtime's slots (a tensor: pointer then one i64 per dim; a scalar: its
// own type). Shared and fragment tiles live in dynamic shared memory; each
// tile op is a loop over the tile's elements strided by the block's threads,
// followed by a block barrier.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_CUDA_LOWERTILETOGPU_H
#define TESSERA_BACKENDS_CUDA_LOWERTILETOGPU_H

#include "tessera/plugin/compiler_plugin.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <utility>
#include <vector>

namespace tessera::cuda {

inline constexpr llvm::StringLiteral kKernelSymbolPrefix = "tessera_kernel_";
inline constexpr llvm::StringLiteral kGpuModuleName = "tessera_kernels";

/// Lowers every tile.func of `module` into a gpu.func of the gpu.module
/// `kGpuModuleName` (created if absent): every kernel runs the core passes
/// and is distributed through the cuda TargetHooks
/// (tessera/Passes/Distribute.h). `sharedBytes` receives
/// the dynamic shared memory each kernel needs, by tile.func name. `threads`
/// (optional) receives the threads per block of kernels whose lowering chose a
/// count other than the tile.kernel's.
mlir::LogicalResult lowerTileToGpu(
    mlir::ModuleOp module, const tessera::CompileTarget &target,
    const tessera::CompileOptions &options,
    std::vector<std::pair<std::string, unsigned>> &sharedBytes,
    std::vector<std::pair<std::string, unsigned>> *threads = nullptr,
    std::vector<std::pair<std::string, std::array<std::string, 3>>> *grids =
        nullptr);

/// sm_90a kernels with TMA copies come with a twin without them named
/// <symbol> + kFallbackSuffix, and a descriptor global kTmaGlobalPrefix +
/// <symbol>: u32 words {kTmaMagic, number of maps (at most 8), fallback
/// threads, fallback shared bytes}, then per map {slot of the tensor pointer,
/// rank, CUtensorMapDataType, element bytes, CUtensorMapSwizzle,
/// CUtensorMapL2promotion, box[5] innermost first, 0}.
inline constexpr llvm::StringLiteral kFallbackSuffix = "__fallback";
inline constexpr llvm::StringLiteral kTmaGlobalPrefix = "tessera_tma_";
inline constexpr unsigned kTmaMagic = 0x32414D54; // "TMA2"
inline constexpr unsigned kMaxTensorMaps = 8;

} // namespace tessera::cuda

#endif
