//===- BundleFormatTest.cpp - OffloadBinary reader/writer -----------------===//

#include "tessera/bundle/Bundle.h"
#include "tessera/bundle/Sha256.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <random>

using namespace tessera::bundle;

namespace {

Bundle sampleBundle() {
  Bundle bundle;
  Image cpu;
  cpu.imageKind = ImageKind::Object;
  cpu.offloadKind = OffloadKind::OpenMP;
  cpu.setString(kTripleKey, "x86_64-unknown-linux-gnu");
  cpu.setString(kArchKey, "x86-64-v3");
  cpu.setString(kKernelsKey, "[[kernel]]\nname = \"k\"\n");
  cpu.setString(kVersionKey, "0.1.0");
  cpu.bytes = std::string("\x7f"
                          "ELF and some bytes",
                          19);
  Image gpu;
  gpu.imageKind = ImageKind::Cubin;
  gpu.offloadKind = OffloadKind::Cuda;
  gpu.flags = 7;
  gpu.setString(kTripleKey, "nvptx64-nvidia-cuda");
  gpu.setString(kArchKey, "sm_90a");
  gpu.setString(kKernelsKey, "");
  gpu.bytes.assign(1001, 'c');
  bundle.images = {cpu, gpu};
  return bundle;
}

void expectSame(const Bundle &a, const Bundle &b) {
  ASSERT_EQ(a.images.size(), b.images.size());
  for (size_t i = 0; i < a.images.size(); ++i) {
    EXPECT_EQ(a.images[i].imageKind, b.images[i].imageKind);
    EXPECT_EQ(a.images[i].offloadKind, b.images[i].offloadKind);
    EXPECT_EQ(a.images[i].flags, b.images[i].flags);
    EXPECT_EQ(a.images[i].strings, b.images[i].strings);
    EXPECT_EQ(a.images[i].bytes, b.images[i].bytes);
  }
}

TEST(BundleFormat, RoundTrip) {
  Bundle bundle = sampleBundle();
  std::string data = writeBundle(bundle);
  EXPECT_EQ(data.size() % kAlignment, 0u);
  Bundle back;
  std::string error;
  ASSERT_TRUE(readBundle(data, "k.tsb", back, error)) << error;
  expectSame(bundle, back);
  EXPECT_EQ(back.images[1].arch(), "sm_90a");
  // The reader verified and dropped the integrity strings; it keeps the
  // image digest.
  EXPECT_EQ(back.images[1].sha256, tessera::Sha256::hex(tessera::Sha256::hash(
                                       bundle.images[1].bytes)));
}

TEST(BundleFormat, LayoutMatchesLLVM) {
  Image image;
  image.imageKind = ImageKind::Object;
  image.offloadKind = OffloadKind::OpenMP;
  image.setString("triple", "t");
  image.bytes = "abc";
  std::string data = writeOffloadBinary(image);
  // Header: magic, version 1, size, entry offset 32, entry size 40.
  EXPECT_EQ(data.substr(0, 4), std::string("\x10\xFF\x10\xAD", 4));
  uint32_t version;
  uint64_t size, entryOffset, entrySize, imageOffset, imageSize;
  std::memcpy(&version, data.data() + 4, 4);
  std::memcpy(&size, data.data() + 8, 8);
  std::memcpy(&entryOffset, data.data() + 16, 8);
  std::memcpy(&entrySize, data.data() + 24, 8);
  std::memcpy(&imageOffset, data.data() + 32 + 24, 8);
  std::memcpy(&imageSize, data.data() + 32 + 32, 8);
  EXPECT_EQ(version, 1u);
  EXPECT_EQ(size, data.size());
  EXPECT_EQ(entryOffset, 32u);
  EXPECT_EQ(entrySize, 40u);
  EXPECT_EQ(imageOffset % 8, 0u);
  EXPECT_EQ(imageSize, 3u);
  EXPECT_EQ(data.substr(imageOffset, 3), "abc");
}

TEST(BundleFormat, EmptyAndWrongMagic) {
  Bundle out;
  std::string error;
  EXPECT_FALSE(readBundle("", "e.tsb", out, error));
  EXPECT_EQ(error, "bundle 'e.tsb' is empty");
  std::string data = writeBundle(sampleBundle());
  data[0] = 'X';
  EXPECT_FALSE(readBundle(data, "m.tsb", out, error));
  EXPECT_NE(error.find("not a tessera bundle"), std::string::npos) << error;
  EXPECT_TRUE(out.images.empty());
}

TEST(BundleFormat, TruncationAtEveryPoint) {
  std::string data = writeBundle(sampleBundle());
  size_t first = writeOffloadBinary(sampleBundle().images[0]).size();
  for (size_t cut = 1; cut < data.size(); ++cut) {
    Bundle out;
    std::string error;
    // Cutting exactly after the first binary leaves a well-formed binary,
    // but it records that the bundle holds two.
    if (cut == first) {
      EXPECT_FALSE(readBundle(data.substr(0, cut), "k.tsb", out, error));
      EXPECT_EQ(error, "bundle 'k.tsb' is truncated: it ends after image 0 "
                       "but its images say it holds 2");
      continue;
    }
    ASSERT_FALSE(readBundle(data.substr(0, cut), "k.tsb", out, error))
        << "cut at " << cut;
    EXPECT_FALSE(error.empty());
  }
  Bundle out;
  std::string error;
  ASSERT_FALSE(
      readBundle(data.substr(0, data.size() - 8), "k.tsb", out, error));
  EXPECT_EQ(error, "bundle 'k.tsb' is truncated: image 1 ends at byte " +
                       std::to_string(data.size()) + " but the file has " +
                       std::to_string(data.size() - 8) + " bytes");
}

TEST(BundleFormat, RandomByteFlipsAreAllRejected) {
  Bundle bundle = sampleBundle();
  std::string data = writeBundle(bundle);
  std::mt19937 rng(1234);
  unsigned accepted = 0, rejected = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string copy = data;
    int flips = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < flips; ++i)
      copy[rng() % copy.size()] ^= static_cast<char>(1 + rng() % 255);
    Bundle out;
    std::string error;
    if (readBundle(copy, "f.tsb", out, error)) {
      ++accepted;
    } else {
      ++rejected;
      EXPECT_NE(error.find("f.tsb"), std::string::npos) << error;
    }
  }
  // Every byte is covered by a digest (format 2), padding included.
  EXPECT_EQ(accepted, 0u);
  EXPECT_EQ(rejected, 20000u);
}

TEST(BundleFormat, FlipsInImageBytesAreReported) {
  Bundle bundle = sampleBundle();
  std::string data = writeBundle(bundle);
  size_t offset = data.find(std::string(1001, 'c'));
  ASSERT_NE(offset, std::string::npos);
  data[offset + 500] = 'X';
  Bundle out;
  std::string error;
  ASSERT_FALSE(readBundle(data, "k.tsb", out, error));
  EXPECT_EQ(error, "bundle 'k.tsb' is corrupt: image 1 (nvptx64-nvidia-cuda:"
                   "sm_90a, cubin): its 1001 image bytes do not match their "
                   "SHA-256 ('tessera.image.sha256')");
}

TEST(BundleFormat, BadOffsetsAreReported) {
  std::string data = writeOffloadBinary(sampleBundle().images[0]);
  Bundle out;
  std::string error;
  std::string bad = data;
  uint64_t huge = UINT64_MAX - 3;
  std::memcpy(&bad[32 + 8], &huge, 8); // string offset
  EXPECT_FALSE(readBundle(bad, "o.tsb", out, error));
  EXPECT_NE(error.find("string entries"), std::string::npos) << error;
  bad = data;
  std::memcpy(&bad[32 + 32], &huge, 8); // image size
  EXPECT_FALSE(readBundle(bad, "o.tsb", out, error));
  EXPECT_NE(error.find("image bytes"), std::string::npos) << error;
  bad = data;
  bad[4] = 2; // version
  EXPECT_FALSE(readBundle(bad, "o.tsb", out, error));
  EXPECT_NE(error.find("version 2"), std::string::npos) << error;
}

TEST(BundleFormat, StringsMustBeTerminated) {
  Image image;
  image.setString("triple", "abc");
  std::string data = writeOffloadBinary(image);
  // Point the value at the last byte of the binary, which is padding 0, then
  // make it non-zero: the string runs off the end.
  uint64_t last = data.size() - 1;
  std::memcpy(&data[72 + 8], &last, 8);
  data[last] = 'z';
  Bundle out;
  std::string error;
  EXPECT_FALSE(readBundle(data, "s.tsb", out, error));
  EXPECT_NE(error.find("not NUL-terminated"), std::string::npos) << error;
}

TEST(BundleFormat, FileRoundTripIsAtomic) {
  std::string path = ::testing::TempDir() + "/roundtrip.tsb";
  std::string error;
  ASSERT_TRUE(writeBundleFile(sampleBundle(), path, error)) << error;
  Bundle out;
  ASSERT_TRUE(readBundleFile(path, out, error)) << error;
  expectSame(sampleBundle(), out);
  EXPECT_FALSE(readBundleFile(path + ".missing", out, error));
  std::remove(path.c_str());
}

#ifdef TESSERA_LLVM_OBJDUMP
// The point of the OffloadBinary layout: standard LLVM tools read bundles.
TEST(BundleFormat, LlvmObjdumpListsImages) {
  std::string path = ::testing::TempDir() + "/objdump.tsb";
  std::string error;
  ASSERT_TRUE(writeBundleFile(sampleBundle(), path, error)) << error;
  std::string command =
      std::string(TESSERA_LLVM_OBJDUMP) + " --offloading " + path + " 2>&1";
  FILE *pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char chunk[4096];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, pipe)) > 0)
    output.append(chunk, n);
  int rc = ::pclose(pipe);
  EXPECT_EQ(rc, 0) << output;
  EXPECT_NE(output.find("x86_64-unknown-linux-gnu"), std::string::npos)
      << output;
  EXPECT_NE(output.find("x86-64-v3"), std::string::npos) << output;
  EXPECT_NE(output.find("nvptx64-nvidia-cuda"), std::string::npos) << output;
  EXPECT_NE(output.find("sm_90a"), std::string::npos) << output;
  EXPECT_NE(output.find("cubin"), std::string::npos) << output;
  std::remove(path.c_str());
}
#endif

} // namespace
