//===- DType.cpp - element type names and sizes ---------------------------===//

#include "tessera/bundle/DType.h"

namespace tessera::bundle {
namespace {
struct DTypeInfo {
  const char *name;
  unsigned bytes;
  bool integer;
};
constexpr DTypeInfo kInfo[kNumDTypes] = {
    {"f16", 2, false}, {"bf16", 2, false},   {"f32", 4, false},
    {"f64", 8, false}, {"f8e4m3", 1, false}, {"f8e5m2", 1, false},
    {"i1", 1, true},   {"i8", 1, true},      {"i16", 2, true},
    {"i32", 4, true},  {"i64", 8, true},     {"index", 8, true},
};
} // namespace

const char *dtypeName(DType type) {
  auto i = static_cast<unsigned>(type);
  return i < kNumDTypes ? kInfo[i].name : "<invalid>";
}

std::optional<DType> parseDType(std::string_view name) {
  for (unsigned i = 0; i < kNumDTypes; ++i)
    if (name == kInfo[i].name)
      return static_cast<DType>(i);
  return std::nullopt;
}

unsigned dtypeBytes(DType type) {
  auto i = static_cast<unsigned>(type);
  return i < kNumDTypes ? kInfo[i].bytes : 0;
}

bool isIntegerDType(DType type) {
  auto i = static_cast<unsigned>(type);
  return i < kNumDTypes && kInfo[i].integer;
}

} // namespace tessera::bundle
