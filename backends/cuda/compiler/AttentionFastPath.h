//===- AttentionFastPath.h - tensor-core flash attention -------*- C++ -*-===//

#ifndef TESSERA_BACKENDS_CUDA_ATTENTIONFASTPATH_H
#define TESSERA_BACKENDS_CUDA_ATTENTIONFASTPATH_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <cstdint>

namespace tessera::cuda {

/// Looks in `fn` (a gpu.func whose body still holds the tile ops, tensors
/// defined by casts of their memrefs) for the canonical flash-attention
/// forward kernel of examples/flash_attention_fwd.mlir: Q, K, V, O f16
/// [B, H, S, 128], 128 threads, 64 query rows per block, a pipelined loop over
/// 64-key blocks with S = Q K^T, scale + key/causal mask, online softmax,
/// acc = alpha acc + P V, and O = acc / l stored at the end.
///
/// When it matches, the kernel body is replaced by a tensor-core kernel:
/// each of the 4 warps owns 16 query rows; Q fragments live in registers;
/// K and V blocks are double-buffered by cp.async into XOR-swizzled shared
/// memory; S = Q K^T and O += P V by ldmatrix (V with .trans) and
/// mma.sync m16n8k16 (f16 in, f32 accumulate); the online softmax runs on the
/// accumulator registers (quad shuffles, ex2 with sm_scale * log2(e) folded);
/// P is packed to f16 in registers and used directly as the A operand.
/// Returns the bytes of dynamic shared memory used from offset 0, or 0 when
/// the kernel does not match (and `fn` is left alone).
int64_t lowerCanonicalAttention(mlir::gpu::GPUFuncOp fn, llvm::StringRef chip);

} // namespace tessera::cuda

#endif
