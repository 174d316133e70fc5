//===- tessera/bundle/Sha256.h - SHA-256 (FIPS 180-4) -----------*- C++ -*-===//
//
// The one SHA-256 of tessera. Bundles carry digests of their images and
// metadata that the runtime checks at load, and the compile cache names and
// checks its entries with it. Both sides must work without LLVM (the runtime
// never links it; the `tessera` tool answers cached compiles without loading
// it), so the hash lives with the bundle format rather than coming from
// llvm::SHA256.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BUNDLE_SHA256_H
#define TESSERA_BUNDLE_SHA256_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tessera {

class Sha256 {
public:
  using Digest = std::array<uint8_t, 32>;

  Sha256();
  void update(const void *data, size_t size);
  void update(std::string_view data) { update(data.data(), data.size()); }
  /// The digest of everything updated so far. The object is spent after.
  Digest final();

  static Digest hash(std::string_view data);
  /// 64 lowercase hex digits.
  static std::string hex(const Digest &digest);

private:
  void compress(const uint8_t *block);

  uint32_t state[8];
  uint8_t buffer[64];
  size_t buffered = 0;
  uint64_t totalBytes = 0;
};

} // namespace tessera

#endif
