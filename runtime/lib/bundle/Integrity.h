//===- Integrity.h - the digests bundle images carry ------------*- C++ -*-===//
//
// Shared by the writer, which records the digests, and the reader, which
// checks them, so both compute exactly the same bytes. Private to
// tessera_bundle.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BUNDLE_INTEGRITY_H
#define TESSERA_BUNDLE_INTEGRITY_H

#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::bundle::detail {

/// Characters in a hex SHA-256.
inline constexpr uint64_t kDigestChars = 64;

/// 64 lowercase hex digits of the SHA-256 of \p data.
std::string sha256Hex(std::string_view data);

/// The value of tessera.sha256 for one OffloadBinary \p binary: the SHA-256
/// of its bytes outside [imageOffset, imageOffset + imageSize) (those have
/// their own digest), with the 64 bytes at \p valueAt, where the value itself
/// is stored, read as '0'. The caller has checked that the image range lies
/// in the binary. Returns false when [valueAt, valueAt + 64) is not inside
/// the binary or overlaps the image bytes.
bool binaryDigest(std::string_view binary, uint64_t imageOffset,
                  uint64_t imageSize, uint64_t valueAt, std::string &hex);

} // namespace tessera::bundle::detail

#endif // TESSERA_BUNDLE_INTEGRITY_H
