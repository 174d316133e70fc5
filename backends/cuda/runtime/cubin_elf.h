//===- cubin_elf.h - facts read from a cubin's ELF without the driver -*- C++
//-*-===//
//
// The plugin reads a few things from a cubin itself rather than asking the
// driver, because the driver's way of answering "no" is an API error that
// compute-sanitizer reports: parameter counts (cuFuncGetParamInfo past the
// last parameter) and whether a global exists (cuModuleGetGlobal of a
// missing name returns CUDA_ERROR_NOT_FOUND).
//
// Both functions are bounds-checked against `size` and return false (or
// leave the output empty) for anything they do not understand; callers then
// fall back to the driver. Little-endian ELF64 only (what ptxas writes).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_CUDA_RUNTIME_CUBIN_ELF_H
#define TESSERA_BACKENDS_CUDA_RUNTIME_CUBIN_ELF_H

#include <cstddef>
#include <map>
#include <set>
#include <string>

namespace tessera::cuda {

/// Fills `counts` with the number of EIATTR_KPARAM_INFO entries (distinct
/// ordinals) of each `.nv.info.<kernel>` section; leaves it empty when the
/// ELF is not what it expects.
void cubinParamCounts(const unsigned char *elf, size_t size,
                      std::map<std::string, long> &counts);

/// Fills `names` with the names of the symbols defined in the cubin's symbol
/// table (.symtab) that start with `prefix`. Returns false when the image is
/// not an ELF64 with a readable symbol table: then nothing is known.
bool cubinDefinedSymbols(const unsigned char *elf, size_t size,
                         const std::string &prefix,
                         std::set<std::string> &names);

} // namespace tessera::cuda

#endif
