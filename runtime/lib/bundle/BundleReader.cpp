//===- BundleReader.cpp - read and validate OffloadBinary images ----------===//
//
// The reader trusts nothing in the file: every offset and size is checked
// against the binary it belongs to before it is followed, with overflow-safe
// arithmetic, so a corrupt or hostile bundle yields a message, not a crash.
// Then the integrity strings (Bundle.h) are checked, so that damage the
// structure does not reveal -- in machine code, kernel metadata, a flag or
// padding -- is reported too, naming the image and the region.
//
//===----------------------------------------------------------------------===//

#include "Integrity.h"

#include "tessera/bundle/Bundle.h"

#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace tessera::bundle {
namespace {

constexpr uint64_t kHeaderSize = 32;
constexpr uint64_t kEntrySize = 40;
constexpr uint64_t kStringEntrySize = 16;
constexpr char kMagic[4] = {'\x10', '\xFF', '\x10', '\xAD'};

uint16_t get16(const char *p) {
  const auto *u = reinterpret_cast<const unsigned char *>(p);
  return static_cast<uint16_t>(u[0] | (u[1] << 8));
}
uint32_t get32(const char *p) {
  const auto *u = reinterpret_cast<const unsigned char *>(p);
  return static_cast<uint32_t>(u[0]) | (static_cast<uint32_t>(u[1]) << 8) |
         (static_cast<uint32_t>(u[2]) << 16) |
         (static_cast<uint32_t>(u[3]) << 24);
}
uint64_t get64(const char *p) {
  return static_cast<uint64_t>(get32(p)) |
         (static_cast<uint64_t>(get32(p + 4)) << 32);
}

/// True when [offset, offset + length) lies inside [0, limit).
bool inRange(uint64_t offset, uint64_t length, uint64_t limit) {
  return offset <= limit && length <= limit - offset;
}

bool isHexDigest(std::string_view s) {
  if (s.size() != detail::kDigestChars)
    return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  return true;
}

/// A decimal count or index as the writer prints it (no sign, no leading
/// zeros, below 2^32).
bool parseCount(std::string_view s, uint64_t &out) {
  if (s.empty() || s.size() > 10 || (s.size() > 1 && s[0] == '0'))
    return false;
  out = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return false;
    out = out * 10 + static_cast<uint64_t>(c - '0');
  }
  return out <= UINT32_MAX;
}

/// Reads one binary starting at \p base (its bytes are data[base, base+size)).
class BinaryParser {
public:
  BinaryParser(std::string_view data, const std::string &name, unsigned index)
      : data(data), name(name), index(index) {}

  /// Parses the binary at \p base and checks its integrity strings; on
  /// success \p count is the number of images the binary says the bundle
  /// holds.
  bool parse(uint64_t base, Image &image, uint64_t &size, uint64_t &count,
             std::string &error);

private:
  bool fail(std::string &error, const std::string &what) {
    error = "bundle '" + name + "' is corrupt: image " + std::to_string(index) +
            " " + what;
    return false;
  }
  /// Like fail, once the strings are read: names the image by its target.
  bool failImage(std::string &error, const Image &image,
                 const std::string &what) {
    error =
        "bundle '" + name + "' is corrupt: " + describe(image) + ": " + what;
    return false;
  }
  std::string describe(const Image &image) const {
    std::string triple(image.triple()), arch(image.arch());
    return "image " + std::to_string(index) + " (" +
           (triple.empty() ? "no triple" : triple) + ":" +
           (arch.empty() ? "no arch" : arch) + ", " +
           imageKindName(image.imageKind) + ")";
  }
  bool verify(std::string_view binary, uint64_t imageOffset, uint64_t imageSize,
              const std::vector<uint64_t> &valueOffsets, Image &image,
              uint64_t &count, std::string &error);
  /// Reads a NUL-terminated string at \p offset inside the binary.
  bool readString(const char *bin, uint64_t size, uint64_t offset,
                  std::string &out, std::string &error, const char *what,
                  uint64_t which);

  std::string_view data;
  const std::string &name;
  unsigned index;
};

bool BinaryParser::readString(const char *bin, uint64_t size, uint64_t offset,
                              std::string &out, std::string &error,
                              const char *what, uint64_t which) {
  if (offset >= size)
    return fail(error, "has string " + std::to_string(which) + " " + what +
                           " at offset " + std::to_string(offset) +
                           " outside its " + std::to_string(size) + " bytes");
  const void *nul = std::memchr(bin + offset, '\0', size - offset);
  if (!nul)
    return fail(error, "has string " + std::to_string(which) + " " + what +
                           " that is not NUL-terminated");
  out.assign(bin + offset, static_cast<const char *>(nul));
  return true;
}

bool BinaryParser::verify(std::string_view binary, uint64_t imageOffset,
                          uint64_t imageSize,
                          const std::vector<uint64_t> &valueOffsets,
                          Image &image, uint64_t &count, std::string &error) {
  // The last entry of a key wins, as in Image::string.
  auto find = [&](const char *key) -> int {
    for (size_t i = image.strings.size(); i-- > 0;)
      if (image.strings[i].first == key)
        return static_cast<int>(i);
    return -1;
  };
  const char *keys[] = {kFormatKey,      kImageIndexKey,    kImageCountKey,
                        kImageDigestKey, kKernelsDigestKey, kBinaryDigestKey};
  int found = 0;
  for (const char *key : keys)
    found += find(key) >= 0;
  if (found == 0) {
    error = "bundle '" + name + "' " + describe(image) +
            " has no integrity digests: it was written in bundle format 1 "
            "(recompile it with this tessera, which writes format " +
            std::to_string(kBundleFormat) + ")";
    return false;
  }
  for (const char *key : keys)
    if (find(key) < 0)
      return failImage(error, image,
                       std::string("its string table has no '") + key +
                           "' string (damaged string entries or table)");
  for (const char *key : {kImageDigestKey, kKernelsDigestKey, kBinaryDigestKey})
    if (!isHexDigest(image.string(key)))
      return failImage(error, image,
                       std::string("its '") + key +
                           "' string is not a SHA-256 (64 lowercase hex "
                           "digits): its string table is damaged");

  // The binary digest covers everything but the image bytes; the kernel
  // metadata digest then tells whether the damage is in the metadata.
  std::string computed;
  uint64_t valueAt = valueOffsets[find(kBinaryDigestKey)];
  bool kernelsIntact =
      detail::sha256Hex(image.kernels()) == image.string(kKernelsDigestKey);
  if (!detail::binaryDigest(binary, imageOffset, imageSize, valueAt, computed))
    return failImage(error, image,
                     "its 'tessera.sha256' string overlaps the image bytes");
  if (!kernelsIntact)
    return failImage(error, image,
                     "its kernel metadata ('tessera.kernels') does not match "
                     "its SHA-256");
  if (computed != image.string(kBinaryDigestKey))
    return failImage(error, image,
                     "its OffloadBinary header, entry, string table or "
                     "padding does not match its SHA-256 ('tessera.sha256')");
  // The recorded image digest is now known to be intact.
  std::string imageDigest = detail::sha256Hex(image.bytes);
  if (imageDigest != image.string(kImageDigestKey))
    return failImage(error, image,
                     "its " + std::to_string(imageSize) +
                         " image bytes do not match their SHA-256 "
                         "('tessera.image.sha256')");

  // Intact: what remains are honest disagreements.
  if (image.string(kFormatKey) != std::to_string(kBundleFormat)) {
    error = "bundle '" + name + "' " + describe(image) +
            " has bundle format '" + std::string(image.string(kFormatKey)) +
            "'; this reader understands format " +
            std::to_string(kBundleFormat);
    return false;
  }
  uint64_t position;
  if (!parseCount(image.string(kImageIndexKey), position) ||
      !parseCount(image.string(kImageCountKey), count) || position >= count)
    return failImage(error, image,
                     "its position '" +
                         std::string(image.string(kImageIndexKey)) + "' of '" +
                         std::string(image.string(kImageCountKey)) +
                         "' images is not valid");
  if (position != index)
    return failImage(error, image,
                     "it says it is image " + std::to_string(position) +
                         " of its bundle: images were reordered, dropped or "
                         "come from another bundle");

  image.sha256 = std::move(imageDigest);
  std::vector<std::pair<std::string, std::string>> kept;
  for (auto &entry : image.strings)
    if (!isIntegrityKey(entry.first))
      kept.push_back(std::move(entry));
  image.strings = std::move(kept);
  return true;
}

bool BinaryParser::parse(uint64_t base, Image &image, uint64_t &size,
                         uint64_t &count, std::string &error) {
  uint64_t fileSize = data.size();
  uint64_t left = fileSize - base;
  const char *bin = data.data() + base;
  if (left < 4 || std::memcmp(bin, kMagic, 4) != 0) {
    std::ostringstream msg;
    msg << "bundle '" << name << "' is not a tessera bundle: ";
    if (index == 0)
      msg << "it does not start with the OffloadBinary magic 10 FF 10 AD";
    else
      msg << "image " << index << " at byte " << base
          << " does not start with the OffloadBinary magic 10 FF 10 AD";
    error = msg.str();
    return false;
  }
  if (left < kHeaderSize) {
    error = "bundle '" + name + "' is truncated: the header of image " +
            std::to_string(index) + " ends at byte " +
            std::to_string(base + kHeaderSize) + " but the file has " +
            std::to_string(fileSize) + " bytes";
    return false;
  }
  uint32_t version = get32(bin + 4);
  if (version != kOffloadBinaryVersion)
    return fail(error, "has OffloadBinary version " + std::to_string(version) +
                           "; this reader understands version " +
                           std::to_string(kOffloadBinaryVersion));
  size = get64(bin + 8);
  if (size < kHeaderSize + kEntrySize || size % kAlignment != 0)
    return fail(error, "declares an impossible size of " +
                           std::to_string(size) + " bytes");
  if (size > left) {
    // Report the end as an absolute position: it is what a user can check
    // with `ls -l`.
    std::string end = size > UINT64_MAX - base ? std::string("beyond 2^64")
                                               : std::to_string(base + size);
    error = "bundle '" + name + "' is truncated: image " +
            std::to_string(index) + " ends at byte " + end +
            " but the file has " + std::to_string(fileSize) + " bytes";
    return false;
  }
  uint64_t entryOffset = get64(bin + 16);
  uint64_t entrySize = get64(bin + 24);
  if (entrySize < kEntrySize || !inRange(entryOffset, entrySize, size))
    return fail(
        error, "has its entry at offset " + std::to_string(entryOffset) + " (" +
                   std::to_string(entrySize) + " bytes) outside the binary");
  const char *entry = bin + entryOffset;
  uint16_t imageKind = get16(entry);
  uint16_t offloadKind = get16(entry + 2);
  if (imageKind > static_cast<uint16_t>(ImageKind::SPIRV))
    return fail(error, "has unknown image kind " + std::to_string(imageKind));
  if (offloadKind >= (1u << 4))
    return fail(error,
                "has unknown offload kind " + std::to_string(offloadKind));
  image.imageKind = static_cast<ImageKind>(imageKind);
  image.offloadKind = static_cast<OffloadKind>(offloadKind);
  image.flags = get32(entry + 4);
  uint64_t stringOffset = get64(entry + 8);
  uint64_t numStrings = get64(entry + 16);
  uint64_t imageOffset = get64(entry + 24);
  uint64_t imageSize = get64(entry + 32);

  if (numStrings > size / kStringEntrySize ||
      !inRange(stringOffset, numStrings * kStringEntrySize, size))
    return fail(error, "has " + std::to_string(numStrings) +
                           " string entries at offset " +
                           std::to_string(stringOffset) +
                           " that do not fit in its " + std::to_string(size) +
                           " bytes");
  if (!inRange(imageOffset, imageSize, size))
    return fail(error, "has image bytes [" + std::to_string(imageOffset) +
                           ", +" + std::to_string(imageSize) +
                           ") outside its " + std::to_string(size) + " bytes");

  image.strings.clear();
  std::vector<uint64_t> valueOffsets;
  for (uint64_t i = 0; i < numStrings; ++i) {
    const char *pair = bin + stringOffset + i * kStringEntrySize;
    std::string key, value;
    if (!readString(bin, size, get64(pair), key, error, "key", i) ||
        !readString(bin, size, get64(pair + 8), value, error, "value", i))
      return false;
    image.strings.emplace_back(std::move(key), std::move(value));
    valueOffsets.push_back(get64(pair + 8));
  }
  image.bytes.assign(bin + imageOffset, imageSize);
  return verify(std::string_view(bin, size), imageOffset, imageSize,
                valueOffsets, image, count, error);
}

} // namespace

bool looksLikeBundle(std::string_view data) {
  return data.size() >= 4 && std::memcmp(data.data(), kMagic, 4) == 0;
}

bool readBundle(std::string_view data, const std::string &name, Bundle &out,
                std::string &error) {
  out.images.clear();
  if (data.empty()) {
    error = "bundle '" + name + "' is empty";
    return false;
  }
  uint64_t offset = 0;
  unsigned index = 0;
  uint64_t count = 0;
  while (offset < data.size()) {
    Image image;
    uint64_t size = 0, says = 0;
    if (!BinaryParser(data, name, index)
             .parse(offset, image, size, says, error)) {
      out.images.clear();
      return false;
    }
    // Every image records the bundle's image count; they must agree.
    if (index > 0 && says != count) {
      error = "bundle '" + name + "' is corrupt: image " +
              std::to_string(index) + " says the bundle holds " +
              std::to_string(says) + " images but image 0 says " +
              std::to_string(count);
      out.images.clear();
      return false;
    }
    count = says;
    out.images.push_back(std::move(image));
    offset += size;
    ++index;
  }
  if (out.images.size() != count) {
    error = "bundle '" + name + "' is truncated: it ends after image " +
            std::to_string(out.images.size() - 1) + " but its images say it " +
            "holds " + std::to_string(count);
    out.images.clear();
    return false;
  }
  return true;
}

bool readBundleFile(const std::string &path, Bundle &out, std::string &error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = "cannot open bundle '" + path + "'";
    return false;
  }
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad()) {
    error = "cannot read bundle '" + path + "'";
    return false;
  }
  return readBundle(contents.str(), path, out, error);
}

} // namespace tessera::bundle
