//===- GemmFastPath.h - tensor-core kernels for canonical GEMMs -*- C++ -*-===//

#ifndef TESSERA_BACKENDS_CUDA_GEMMFASTPATH_H
#define TESSERA_BACKENDS_CUDA_GEMMFASTPATH_H

#include "CudaTargetHooks.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <string>

namespace tessera::cuda {

/// Looks in `fn` (a gpu.func whose body still holds the tile ops, with
/// tensor values defined by casts of their memrefs) for the canonical GEMM:
///   %Cf = alloc fragment; clear %Cf
///   pipelined %kt { copy A[r, k0] -> %As; copy B[k0, c] -> %Bs; gemm %As, %Bs,
///   %Cf } [parallel regions that load/store %Cf[i, j] and may read rank-1
///   tiles copied from global at the block's column (bias[j]) or row
///   (scale[i]) offset] copy %Cf -> C[r, c]
/// and replaces it by a tensor-core mainloop (sm_80: a cp.async multi-stage
/// pipeline into swizzled shared memory, ldmatrix, mma.sync m16n8k16;
/// sm_90a: TMA + mbarriers + wgmma, warp-specialized) with the accumulators
/// in registers and the epilogue applied per register.
/// Returns the bytes of dynamic shared memory it uses from offset 0 (0 when
/// the kernel does not match and is left alone).
int64_t lowerCanonicalGemm(mlir::gpu::GPUFuncOp fn, llvm::StringRef chip);

/// What the sm_90a GEMM kernel needs from the launch.
struct Sm90Gemm {
  int64_t sharedBytes = 0;
  int64_t threads = 0;
  bool bf16 = false;
  bool fp8 = false;               // 1-byte elements (tensor maps of UINT8)
  int64_t aSlot = -1, bSlot = -1; // slot of each tensor's pointer
  int64_t boxA[2] = {0, 0};       // innermost first
  int64_t boxB[2] = {0, 0};
};

/// The sm_90a version of lowerCanonicalGemm: TMA loads into 128-byte
/// swizzled stages on mbarriers, wgmma m64n128k16 from shared-memory
/// descriptors, one producer and two consumer warpgroups (384 threads) with
/// setmaxnreg. Needs a 128x128 accumulator, and tensor maps for A (box 64 x
/// 128) and B (box 64 x 64) as parameters 0 and 1 after the slots. Returns
/// false (and leaves `fn` alone) when the kernel does not match.
bool lowerCanonicalGemmSm90(mlir::gpu::GPUFuncOp fn, Sm90Gemm &out);

} // namespace tessera::cuda

#endif
