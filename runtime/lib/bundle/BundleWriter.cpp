//===- BundleWriter.cpp - write OffloadBinary images ----------------------===//
//
// Produces byte-for-byte what llvm::object::OffloadBinary::write produces for
// the same image, except that the string table is not deduplicated (LLVM's
// readers only follow offsets, so either is valid). The integrity strings
// (Bundle.h) follow the image's own strings; tessera.sha256 comes last and
// is filled in once everything else is in place.
//
//===----------------------------------------------------------------------===//

#include "Integrity.h"

#include "tessera/bundle/Bundle.h"

#include <cstdio>
#include <fstream>
#include <unistd.h>

namespace tessera::bundle {
namespace {

constexpr uint64_t kHeaderSize = 32;
constexpr uint64_t kEntrySize = 40;
constexpr uint64_t kStringEntrySize = 16;

uint64_t alignUp(uint64_t value) {
  return (value + kAlignment - 1) / kAlignment * kAlignment;
}

void put16(std::string &out, uint16_t v) {
  for (int i = 0; i < 2; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put32(std::string &out, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put64(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

} // namespace

std::string writeOffloadBinary(const Image &image, unsigned index,
                               unsigned count) {
  std::vector<std::pair<std::string, std::string>> strings;
  for (const auto &entry : image.strings)
    if (!isIntegrityKey(entry.first))
      strings.push_back(entry);
  strings.emplace_back(kFormatKey, std::to_string(kBundleFormat));
  strings.emplace_back(kImageIndexKey, std::to_string(index));
  strings.emplace_back(kImageCountKey, std::to_string(count));
  strings.emplace_back(kImageDigestKey, detail::sha256Hex(image.bytes));
  strings.emplace_back(kKernelsDigestKey,
                       detail::sha256Hex(image.string(kKernelsKey)));
  // A placeholder of the right length; the digest is computed over the
  // finished binary with these bytes as '0' and then written over them.
  strings.emplace_back(kBinaryDigestKey,
                       std::string(detail::kDigestChars, '0'));

  // String table: like LLVM's ELF string table it starts with an empty
  // string, so offset 0 of the table is "".
  std::string table(1, '\0');
  std::vector<std::pair<uint64_t, uint64_t>> offsets;
  for (const auto &[key, value] : strings) {
    uint64_t keyOffset = table.size();
    table.append(key).push_back('\0');
    uint64_t valueOffset = table.size();
    table.append(value).push_back('\0');
    offsets.emplace_back(keyOffset, valueOffset);
  }

  uint64_t stringEntries = kStringEntrySize * strings.size();
  uint64_t tableStart = kHeaderSize + kEntrySize + stringEntries;
  uint64_t imageOffset = alignUp(tableStart + table.size());
  uint64_t size = alignUp(imageOffset + image.bytes.size());

  std::string out;
  out.reserve(size);
  out.append("\x10\xFF\x10\xAD", 4);
  put32(out, kOffloadBinaryVersion);
  put64(out, size);
  put64(out, kHeaderSize); // entry offset
  put64(out, kEntrySize);  // entry size

  put16(out, static_cast<uint16_t>(image.imageKind));
  put16(out, static_cast<uint16_t>(image.offloadKind));
  put32(out, image.flags);
  put64(out, kHeaderSize + kEntrySize); // string offset
  put64(out, strings.size());
  put64(out, imageOffset);
  put64(out, image.bytes.size());

  for (const auto &[keyOffset, valueOffset] : offsets) {
    put64(out, tableStart + keyOffset);
    put64(out, tableStart + valueOffset);
  }
  out.append(table);
  out.resize(imageOffset, '\0');
  out.append(image.bytes);
  out.resize(size, '\0');

  uint64_t digestAt = tableStart + offsets.back().second;
  std::string digest;
  detail::binaryDigest(out, imageOffset, image.bytes.size(), digestAt, digest);
  out.replace(digestAt, detail::kDigestChars, digest);
  return out;
}

std::string writeBundle(const Bundle &bundle) {
  std::string out;
  unsigned count = static_cast<unsigned>(bundle.images.size());
  for (unsigned i = 0; i < count; ++i)
    out.append(writeOffloadBinary(bundle.images[i], i, count));
  return out;
}

bool writeBundleFile(const Bundle &bundle, const std::string &path,
                     std::string &error) {
  std::string data = writeBundle(bundle);
  // A reader must never see a half-written bundle: write a sibling temp file
  // and rename it over the target, which is atomic on POSIX file systems.
  std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream file(temp, std::ios::binary | std::ios::trunc);
    if (!file) {
      error = "cannot create '" + temp + "'";
      return false;
    }
    file.write(data.data(), static_cast<std::streamsize>(data.size()));
    file.flush();
    if (!file) {
      error = "cannot write '" + temp + "'";
      std::remove(temp.c_str());
      return false;
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    error = "cannot rename '" + temp + "' to '" + path + "'";
    std::remove(temp.c_str());
    return false;
  }
  return true;
}

} // namespace tessera::bundle
