//===- TestImage.h - writing spirv module images for tests ------*- C++ -*-===//
//
// What the spirv compiler plugin writes (tessera/spirv/image.h), built by
// hand around a SPIR-V module, so the runtime tests control every field and
// can corrupt any of them.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TESTS_UNIT_SPIRV_RUNTIME_TESTIMAGE_H
#define TESSERA_TESTS_UNIT_SPIRV_RUNTIME_TESTIMAGE_H

#include "tessera/spirv/image.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tessera::test {

struct TestRecord {
  std::string name;
  uint32_t local[3] = {1, 1, 1};
  uint32_t subgroupSize = 0;
  uint32_t sharedBytes = 0;
  std::vector<uint8_t> slotKinds;
  uint32_t scratchBytes = 0;
  uint32_t scratchBindings = 0;
};

constexpr uint8_t kValue = TESSERA_SPIRV_SLOT_VALUE;
constexpr uint8_t kBuffer = TESSERA_SPIRV_SLOT_BUFFER;

/// `bytes` as little-endian words, zero-padded (the hosts are little-endian).
inline void appendPadded(std::vector<uint32_t> &out, const void *bytes,
                         size_t count) {
  size_t at = out.size();
  out.resize(at + (count + 3) / 4, 0);
  std::memcpy(out.data() + at, bytes, count);
}

/// The words of an image holding `records` and `spirv` (the module right
/// after the records).
inline std::vector<uint32_t> makeImage(const std::vector<TestRecord> &records,
                                       const std::vector<uint32_t> &spirv) {
  std::vector<uint32_t> out(TESSERA_SPIRV_IMAGE_HEADER_WORDS, 0);
  out[0] = TESSERA_SPIRV_IMAGE_MAGIC;
  out[1] = TESSERA_SPIRV_IMAGE_VERSION;
  out[2] = uint32_t(records.size());
  for (const TestRecord &r : records) {
    size_t start = out.size();
    out.push_back(0); // record_words, below
    out.insert(out.end(),
               {r.local[0], r.local[1], r.local[2], r.subgroupSize,
                r.sharedBytes, uint32_t(r.slotKinds.size()),
                uint32_t(4 * r.slotKinds.size()), uint32_t(r.name.size()),
                r.scratchBytes, r.scratchBindings});
    appendPadded(out, r.name.data(), r.name.size());
    appendPadded(out, r.slotKinds.data(), r.slotKinds.size());
    out[start] = uint32_t(out.size() - start);
  }
  out[3] = uint32_t(out.size());
  out[4] = uint32_t(spirv.size());
  out.insert(out.end(), spirv.begin(), spirv.end());
  return out;
}

/// The first word of kernel record `index` in `image`.
inline size_t recordStart(const std::vector<uint32_t> &image, size_t index) {
  size_t at = TESSERA_SPIRV_IMAGE_HEADER_WORDS;
  for (size_t i = 0; i < index; ++i)
    at += image[at];
  return at;
}

/// The words of a SPIR-V literal string (NUL-terminated, zero-padded).
inline std::vector<uint32_t> spirvString(const std::string &s) {
  std::vector<uint32_t> out;
  appendPadded(out, s.c_str(), s.size() + 1);
  return out;
}

/// The preamble of a SPIR-V module with one GLCompute entry point per name
/// (all on function %1, of local size `local`), up to its first function:
/// enough for the image reader, not for a driver.
inline std::vector<uint32_t>
spirvPreamble(const std::vector<std::string> &names,
              const uint32_t (&local)[3]) {
  std::vector<uint32_t> w = {0x07230203u, 0x00010600u, 0, 16, 0};
  w.insert(w.end(), {(2u << 16) | 17, 1});    // OpCapability Shader
  w.insert(w.end(), {(3u << 16) | 14, 0, 1}); // OpMemoryModel Logical GLSL450
  for (const std::string &name : names) {
    std::vector<uint32_t> literal = spirvString(name);
    w.push_back(uint32_t(3 + literal.size()) << 16 | 15); // OpEntryPoint
    w.insert(w.end(), {5, 1});                            // GLCompute %1
    w.insert(w.end(), literal.begin(), literal.end());
  }
  // OpExecutionMode %1 LocalSize x y z
  w.insert(w.end(), {(6u << 16) | 16, 1, 17, local[0], local[1], local[2]});
  w.insert(w.end(), {(5u << 16) | 54, 2, 1, 0, 3}); // OpFunction
  return w;
}

} // namespace tessera::test

#endif
