//===- GemmFastPath.h - tensor-core kernels for canonical GEMMs -*- C++ -*-===//

#ifndef TESSERA_BACKENDS_CUDA_GEMMFASTPATH_H
#define TESSERA_BACKENDS_CUDA_GEMMFASTPATH_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <string>

namespace tessera::cuda {

/// Looks in `fn` (a gpu.func whose body still holds the tile ops, with
/// tensor values defined by casts of their memrefs) for the canonical GEMM:
///   %Cf = alloc fragment; clear %Cf
///   pipelined %kt { copy A[r, k0] -> %As; copy B[k0, c] -> %Bs; gemm %As, %Bs, %Cf }
///   [parallel regions that only load/store %Cf[i, j]]
///   copy %Cf -> C[r, c]
/// and replaces it by a tensor-core mainloop: a cp.async multi-stage
/// pipeline into swizzled shared memory, ldmatrix, mma.sync m16n8k16 with
/// the accumulators in registers, and the epilogue applied per register.
/// Returns the bytes of dynamic shared memory it uses from offset 0 (0 when
/// the kernel does not match and is left alone).
int64_t lowerCanonicalGemm(mlir::gpu::GPUFuncOp fn, llvm::StringRef chip);

} // namespace tessera::cuda

#endif
