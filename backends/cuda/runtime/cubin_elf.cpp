//===- cubin_elf.cpp - facts read from a cubin's ELF without the driver ---===//

#include "cubin_elf.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace tessera::cuda {

namespace {
/// Reads `n` little-endian bytes at `off`; 0 past the end.
struct Reader {
  const unsigned char *elf;
  size_t size;
  uint64_t operator()(uint64_t off, size_t n) const {
    uint64_t v = 0;
    if (off <= size && n <= size - off)
      std::memcpy(&v, elf + off, n); // little-endian host and ELF
    return v;
  }
};
} // namespace

void cubinParamCounts(const unsigned char *elf, size_t size,
                      std::map<std::string, long> &counts) {
  Reader rd{elf, size};
  if (size < 64 || elf[4] != 2 /*ELFCLASS64*/)
    return;
  uint64_t shoff = rd(0x28, 8), shentsize = rd(0x3A, 2), shnum = rd(0x3C, 2),
           shstrndx = rd(0x3E, 2);
  if (shentsize < 64 || shoff + shnum * shentsize > size || shstrndx >= shnum)
    return;
  uint64_t strOff = rd(shoff + shstrndx * shentsize + 0x18, 8);
  std::map<std::string, long> found;
  for (uint64_t i = 0; i < shnum; ++i) {
    uint64_t sh = shoff + i * shentsize;
    uint64_t nameOff = strOff + rd(sh, 4);
    if (nameOff >= size)
      return;
    const char *secName = reinterpret_cast<const char *>(elf + nameOff);
    size_t maxLen = size - nameOff;
    if (strnlen(secName, maxLen) == maxLen)
      return;
    if (std::strncmp(secName, ".nv.info.", 9) != 0)
      continue;
    uint64_t off = rd(sh + 0x18, 8), len = rd(sh + 0x20, 8);
    if (off + len > size)
      return;
    std::vector<uint32_t> ordinals;
    for (uint64_t p = off; p + 4 <= off + len;) {
      unsigned fmt = elf[p], attr = elf[p + 1];
      uint64_t next = p + 4;
      if (fmt == 0x04) // EIFMT_SVAL: u16 size, then the value
        next += rd(p + 2, 2);
      else if (fmt < 0x01 || fmt > 0x03)
        return; // unknown format: give up on the whole image
      if (next > off + len)
        return;
      if (fmt == 0x04 && attr == 0x17 /*EIATTR_KPARAM_INFO*/ &&
          next - p >= 10) {
        uint32_t ordinal = uint32_t(rd(p + 4 + 4, 2));
        if (std::find(ordinals.begin(), ordinals.end(), ordinal) ==
            ordinals.end())
          ordinals.push_back(ordinal);
      }
      p = next;
    }
    found[secName + 9] = long(ordinals.size());
  }
  counts = std::move(found);
}

bool cubinDefinedSymbols(const unsigned char *elf, size_t size,
                         const std::string &prefix,
                         std::set<std::string> &names) {
  Reader rd{elf, size};
  names.clear();
  if (size < 64 ||
      std::memcmp(elf,
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      elf[4] != 2 /*ELFCLASS64*/ || elf[5] != 1 /*little-endian*/)
    return false;
  uint64_t shoff = rd(0x28, 8), shentsize = rd(0x3A, 2), shnum = rd(0x3C, 2);
  if (shentsize < 64 || shoff > size || shnum * shentsize > size - shoff)
    return false;
  bool found = false;
  for (uint64_t i = 0; i < shnum; ++i) {
    uint64_t sh = shoff + i * shentsize;
    if (rd(sh + 0x04, 4) != 2 /*SHT_SYMTAB*/)
      continue;
    uint64_t off = rd(sh + 0x18, 8), len = rd(sh + 0x20, 8),
             link = rd(sh + 0x28, 4), entsize = rd(sh + 0x38, 8);
    if (entsize < 24 || off > size || len > size - off || link >= shnum)
      return false;
    uint64_t strSh = shoff + link * shentsize;
    uint64_t strOff = rd(strSh + 0x18, 8), strLen = rd(strSh + 0x20, 8);
    if (strOff > size || strLen > size - strOff)
      return false;
    for (uint64_t e = off; e + entsize <= off + len; e += entsize) {
      uint64_t nameOff = rd(e, 4), shndx = rd(e + 6, 2);
      if (shndx == 0 /*SHN_UNDEF*/ || nameOff >= strLen)
        continue;
      const char *name = reinterpret_cast<const char *>(elf + strOff + nameOff);
      size_t n = strnlen(name, size_t(strLen - nameOff));
      if (n == strLen - nameOff)
        return false; // not NUL-terminated inside the string table
      if (n >= prefix.size() &&
          std::memcmp(name, prefix.data(), prefix.size()) == 0)
        names.emplace(name, n);
    }
    found = true;
  }
  if (!found)
    names.clear();
  return found;
}

} // namespace tessera::cuda
