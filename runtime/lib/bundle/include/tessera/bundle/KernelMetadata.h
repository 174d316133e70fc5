//===- tessera/bundle/KernelMetadata.h - per-kernel launch facts -*- C++
//-*-===//
//
// The value of an image's `tessera.kernels` string: a TOML document with one
// [[kernel]] table per kernel, giving its exported symbol, block size,
// dynamic shared memory, grid formula and typed arguments. The compiler
// writes it with printKernelMetadata; the runtime reads it with
// parseKernelMetadata to check and pack launch arguments.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BUNDLE_KERNELMETADATA_H
#define TESSERA_BUNDLE_KERNELMETADATA_H

#include "tessera/bundle/DType.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::bundle {

inline constexpr unsigned kMaxRank = 4;

enum class ArgKind { Tensor, Scalar };

struct KernelArg {
  std::string name;
  ArgKind kind = ArgKind::Tensor;
  DType dtype = DType::F32;
  /// One entry per dimension: a symbol name, "?" (any) or a decimal integer.
  /// Empty for scalars.
  std::vector<std::string> dims;
};

struct KernelInfo {
  std::string name;
  std::string symbol;
  uint32_t threads = 1;
  uint32_t sharedBytes = 0;
  /// Grid formulas for x, y, z; see GridExpr.h.
  std::array<std::string, 3> grid = {"1", "1", "1"};
  std::vector<KernelArg> args;
};

/// Parses and validates the metadata document. \p source names the document
/// in messages. Returns false and sets \p error (naming the kernel, key and
/// line) on the first defect.
bool parseKernelMetadata(std::string_view text, const std::string &source,
                         std::vector<KernelInfo> &kernels, std::string &error);

/// Prints \p kernels in the format parseKernelMetadata reads.
std::string printKernelMetadata(const std::vector<KernelInfo> &kernels);

/// Checks one kernel description (names, dims, grid formulas parse).
bool validateKernel(const KernelInfo &kernel, std::string &error);

} // namespace tessera::bundle

#endif // TESSERA_BUNDLE_KERNELMETADATA_H
