//===- BundleReader.cpp - read and validate OffloadBinary images ----------===//
//
// The reader trusts nothing in the file: every offset and size is checked
// against the binary it belongs to before it is followed, with overflow-safe
// arithmetic, so a corrupt or hostile bundle yields a message, not a crash.
//
//===----------------------------------------------------------------------===//

#include "tessera/bundle/Bundle.h"

#include <cstring>
#include <fstream>
#include <sstream>

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

/// Reads one binary starting at \p base (its bytes are data[base, base+size)).
class BinaryParser {
public:
  BinaryParser(std::string_view data, const std::string &name, unsigned index)
      : data(data), name(name), index(index) {}

  bool parse(uint64_t base, Image &image, uint64_t &size, std::string &error);

private:
  bool fail(std::string &error, const std::string &what) {
    error = "bundle '" + name + "' is corrupt: image " + std::to_string(index) +
            " " + what;
    return false;
  }
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

bool BinaryParser::parse(uint64_t base, Image &image, uint64_t &size,
                         std::string &error) {
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
  for (uint64_t i = 0; i < numStrings; ++i) {
    const char *pair = bin + stringOffset + i * kStringEntrySize;
    std::string key, value;
    if (!readString(bin, size, get64(pair), key, error, "key", i) ||
        !readString(bin, size, get64(pair + 8), value, error, "value", i))
      return false;
    image.strings.emplace_back(std::move(key), std::move(value));
  }
  image.bytes.assign(bin + imageOffset, imageSize);
  return true;
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
  while (offset < data.size()) {
    Image image;
    uint64_t size = 0;
    if (!BinaryParser(data, name, index).parse(offset, image, size, error)) {
      out.images.clear();
      return false;
    }
    out.images.push_back(std::move(image));
    offset += size;
    ++index;
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
