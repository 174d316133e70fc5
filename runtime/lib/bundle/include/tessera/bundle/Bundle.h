//===- tessera/bundle/Bundle.h - the .tsb bundle file format ----*- C++ -*-===//
//
// A bundle holds one compiled image per target. Each image is stored as one
// LLVM OffloadBinary (version 1, the layout of llvm/Object/OffloadBinary.h in
// LLVM 22) and the binaries are concatenated, each 8-byte aligned, so that
// `llvm-objdump --offloading k.tsb` lists them. This code reads and writes the
// layout without LLVM because the runtime must never link LLVM.
//
// Layout of one binary (all integers little-endian):
//   Header  { u8 magic[4] = 10 FF 10 AD; u32 version; u64 size;
//             u64 entry_offset; u64 entry_size }                    32 bytes
//   Entry   { u16 image_kind; u16 offload_kind; u32 flags;
//             u64 string_offset; u64 num_strings;
//             u64 image_offset; u64 image_size }                    40 bytes
//   StringEntry[num_strings] { u64 key_offset; u64 value_offset }   16 each
//   string table (NUL-terminated), padding to 8, image, padding to 8.
// All offsets are relative to the start of that binary.
//
// Integrity (bundle format 2): the writer adds strings to every image that
// cover every byte of the file -- a SHA-256 of the image bytes, one of the
// kernel metadata, and one of the rest of the binary (header, entry, string
// entries, string table, padding) -- plus the image's position in the
// bundle. The reader checks them all and removes them from Image::strings,
// so a flipped or missing byte anywhere is an error naming the image and
// the region, never a silently different kernel.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BUNDLE_BUNDLE_H
#define TESSERA_BUNDLE_BUNDLE_H

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::bundle {

/// Mirrors llvm::object::ImageKind.
enum class ImageKind : uint16_t {
  None = 0,
  Object = 1,
  Bitcode = 2,
  Cubin = 3,
  Fatbinary = 4,
  PTX = 5,
  SPIRV = 6,
};

/// Mirrors llvm::object::OffloadKind (a bit set in LLVM; one bit here).
enum class OffloadKind : uint16_t {
  None = 0,
  OpenMP = 1 << 0,
  Cuda = 1 << 1,
  HIP = 1 << 2,
  SYCL = 1 << 3,
};

const char *imageKindName(ImageKind kind);
const char *offloadKindName(OffloadKind kind);

/// The string keys tessera puts on every image.
inline constexpr const char *kTripleKey = "triple";
inline constexpr const char *kArchKey = "arch";
inline constexpr const char *kKernelsKey = "tessera.kernels";
inline constexpr const char *kVersionKey = "tessera.version";
/// On an image that holds kernels a launch needs only in rare cases (the
/// cuda backend's twins of TMA kernels, as PTX). Such an image follows the
/// image it belongs to (same triple and arch) and is never a device's
/// image by itself: the runtime hands it to the plugin beside that image,
/// to be loaded when a launch first needs one of its kernels. The value
/// says what it holds ("fallback kernels"). A runtime that does not know
/// the key picks the image before it, which comes first.
inline constexpr const char *kOnDemandKey = "tessera.on_demand";

/// The strings the writer adds to every image and the reader checks and then
/// removes (see docs/bundle.md):
///   tessera.format         the bundle format, kBundleFormat
///   tessera.image.index    this image's position in the bundle, from 0
///   tessera.image.count    the number of images in the bundle
///   tessera.image.sha256   SHA-256 of the image bytes (64 lowercase hex)
///   tessera.kernels.sha256 SHA-256 of the tessera.kernels value
///   tessera.sha256         SHA-256 of the binary without its image bytes,
///                          with the 64 characters of this value read as '0'
inline constexpr const char *kFormatKey = "tessera.format";
inline constexpr const char *kImageIndexKey = "tessera.image.index";
inline constexpr const char *kImageCountKey = "tessera.image.count";
inline constexpr const char *kImageDigestKey = "tessera.image.sha256";
inline constexpr const char *kKernelsDigestKey = "tessera.kernels.sha256";
inline constexpr const char *kBinaryDigestKey = "tessera.sha256";

/// True for the keys above, which belong to the format, not to the image.
bool isIntegrityKey(std::string_view key);

/// The tessera bundle format this code reads and writes (the value of
/// tessera.format). 1: no integrity strings; 2: the strings above.
inline constexpr unsigned kBundleFormat = 2;

/// The OffloadBinary format version this code reads and writes.
inline constexpr uint32_t kOffloadBinaryVersion = 1;
inline constexpr uint64_t kAlignment = 8;

struct Image {
  ImageKind imageKind = ImageKind::None;
  OffloadKind offloadKind = OffloadKind::None;
  uint32_t flags = 0;
  /// Key/value strings in file order. Keys should be unique; on lookup the
  /// last one wins, as in LLVM.
  std::vector<std::pair<std::string, std::string>> strings;
  std::string bytes;
  /// SHA-256 of `bytes` (64 lowercase hex digits), set by the reader once
  /// verified; the writer computes its own and ignores this.
  std::string sha256;

  /// The value of \p key, or "" when absent.
  std::string_view string(std::string_view key) const;
  bool hasString(std::string_view key) const;
  void setString(std::string key, std::string value);

  std::string_view triple() const { return string(kTripleKey); }
  std::string_view arch() const { return string(kArchKey); }
  std::string_view kernels() const { return string(kKernelsKey); }
};

struct Bundle {
  std::vector<Image> images;
};

/// Serialises one image as an OffloadBinary (its size a multiple of 8), as
/// image \p index of a bundle of \p count images, with its integrity
/// strings (any of them in `image.strings` are replaced).
std::string writeOffloadBinary(const Image &image, unsigned index = 0,
                               unsigned count = 1);
/// Serialises all images, concatenated.
std::string writeBundle(const Bundle &bundle);
/// Writes \p bundle to \p path atomically (temp file + rename). Returns false
/// and sets \p error on failure.
bool writeBundleFile(const Bundle &bundle, const std::string &path,
                     std::string &error);

/// Parses and validates every byte of header and metadata and checks every
/// image's integrity strings (which it then drops from Image::strings).
/// \p name is used in messages ("bundle 'k.tsb' is truncated: ..."). Returns
/// false and sets \p error on any defect; never reads out of bounds.
bool readBundle(std::string_view data, const std::string &name, Bundle &out,
                std::string &error);
bool readBundleFile(const std::string &path, Bundle &out, std::string &error);

/// True when \p data starts with the OffloadBinary magic.
bool looksLikeBundle(std::string_view data);

} // namespace tessera::bundle

#endif // TESSERA_BUNDLE_BUNDLE_H
