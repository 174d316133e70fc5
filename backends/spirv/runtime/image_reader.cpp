//===- image_reader.cpp - parsing the spirv backend's module image -------===//

#include "image_reader.h"

#include "tessera/spirv/image.h"

#include <algorithm>
#include <array>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

// The record's fields are read by position below.
static_assert(TESSERA_SPIRV_RECORD_FIXED_WORDS == 11,
              "image.h changed the kernel record: update readSpirvImage");

namespace tessera::spirv {

namespace {

constexpr uint32_t kSpirvMagic = 0x07230203u;
constexpr uint32_t kSpirvHeaderWords = 5;
// SPIR-V opcodes and enumerants the preamble walk needs.
constexpr uint32_t kOpEntryPoint = 15;
constexpr uint32_t kOpExecutionMode = 16;
constexpr uint32_t kOpFunction = 54;
constexpr uint32_t kExecutionModelGLCompute = 5;
constexpr uint32_t kExecutionModeLocalSize = 17;

std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char *fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  return buf;
}

/// Little-endian words of a byte buffer of any alignment.
class Words {
public:
  Words(const unsigned char *bytes, uint64_t count)
      : bytes(bytes), count(count) {}
  uint64_t size() const { return count; }
  uint32_t operator[](uint64_t i) const {
    const unsigned char *b = bytes + 4 * i;
    return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 |
           uint32_t(b[3]) << 24;
  }

private:
  const unsigned char *bytes;
  uint64_t count;
};

uint64_t wordsFor(uint64_t bytes) { return (bytes + 3) / 4; }

struct EntryPoint {
  uint32_t model = 0;
  uint32_t function = 0;
};

/// Reads the entry points and LocalSize modes of a SPIR-V module, which sit
/// before its first function.
bool readPreamble(const std::vector<uint32_t> &spirv,
                  std::multimap<std::string, EntryPoint> &entries,
                  std::map<uint32_t, std::array<uint32_t, 3>> &localSizes,
                  std::string &error) {
  for (size_t at = kSpirvHeaderWords; at < spirv.size();) {
    uint32_t wordCount = spirv[at] >> 16, opcode = spirv[at] & 0xffffu;
    if (wordCount == 0) {
      error = format("the SPIR-V module is malformed: the instruction at "
                     "word %zu has length 0",
                     at);
      return false;
    }
    if (wordCount > spirv.size() - at) {
      error = format("the SPIR-V module is malformed: the instruction at "
                     "word %zu (%u words) runs past its end (%zu words)",
                     at, wordCount, spirv.size());
      return false;
    }
    if (opcode == kOpFunction)
      break;
    if (opcode == kOpEntryPoint && wordCount >= 4) {
      // The name is a NUL-terminated literal from word 3 on, its first
      // character in the lowest byte of a word: the bytes of the words as
      // they lie in memory on the little-endian hosts the plugin runs on.
      const char *name = reinterpret_cast<const char *>(&spirv[at + 3]);
      size_t maxLen = 4 * size_t(wordCount - 3);
      size_t len = strnlen(name, maxLen);
      if (len == maxLen) {
        error = format("the SPIR-V module is malformed: the OpEntryPoint at "
                       "word %zu has an unterminated name",
                       at);
        return false;
      }
      entries.emplace(std::string(name, len),
                      EntryPoint{spirv[at + 1], spirv[at + 2]});
    }
    if (opcode == kOpExecutionMode && wordCount >= 6 &&
        spirv[at + 2] == kExecutionModeLocalSize)
      localSizes[spirv[at + 1]] = {spirv[at + 3], spirv[at + 4], spirv[at + 5]};
    at += wordCount;
  }
  return true;
}

} // namespace

uint32_t KernelRecord::bufferSlots() const {
  return uint32_t(std::count(slotKinds.begin(), slotKinds.end(),
                             uint8_t(TESSERA_SPIRV_SLOT_BUFFER)));
}

bool readSpirvImage(const void *data, uint64_t size, SpirvImage &image,
                    std::string &error) {
  image = SpirvImage();
  if (!data || size < 4ull * TESSERA_SPIRV_IMAGE_HEADER_WORDS) {
    error = format("the image is %llu bytes; its header alone takes %u",
                   (unsigned long long)(data ? size : 0),
                   4 * TESSERA_SPIRV_IMAGE_HEADER_WORDS);
    return false;
  }
  Words w(static_cast<const unsigned char *>(data), size / 4);
  if (w[0] != TESSERA_SPIRV_IMAGE_MAGIC) {
    error = format("not a tessera SPIR-V image: magic 0x%08x, expected "
                   "0x%08x (\"TVK1\")",
                   w[0], TESSERA_SPIRV_IMAGE_MAGIC);
    return false;
  }
  if (w[1] != TESSERA_SPIRV_IMAGE_VERSION) {
    error = format("the image has format version %u; this plugin reads "
                   "version %u",
                   w[1], TESSERA_SPIRV_IMAGE_VERSION);
    return false;
  }
  uint32_t kernelCount = w[2];
  uint64_t spirvOffset = w[3], spirvWords = w[4];

  // The module first, so that records can be bounded by where it starts.
  if (spirvOffset + spirvWords > w.size()) {
    error = format("the SPIR-V module (words %llu to %llu) runs past the end "
                   "of the image (%llu bytes, %llu whole words)",
                   (unsigned long long)spirvOffset,
                   (unsigned long long)(spirvOffset + spirvWords),
                   (unsigned long long)size, (unsigned long long)w.size());
    return false;
  }
  if (spirvWords < kSpirvHeaderWords) {
    error = format("the SPIR-V module is %llu words; its header alone takes "
                   "%u",
                   (unsigned long long)spirvWords, kSpirvHeaderWords);
    return false;
  }
  if (spirvOffset < TESSERA_SPIRV_IMAGE_HEADER_WORDS) {
    error = format("the SPIR-V module starts at word %llu, inside the image "
                   "header",
                   (unsigned long long)spirvOffset);
    return false;
  }
  if (w[spirvOffset] != kSpirvMagic) {
    error =
        format("no SPIR-V module at word %llu: found 0x%08x where the "
               "SPIR-V magic 0x%08x belongs",
               (unsigned long long)spirvOffset, w[spirvOffset], kSpirvMagic);
    return false;
  }

  // Records lie between the header and the module.
  uint64_t at = TESSERA_SPIRV_IMAGE_HEADER_WORDS;
  std::set<std::string> names;
  for (uint32_t k = 0; k < kernelCount; ++k) {
    if (at + TESSERA_SPIRV_RECORD_FIXED_WORDS > spirvOffset) {
      error = format("kernel record %u of %u (at word %llu) does not fit "
                     "before the SPIR-V module at word %llu",
                     k, kernelCount, (unsigned long long)at,
                     (unsigned long long)spirvOffset);
      return false;
    }
    uint64_t recordWords = w[at];
    if (recordWords < TESSERA_SPIRV_RECORD_FIXED_WORDS) {
      error = format("kernel record %u (at word %llu) says it is %llu words; "
                     "a record takes at least %u",
                     k, (unsigned long long)at, (unsigned long long)recordWords,
                     TESSERA_SPIRV_RECORD_FIXED_WORDS);
      return false;
    }
    if (at + recordWords > spirvOffset) {
      error = format("kernel record %u (words %llu to %llu) overruns the "
                     "SPIR-V module at word %llu",
                     k, (unsigned long long)at,
                     (unsigned long long)(at + recordWords),
                     (unsigned long long)spirvOffset);
      return false;
    }
    KernelRecord r;
    r.localSize[0] = w[at + 1];
    r.localSize[1] = w[at + 2];
    r.localSize[2] = w[at + 3];
    r.subgroupSize = w[at + 4];
    r.sharedBytes = w[at + 5];
    uint32_t numSlots = w[at + 6];
    r.pushBytes = w[at + 7];
    uint32_t nameBytes = w[at + 8];
    r.scratchBytes = w[at + 9];
    r.scratchBindings = w[at + 10];
    uint64_t needed = TESSERA_SPIRV_RECORD_FIXED_WORDS + wordsFor(nameBytes) +
                      wordsFor(numSlots);
    if (needed > recordWords) {
      error = format("kernel record %u (%llu words) is too short for its "
                     "name (%u bytes) and slot kinds (%u): they need %llu "
                     "words",
                     k, (unsigned long long)recordWords, nameBytes, numSlots,
                     (unsigned long long)needed);
      return false;
    }
    if (nameBytes == 0) {
      error = format("kernel record %u has an empty name", k);
      return false;
    }
    const char *nameStart = static_cast<const char *>(data) +
                            4 * (at + TESSERA_SPIRV_RECORD_FIXED_WORDS);
    r.name.assign(nameStart, nameBytes);
    if (r.name.find('\0') != std::string::npos) {
      error = format("kernel record %u has a name with a NUL byte inside "
                     "its %u bytes",
                     k, nameBytes);
      return false;
    }
    if (!names.insert(r.name).second) {
      error = "two kernel records are named '" + r.name + "'";
      return false;
    }
    for (int d = 0; d < 3; ++d)
      if (r.localSize[d] == 0) {
        error = format("kernel '%s' has local size %u x %u x %u; every "
                       "dimension must be at least 1",
                       r.name.c_str(), r.localSize[0], r.localSize[1],
                       r.localSize[2]);
        return false;
      }
    if (uint64_t(r.pushBytes) != 4ull * numSlots) {
      error = format("kernel '%s' has %u slots but %u push-constant bytes; "
                     "the ABI makes them 4 per slot (%llu)",
                     r.name.c_str(), numSlots, r.pushBytes, 4ull * numSlots);
      return false;
    }
    const auto *kinds = reinterpret_cast<const unsigned char *>(nameStart) +
                        4 * wordsFor(nameBytes);
    r.slotKinds.assign(kinds, kinds + numSlots);
    for (uint32_t i = 0; i < numSlots; ++i)
      if (r.slotKinds[i] != TESSERA_SPIRV_SLOT_VALUE &&
          r.slotKinds[i] != TESSERA_SPIRV_SLOT_BUFFER) {
        error = format("kernel '%s': slot %u has kind %u; a slot is a value "
                       "(%u) or a buffer (%u)",
                       r.name.c_str(), i, unsigned(r.slotKinds[i]),
                       TESSERA_SPIRV_SLOT_VALUE, TESSERA_SPIRV_SLOT_BUFFER);
        return false;
      }
    image.kernels.push_back(std::move(r));
    at += recordWords;
  }

  image.spirv.resize(size_t(spirvWords));
  for (uint64_t i = 0; i < spirvWords; ++i)
    image.spirv[size_t(i)] = w[spirvOffset + i];

  std::multimap<std::string, EntryPoint> entries;
  std::map<uint32_t, std::array<uint32_t, 3>> localSizes;
  if (!readPreamble(image.spirv, entries, localSizes, error))
    return false;
  for (const KernelRecord &r : image.kernels) {
    const EntryPoint *compute = nullptr;
    auto [first, last] = entries.equal_range(r.name);
    for (auto it = first; it != last; ++it)
      if (it->second.model == kExecutionModelGLCompute)
        compute = &it->second;
    if (!compute) {
      std::string present;
      for (const auto &[name, entry] : entries)
        if (entry.model == kExecutionModelGLCompute)
          present += (present.empty() ? "" : ", ") + name;
      error = "kernel '" + r.name +
              "' has no GLCompute entry point in the SPIR-V module (its "
              "compute entry points: " +
              (present.empty() ? "none" : present) + ")";
      return false;
    }
    // A module may give the size through LocalSizeId (specialization
    // constants) instead; then there is nothing literal to compare.
    auto size = localSizes.find(compute->function);
    if (size != localSizes.end() &&
        !std::equal(size->second.begin(), size->second.end(), r.localSize)) {
      error =
          format("kernel '%s': the record says local size %u x %u x %u "
                 "but the SPIR-V entry point declares %u x %u x %u",
                 r.name.c_str(), r.localSize[0], r.localSize[1], r.localSize[2],
                 size->second[0], size->second[1], size->second[2]);
      return false;
    }
  }
  return true;
}

} // namespace tessera::spirv
