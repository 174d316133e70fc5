//===- tessera/bundle/DType.h - element types of kernel arguments -*- C++
//-*-===//

#ifndef TESSERA_BUNDLE_DTYPE_H
#define TESSERA_BUNDLE_DTYPE_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace tessera::bundle {

/// Element types of kernel arguments. The numbering is the C API's
/// tessera_dtype_t (runtime.h), checked there with static_asserts.
enum class DType : uint32_t {
  F16 = 0,
  BF16,
  F32,
  F64,
  F8E4M3,
  F8E5M2,
  I1,
  I8,
  I16,
  I32,
  I64,
  Index,
};
inline constexpr unsigned kNumDTypes = 12;

/// "f16", "bf16", ... as written in kernel metadata.
const char *dtypeName(DType type);
std::optional<DType> parseDType(std::string_view name);
/// Bytes per element in memory (i1 is stored as one byte; index as 8).
unsigned dtypeBytes(DType type);
bool isIntegerDType(DType type);

} // namespace tessera::bundle

#endif // TESSERA_BUNDLE_DTYPE_H
