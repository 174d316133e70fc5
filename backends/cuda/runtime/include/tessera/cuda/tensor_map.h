/*===- tessera/cuda/tensor_map.h - TMA descriptors from the cuda plugin -*- C
 * -*-===//
 *
 * An extra C function exported by libtessera_cuda_runtime.so, outside the
 * runtime plugin ABI table: it encodes a TMA tensor map (a CUtensorMap) with
 * the driver's cuTensorMapEncodeTiled, which the plugin resolved from
 * libcuda. A host that launches TMA kernels finds it with
 *   dlsym(plugin_handle, TESSERA_CUDA_ENCODE_TENSOR_MAP_NAME)
 * and so needs neither cuda.h nor a link to libcuda.
 *
 * Arguments mirror cuTensorMapEncodeTiled; the enum arguments take the
 * driver's values (CUtensorMapDataType, CUtensorMapInterleave,
 * CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill):
 *   tensor_map       out: TESSERA_CUDA_TENSOR_MAP_BYTES bytes, any alignment
 *                    (the plugin encodes into an aligned buffer and copies)
 *   global_address   the tensor's device address (16-byte aligned)
 *   global_dim       rank sizes, innermost first
 *   global_strides   rank - 1 byte strides of dims 1..rank-1 (multiples of 16)
 *   box_dim          rank box sizes, in elements (each <= 256)
 *   element_strides  rank traversal strides (usually 1)
 *
 * Returns 0 or a tessera_plugin_error code with a message in err:
 * TESSERA_PLUGIN_ERROR_UNAVAILABLE before a successful initialize or when
 * the driver is older than CUDA 12 (no cuTensorMapEncodeTiled);
 * TESSERA_PLUGIN_ERROR_INVALID when the driver rejects the arguments.
 *
 * Thread-safety: may be called from any thread after initialize.
 *===----------------------------------------------------------------------===*/

#ifndef TESSERA_CUDA_TENSOR_MAP_H
#define TESSERA_CUDA_TENSOR_MAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TESSERA_CUDA_TENSOR_MAP_BYTES 128
#define TESSERA_CUDA_ENCODE_TENSOR_MAP_NAME "tessera_cuda_encode_tensor_map"

int tessera_cuda_encode_tensor_map(
    void *tensor_map, uint32_t data_type, uint32_t rank,
    uint64_t global_address, const uint64_t *global_dim,
    const uint64_t *global_strides, const uint32_t *box_dim,
    const uint32_t *element_strides, uint32_t interleave, uint32_t swizzle,
    uint32_t l2_promotion, uint32_t oob_fill, char *err, size_t err_len);

typedef int (*tessera_cuda_encode_tensor_map_fn)(
    void *, uint32_t, uint32_t, uint64_t, const uint64_t *, const uint64_t *,
    const uint32_t *, const uint32_t *, uint32_t, uint32_t, uint32_t, uint32_t,
    char *, size_t);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_CUDA_TENSOR_MAP_H */
