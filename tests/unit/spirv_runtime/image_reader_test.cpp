//===- image_reader_test.cpp - the spirv plugin's image reader -----------===//
//
// The reader is linked in directly (the plugin exports only its ABI table),
// so these run without Vulkan.
//
//===----------------------------------------------------------------------===//

#include "image_reader.h"

#include "TestImage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>

namespace {

using namespace tessera::spirv;
using namespace tessera::test;

const uint32_t kLocal[3] = {64, 1, 1};

std::vector<TestRecord> twoKernels() {
  TestRecord a{"saxpy", {64, 1, 1}, 8, 0, {kBuffer, kValue, kBuffer, kValue}};
  TestRecord b{"scale_rows", {64, 1, 1}, 0, 256, {kValue, kBuffer}, 4096, 2};
  return {a, b};
}

std::vector<uint32_t> goodImage() {
  return makeImage(twoKernels(),
                   spirvPreamble({"saxpy", "scale_rows"}, kLocal));
}

/// Reads `image` (optionally only its first `bytes`); the error, or "" when
/// it was accepted.
std::string readError(const std::vector<uint32_t> &image,
                      size_t bytes = SIZE_MAX) {
  SpirvImage parsed;
  std::string error;
  bool ok = readSpirvImage(image.data(),
                           std::min(bytes, image.size() * sizeof(uint32_t)),
                           parsed, error);
  return ok ? "" : error;
}

#define EXPECT_REJECTED(image, text)                                           \
  do {                                                                         \
    std::string error_ = readError(image);                                     \
    EXPECT_NE(error_.find(text), std::string::npos)                            \
        << "expected \"" << (text) << "\", got \"" << error_ << "\"";          \
  } while (0)

TEST(SpirvImageReader, ReadsRecordsAndModule) {
  std::vector<uint32_t> image = goodImage();
  SpirvImage parsed;
  std::string error;
  ASSERT_TRUE(readSpirvImage(image.data(), image.size() * 4, parsed, error))
      << error;
  ASSERT_EQ(parsed.kernels.size(), 2u);
  const KernelRecord &a = parsed.kernels[0];
  EXPECT_EQ(a.name, "saxpy");
  EXPECT_EQ(a.localSize[0], 64u);
  EXPECT_EQ(a.subgroupSize, 8u);
  EXPECT_EQ(a.pushBytes, 16u);
  EXPECT_EQ(a.slotKinds, (std::vector<uint8_t>{1, 0, 1, 0}));
  EXPECT_EQ(a.bufferSlots(), 2u);
  EXPECT_EQ(a.scratchBytes, 0u);
  EXPECT_EQ(parsed.kernels[1].name, "scale_rows");
  EXPECT_EQ(parsed.kernels[1].sharedBytes, 256u);
  EXPECT_EQ(parsed.kernels[1].bufferSlots(), 1u);
  EXPECT_EQ(parsed.kernels[1].scratchBytes, 4096u);
  EXPECT_EQ(parsed.kernels[1].scratchBindings, 2u);
  EXPECT_EQ(parsed.spirv[0], 0x07230203u);
  EXPECT_EQ(parsed.spirvMajor(), 1u);
  EXPECT_EQ(parsed.spirvMinor(), 6u);

  // Any alignment of the caller's bytes.
  std::vector<unsigned char> shifted(image.size() * 4 + 1);
  std::memcpy(shifted.data() + 1, image.data(), image.size() * 4);
  EXPECT_TRUE(
      readSpirvImage(shifted.data() + 1, image.size() * 4, parsed, error))
      << error;
}

TEST(SpirvImageReader, ZeroKernelsAndLongerRecordsAreAccepted) {
  EXPECT_EQ(readError(makeImage({}, spirvPreamble({}, kLocal))), "");
  // A record may be longer than its fields (room for later versions).
  std::vector<uint32_t> image = goodImage();
  size_t second = recordStart(image, 1);
  image.insert(image.begin() + second, 0u); // one more word in record 0
  image[recordStart(image, 0)] += 1;
  image[3] += 1;
  EXPECT_EQ(readError(image), "");
}

TEST(SpirvImageReader, RejectsBadHeaders) {
  std::vector<uint32_t> image = goodImage();
  EXPECT_REJECTED(std::vector<uint32_t>{}, "its header alone takes 32");
  EXPECT_EQ(readError(image, 31).find("the image is 31 bytes"), 0u);

  auto bad = image;
  bad[0] = 0x12345678;
  EXPECT_REJECTED(bad, "not a tessera SPIR-V image: magic 0x12345678");
  bad = image;
  bad[1] = 2;
  EXPECT_REJECTED(bad, "format version 2; this plugin reads version 1");
}

TEST(SpirvImageReader, RejectsTruncationAnywhere) {
  std::vector<uint32_t> image = goodImage();
  // Every shorter prefix is refused, never read past.
  for (size_t bytes = 0; bytes < image.size() * 4; ++bytes)
    EXPECT_NE(readError(image, bytes), "") << "accepted " << bytes << " bytes";
  EXPECT_NE(readError(image, image.size() * 4 - 4).find("runs past the end"),
            std::string::npos);
}

TEST(SpirvImageReader, RejectsBadRecords) {
  std::vector<uint32_t> image = goodImage();
  size_t r0 = recordStart(image, 0), r1 = recordStart(image, 1);

  auto bad = image;
  bad[2] = 3; // a third record that is not there
  EXPECT_REJECTED(bad, "kernel record 2 of 3");
  bad = image;
  bad[r1] += 100;
  EXPECT_REJECTED(bad, "kernel record 1");
  EXPECT_REJECTED(bad, "overruns the SPIR-V module");
  bad = image;
  bad[r0] = 3;
  EXPECT_REJECTED(bad, "a record takes at least 11");
  bad = image;
  bad[r0 + 8] = 200; // name_bytes past the record
  EXPECT_REJECTED(bad, "too short for its name (200 bytes)");
  bad = image;
  bad[r0 + 6] = 40; // num_slots past the record
  bad[r0 + 7] = 160;
  EXPECT_REJECTED(bad, "slot kinds (40)");
  bad = image;
  bad[r0 + 7] = 12; // push_bytes != 4 * num_slots
  EXPECT_REJECTED(bad, "4 slots but 12 push-constant bytes");
  bad = image;
  bad[r0 + 8] = 0;
  EXPECT_REJECTED(bad, "empty name");
  bad = image;
  bad[r0 + 1] = 0;
  EXPECT_REJECTED(bad, "local size 0 x 1 x 1");
  const size_t name = r0 + TESSERA_SPIRV_RECORD_FIXED_WORDS;
  bad = image;
  bad[name] = 0x00786173; // "sax\0": a NUL inside the 5-byte name
  EXPECT_REJECTED(bad, "NUL byte");
  bad = image;
  size_t kinds = name + 2; // "saxpy" takes two words
  bad[kinds] = 0x00010201; // slot 1 has kind 2
  EXPECT_REJECTED(bad, "slot 1 has kind 2");

  TestRecord twin = twoKernels()[0];
  EXPECT_REJECTED(makeImage({twin, twin}, spirvPreamble({"saxpy"}, kLocal)),
                  "two kernel records are named 'saxpy'");
}

TEST(SpirvImageReader, RejectsABadModule) {
  std::vector<uint32_t> image = goodImage();
  auto bad = image;
  bad[bad[3]] = 0x03022307; // big-endian SPIR-V magic
  EXPECT_REJECTED(bad, "no SPIR-V module at word");
  bad = image;
  bad[3] = 4; // inside the header
  EXPECT_REJECTED(bad, "inside the image header");
  bad = image;
  bad[3] = uint32_t(recordStart(image, 1)); // over record 1
  EXPECT_REJECTED(bad, "no SPIR-V module at word");
  bad = image;
  bad[4] = 3;
  EXPECT_REJECTED(bad, "its header alone takes 5");
  bad = image;
  bad[4] += 1;
  EXPECT_REJECTED(bad, "runs past the end of the image");
  bad = image;
  bad[bad[3] + 5] = 0x00000011; // an instruction of length 0
  EXPECT_REJECTED(bad, "has length 0");
  bad = image;
  bad[bad[3] + 5] = 0x7fff0011; // an instruction longer than the module
  EXPECT_REJECTED(bad, "runs past its end");
}

TEST(SpirvImageReader, RecordsMustMatchEntryPoints) {
  EXPECT_REJECTED(makeImage(twoKernels(), spirvPreamble({"saxpy"}, kLocal)),
                  "kernel 'scale_rows' has no GLCompute entry point in the "
                  "SPIR-V module (its compute entry points: saxpy)");
  const uint32_t other[3] = {32, 2, 1};
  EXPECT_REJECTED(
      makeImage(twoKernels(), spirvPreamble({"saxpy", "scale_rows"}, other)),
      "kernel 'saxpy': the record says local size 64 x 1 x 1 but the SPIR-V "
      "entry point declares 32 x 2 x 1");
}

TEST(SpirvImageReader, SurvivesRandomCorruption) {
  // Whatever the bytes, the reader answers (under ASan: without reading
  // outside them).
  const std::vector<uint32_t> good = goodImage();
  std::mt19937 rng(1234);
  int accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::vector<uint32_t> image = good;
    int changes = 1 + int(rng() % 4);
    for (int c = 0; c < changes; ++c) {
      uint32_t &w = image[rng() % image.size()];
      switch (rng() % 3) {
      case 0:
        w = rng();
        break;
      case 1:
        w ^= 1u << (rng() % 32);
        break;
      default:
        w += uint32_t(rng() % 9) - 4;
        break;
      }
    }
    size_t bytes = rng() % 8 ? image.size() * 4 : rng() % (image.size() * 4);
    // Exactly `bytes` of heap, so ASan sees any read past them.
    std::unique_ptr<unsigned char[]> copy(new unsigned char[bytes]);
    std::memcpy(copy.get(), image.data(), bytes);
    SpirvImage parsed;
    std::string error;
    if (readSpirvImage(copy.get(), bytes, parsed, error))
      ++accepted;
    else
      EXPECT_FALSE(error.empty());
  }
  // Some corruptions land where nothing is checked (padding, reserved
  // words, SPIR-V bodies); most are refused.
  EXPECT_LT(accepted, 20000);
}

} // namespace
