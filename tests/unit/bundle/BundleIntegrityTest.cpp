//===- BundleIntegrityTest.cpp - every flipped byte is caught -------------===//
//
// Bundle format 2 covers every byte of a bundle with a digest. These tests
// build bundles holding every image kind tessera writes, flip every byte of
// every region, and check that each load fails with a message naming the
// image and, for image bytes and kernel metadata, the region. They also check
// the documented digest scheme against an independent writer.
//
//===----------------------------------------------------------------------===//

#include "tessera/bundle/Bundle.h"
#include "tessera/bundle/KernelMetadata.h"
#include "tessera/bundle/Sha256.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <tuple>

using namespace tessera::bundle;

namespace {

std::string sha256(std::string_view data) {
  return tessera::Sha256::hex(tessera::Sha256::hash(data));
}

std::string kernelsText() {
  KernelInfo gemm;
  gemm.name = "gemm";
  gemm.symbol = "tessera_kernel_gemm";
  gemm.threads = 128;
  gemm.grid = {"ceildiv(N, 128)", "ceildiv(M, 128)", "1"};
  gemm.args = {{"A", ArgKind::Tensor, DType::F16, {"M", "K"}},
               {"B", ArgKind::Tensor, DType::F16, {"K", "N"}},
               {"C", ArgKind::Tensor, DType::F32, {"M", "N"}}};
  return printKernelMetadata({gemm});
}

/// One image of each kind the backends write: a host shared object, a HIP
/// code object, a cubin, PTX and SPIR-V.
Bundle everyKind() {
  Bundle bundle;
  std::tuple<const char *, const char *, ImageKind, OffloadKind, std::string>
      kinds[] = {
          {"x86_64-unknown-linux-gnu", "x86-64-v3", ImageKind::Object,
           OffloadKind::OpenMP,
           std::string("\x7f"
                       "ELF\x02\x01\x01",
                       7)},
          {"amdgcn-amd-amdhsa", "gfx942", ImageKind::Object, OffloadKind::HIP,
           std::string("\x7f"
                       "ELF\x02\x01\x01\x40",
                       8)},
          {"nvptx64-nvidia-cuda", "sm_90a", ImageKind::Cubin, OffloadKind::Cuda,
           std::string("\x7f"
                       "ELF\x02\x01\x01\x33",
                       8)},
          {"nvptx64-nvidia-cuda", "sm_80", ImageKind::PTX, OffloadKind::Cuda,
           ".version 8.0\n.target sm_80\n.address_size 64\n"},
          {"spirv64-unknown-vulkan1.3", "vulkan1.3", ImageKind::SPIRV,
           OffloadKind::None, std::string("\x03\x02\x23\x07\x00\x06\x01", 7)},
      };
  unsigned n = 0;
  for (auto &[triple, arch, kind, offload, head] : kinds) {
    Image image;
    image.imageKind = kind;
    image.offloadKind = offload;
    image.setString(kTripleKey, triple);
    image.setString(kArchKey, arch);
    image.setString(kKernelsKey, kernelsText());
    image.setString(kVersionKey, "0.1.0");
    image.setString("tessera.source", "tile.func @gemm() {\n}\n");
    // Sizes that leave different amounts of padding.
    image.bytes = head + std::string(97 + 13 * n++, '\xa5');
    bundle.images.push_back(image);
  }
  return bundle;
}

std::string describe(const Image &image, size_t index) {
  return "image " + std::to_string(index) + " (" + std::string(image.triple()) +
         ":" + std::string(image.arch()) + ", " +
         imageKindName(image.imageKind) + ")";
}

uint64_t get64(const std::string &data, uint64_t at) {
  uint64_t v;
  std::memcpy(&v, data.data() + at, 8);
  return v;
}

/// Which binary each byte belongs to and which region of it, worked out
/// from the documented layout rather than from the writer.
struct Region {
  size_t image;
  std::string name;
};

std::vector<Region> regions(const std::string &data) {
  std::vector<Region> out(data.size());
  uint64_t base = 0;
  for (size_t index = 0; base < data.size(); ++index) {
    uint64_t size = get64(data, base + 8);
    uint64_t strings = get64(data, base + 32 + 8);
    uint64_t count = get64(data, base + 32 + 16);
    uint64_t imageOffset = get64(data, base + 32 + 24);
    uint64_t imageSize = get64(data, base + 32 + 32);
    for (uint64_t i = 0; i < size; ++i) {
      std::string name = i < 32                        ? "header"
                         : i < 72                      ? "entry"
                         : i < strings + 16 * count    ? "string entries"
                         : i < imageOffset             ? "string table"
                         : i < imageOffset + imageSize ? "image bytes"
                                                       : "padding";
      out[base + i] = {index, name};
    }
    // The kernel metadata value inside the string table.
    for (uint64_t s = 0; s < count; ++s) {
      uint64_t pair = base + strings + 16 * s;
      const char *key = data.c_str() + base + get64(data, pair);
      if (std::string(key) != kKernelsKey)
        continue;
      uint64_t value = base + get64(data, pair + 8);
      for (uint64_t i = value; data[i]; ++i)
        out[i].name = "kernel metadata";
    }
    base += size;
  }
  return out;
}

TEST(BundleIntegrity, EveryFlippedByteIsRejected) {
  Bundle bundle = everyKind();
  std::string data = writeBundle(bundle);
  std::vector<Region> where = regions(data);
  std::map<std::string, unsigned> flipsPerRegion;
  for (size_t at = 0; at < data.size(); ++at) {
    for (unsigned char mask : {0x01, 0x20, 0x80, 0xff}) {
      std::string bad = data;
      bad[at] = static_cast<char>(bad[at] ^ mask);
      Bundle out;
      std::string error;
      ASSERT_FALSE(readBundle(bad, "k.tsb", out, error))
          << "flip 0x" << std::hex << unsigned(mask) << std::dec << " at " << at
          << " (" << where[at].name << " of image " << where[at].image
          << ") was accepted";
      EXPECT_TRUE(out.images.empty());
      const Region &r = where[at];
      ++flipsPerRegion[r.name];
      std::string image = describe(bundle.images[r.image], r.image);
      if (r.name == "image bytes") {
        EXPECT_EQ(error,
                  "bundle 'k.tsb' is corrupt: " + image + ": its " +
                      std::to_string(bundle.images[r.image].bytes.size()) +
                      " image bytes do not match their SHA-256 "
                      "('tessera.image.sha256')");
      } else if (r.name == "kernel metadata") {
        EXPECT_EQ(error, "bundle 'k.tsb' is corrupt: " + image +
                             ": its kernel metadata ('tessera.kernels') does "
                             "not match its SHA-256");
      } else if (r.image == 0 && at < 4) {
        EXPECT_EQ(error, "bundle 'k.tsb' is not a tessera bundle: it does not "
                         "start with the OffloadBinary magic 10 FF 10 AD");
      } else {
        // Header, entry, string entries and table, padding: the message
        // names the binary the byte belongs to.
        EXPECT_NE(error.find("bundle 'k.tsb' is "), std::string::npos) << error;
        EXPECT_NE(error.find("image " + std::to_string(r.image) + " "),
                  std::string::npos)
            << "flip at " << at << " (" << r.name << "): " << error;
      }
    }
  }
  // The sample really has every region, in every image.
  for (const char *name : {"header", "entry", "string entries", "string table",
                           "kernel metadata", "image bytes", "padding"})
    EXPECT_GT(flipsPerRegion[name], 0u) << name;
}

TEST(BundleIntegrity, RegionsOfAMetadataFlipAreNamed) {
  Bundle bundle = everyKind();
  std::string data = writeBundle(bundle);
  // The flags field of image 2's entry: structurally anything goes, so only
  // the binary digest can catch it.
  uint64_t base = 0;
  for (int i = 0; i < 2; ++i)
    base += get64(data, base + 8);
  data[base + 32 + 4] ^= 1;
  Bundle out;
  std::string error;
  ASSERT_FALSE(readBundle(data, "k.tsb", out, error));
  EXPECT_EQ(error, "bundle 'k.tsb' is corrupt: image 2 (nvptx64-nvidia-cuda:"
                   "sm_90a, cubin): its OffloadBinary header, entry, string "
                   "table or padding does not match its SHA-256 "
                   "('tessera.sha256')");
}

TEST(BundleIntegrity, MissingReorderedAndForeignImages) {
  Bundle bundle = everyKind();
  std::vector<std::string> binaries;
  for (unsigned i = 0; i < bundle.images.size(); ++i)
    binaries.push_back(writeOffloadBinary(bundle.images[i], i, 5));
  Bundle out;
  std::string error;

  std::string dropped = binaries[0] + binaries[1] + binaries[3] + binaries[4];
  ASSERT_FALSE(readBundle(dropped, "k.tsb", out, error));
  EXPECT_EQ(error, "bundle 'k.tsb' is corrupt: image 2 (nvptx64-nvidia-cuda:"
                   "sm_80, ptx): it says it is image 3 of its bundle: images "
                   "were reordered, dropped or come from another bundle");

  std::string lastDropped =
      binaries[0] + binaries[1] + binaries[2] + binaries[3];
  ASSERT_FALSE(readBundle(lastDropped, "k.tsb", out, error));
  EXPECT_EQ(error, "bundle 'k.tsb' is truncated: it ends after image 3 but "
                   "its images say it holds 5");

  std::string swapped =
      binaries[1] + binaries[0] + binaries[2] + binaries[3] + binaries[4];
  ASSERT_FALSE(readBundle(swapped, "k.tsb", out, error));
  EXPECT_NE(error.find("image 0 (amdgcn-amd-amdhsa:gfx942, elf): it says it "
                       "is image 1"),
            std::string::npos)
      << error;

  // Two whole bundles pasted together.
  std::string twice = writeBundle(bundle) + writeBundle(bundle);
  ASSERT_FALSE(readBundle(twice, "k.tsb", out, error));
  EXPECT_NE(error.find("image 5 "), std::string::npos) << error;

  // An image of a one-image bundle appended.
  std::string extra =
      writeBundle(bundle) + writeOffloadBinary(bundle.images[0]);
  ASSERT_FALSE(readBundle(extra, "k.tsb", out, error));
  EXPECT_NE(error.find("image 5 "), std::string::npos) << error;
}

/// An OffloadBinary laid out as docs/bundle.md says, written independently
/// of BundleWriter. When the strings hold tessera.sha256 its value is
/// computed as documented.
std::string documentedBinary(
    ImageKind kind, OffloadKind offload,
    const std::vector<std::pair<std::string, std::string>> &strings,
    const std::string &bytes) {
  auto put = [](std::string &out, uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  auto align = [](uint64_t v) { return (v + 7) / 8 * 8; };
  std::string table(1, '\0');
  std::vector<std::pair<uint64_t, uint64_t>> at;
  for (const auto &[key, value] : strings) {
    uint64_t k = table.size();
    table += key + '\0';
    at.emplace_back(k, table.size());
    table += value + '\0';
  }
  uint64_t tableStart = 72 + 16 * strings.size();
  uint64_t imageOffset = align(tableStart + table.size());
  uint64_t size = align(imageOffset + bytes.size());
  std::string out("\x10\xFF\x10\xAD", 4);
  put(out, 1, 4);
  put(out, size, 8);
  put(out, 32, 8);
  put(out, 40, 8);
  put(out, uint64_t(kind), 2);
  put(out, uint64_t(offload), 2);
  put(out, 0, 4);
  put(out, 72, 8);
  put(out, strings.size(), 8);
  put(out, imageOffset, 8);
  put(out, bytes.size(), 8);
  for (auto [k, v] : at) {
    put(out, tableStart + k, 8);
    put(out, tableStart + v, 8);
  }
  out += table;
  out.resize(imageOffset, '\0');
  out += bytes;
  out.resize(size, '\0');
  for (size_t i = 0; i < strings.size(); ++i)
    if (strings[i].first == kBinaryDigestKey) {
      uint64_t valueAt = tableStart + at[i].second;
      std::string hashed =
          out.substr(0, imageOffset) + out.substr(imageOffset + bytes.size());
      std::string digest = sha256(hashed);
      out.replace(valueAt, 64, digest);
    }
  return out;
}

std::vector<std::pair<std::string, std::string>>
format2Strings(const std::string &kernels, const std::string &bytes,
               const std::string &format = "2") {
  return {{kTripleKey, "x86_64-unknown-linux-gnu"},
          {kArchKey, "x86-64-v3"},
          {kKernelsKey, kernels},
          {kFormatKey, format},
          {kImageIndexKey, "0"},
          {kImageCountKey, "1"},
          {kImageDigestKey, sha256(bytes)},
          {kKernelsDigestKey, sha256(kernels)},
          {kBinaryDigestKey, std::string(64, '0')}};
}

TEST(BundleIntegrity, DocumentedSchemeMatchesTheWriter) {
  std::string bytes = "\x7f"
                      "ELF some code";
  std::string kernels = kernelsText();
  std::string documented =
      documentedBinary(ImageKind::Object, OffloadKind::OpenMP,
                       format2Strings(kernels, bytes), bytes);
  Image image;
  image.imageKind = ImageKind::Object;
  image.offloadKind = OffloadKind::OpenMP;
  image.setString(kTripleKey, "x86_64-unknown-linux-gnu");
  image.setString(kArchKey, "x86-64-v3");
  image.setString(kKernelsKey, kernels);
  image.bytes = bytes;
  EXPECT_EQ(writeOffloadBinary(image), documented);
  Bundle out;
  std::string error;
  ASSERT_TRUE(readBundle(documented, "d.tsb", out, error)) << error;
  ASSERT_EQ(out.images.size(), 1u);
  // The integrity strings are the format's, not the image's.
  EXPECT_EQ(out.images[0].strings.size(), 3u);
  EXPECT_EQ(out.images[0].sha256, sha256(bytes));

  // Writing what was read gives the same bytes: stale integrity strings
  // in Image::strings are replaced, never duplicated.
  out.images[0].setString(kImageDigestKey, std::string(64, 'f'));
  EXPECT_EQ(writeOffloadBinary(out.images[0]), documented);
}

TEST(BundleIntegrity, OtherFormatsAreNamed) {
  std::string bytes = "code";
  std::string kernels = kernelsText();
  Bundle out;
  std::string error;
  // Format 1: no integrity strings at all.
  std::string old = documentedBinary(ImageKind::Object, OffloadKind::OpenMP,
                                     {{kTripleKey, "x86_64-unknown-linux-gnu"},
                                      {kArchKey, "x86-64-v3"},
                                      {kKernelsKey, kernels}},
                                     bytes);
  ASSERT_FALSE(readBundle(old, "old.tsb", out, error));
  EXPECT_EQ(error, "bundle 'old.tsb' image 0 (x86_64-unknown-linux-gnu:"
                   "x86-64-v3, elf) has no integrity digests: it was written "
                   "in bundle format 1 (recompile it with this tessera, which "
                   "writes format 2)");
  // An intact bundle of a later format.
  std::string later =
      documentedBinary(ImageKind::Object, OffloadKind::OpenMP,
                       format2Strings(kernels, bytes, "3"), bytes);
  ASSERT_FALSE(readBundle(later, "new.tsb", out, error));
  EXPECT_EQ(error, "bundle 'new.tsb' image 0 (x86_64-unknown-linux-gnu:"
                   "x86-64-v3, elf) has bundle format '3'; this reader "
                   "understands format 2");
  // Digests in upper case are not what the writer writes.
  auto strings = format2Strings(kernels, bytes);
  for (char &c : strings[6].second)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string upper =
      documentedBinary(ImageKind::Object, OffloadKind::OpenMP, strings, bytes);
  ASSERT_FALSE(readBundle(upper, "u.tsb", out, error));
  EXPECT_NE(error.find("'tessera.image.sha256' string is not a SHA-256"),
            std::string::npos)
      << error;
}

} // namespace
