//===- NvptxCodegen.h - gpu.module to PTX and cubin -------------*- C++ -*-===//

#ifndef TESSERA_BACKENDS_CUDA_NVPTXCODEGEN_H
#define TESSERA_BACKENDS_CUDA_NVPTXCODEGEN_H

#include "tessera/plugin/compiler_plugin.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace tessera::cuda {

/// Lowers the gpu.module produced by lowerTileToGpu (plus any hand-built
/// LLVM-dialect kernels in it) to NVVM/LLVM, optimizes it with libdevice
/// linked where math needs it, emits PTX for `target.chip` and assembles it
/// with ptxas into `image.bytes`. Without ptxas the image is the PTX
/// (`imageKind` "ptx"). The twins without TMA (`<kernel>__fallback`)
/// compile beside the kernels, on another thread, to PTX only: they become
/// `image.onDemandBytes`, which the runtime loads only for a launch that
/// needs a twin.
mlir::LogicalResult emitCubin(mlir::ModuleOp module,
                              const CompileTarget &target,
                              const CompileOptions &options,
                              CompiledImage &image);

} // namespace tessera::cuda

#endif
