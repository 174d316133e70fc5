//===- Integrity.cpp - the digests bundle images carry --------------------===//

#include "Integrity.h"

#include "tessera/bundle/Bundle.h"
#include "tessera/bundle/Sha256.h"

#include <algorithm>

namespace tessera::bundle {

bool isIntegrityKey(std::string_view key) {
  for (const char *k : {kFormatKey, kImageIndexKey, kImageCountKey,
                        kImageDigestKey, kKernelsDigestKey, kBinaryDigestKey})
    if (key == k)
      return true;
  return false;
}

namespace detail {

std::string sha256Hex(std::string_view data) {
  return Sha256::hex(Sha256::hash(data));
}

bool binaryDigest(std::string_view binary, uint64_t imageOffset,
                  uint64_t imageSize, uint64_t valueAt, std::string &hex) {
  uint64_t size = binary.size();
  uint64_t imageEnd = imageOffset + imageSize;
  if (valueAt > size || kDigestChars > size - valueAt)
    return false;
  uint64_t valueEnd = valueAt + kDigestChars;
  // The value must not overlap the image bytes, which this digest skips
  // (an empty image overlaps nothing).
  if (imageSize != 0 && valueAt < imageEnd && imageOffset < valueEnd)
    return false;
  // Hash [0, size) minus the image, with the value's bytes as '0': feed the
  // pieces between the cut points in order.
  static const std::string zeros(kDigestChars, '0');
  Sha256 h;
  auto feed = [&](uint64_t from, uint64_t to) {
    // The part of the value inside [from, to), if any, is [cut, resume).
    uint64_t cut = std::max(from, valueAt), resume = std::min(to, valueEnd);
    if (cut >= resume) {
      h.update(binary.data() + from, to - from);
      return;
    }
    h.update(binary.data() + from, cut - from);
    h.update(zeros.data(), resume - cut);
    h.update(binary.data() + resume, to - resume);
  };
  feed(0, imageOffset);
  feed(imageEnd, size);
  hex = Sha256::hex(h.final());
  return true;
}

} // namespace detail
} // namespace tessera::bundle
