//===- Sha256Test.cpp - SHA-256 against the FIPS 180-4 test vectors ------===//

#include "tessera/bundle/Sha256.h"

#include <gtest/gtest.h>

#include <string>

using tessera::Sha256;

namespace {

std::string hexOf(const std::string &message) {
  return Sha256::hex(Sha256::hash(message));
}

TEST(Sha256, EmptyMessage) {
  EXPECT_EQ(hexOf(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, Abc) {
  EXPECT_EQ(hexOf("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, TwoBlockMessage448Bits) {
  EXPECT_EQ(hexOf("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, MillionAs) {
  const std::string expected =
      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
  EXPECT_EQ(hexOf(std::string(1000000, 'a')), expected);
  // The same fed in uneven pieces exercises the block buffering.
  Sha256 h;
  std::string chunk(997, 'a');
  size_t left = 1000000;
  for (size_t step = 1; left; step = step * 7 % 997 + 1) {
    size_t n = std::min(step, left);
    h.update(chunk.data(), n);
    left -= n;
  }
  EXPECT_EQ(Sha256::hex(h.final()), expected);
}

TEST(Sha256, PaddingBoundaries) {
  // Lengths around the 55/56/64-byte padding edges, each hashed whole and
  // byte by byte, must agree.
  for (size_t len : {55u, 56u, 57u, 63u, 64u, 65u, 119u, 120u, 128u}) {
    std::string m(len, 'x');
    Sha256 h;
    for (char c : m)
      h.update(&c, 1);
    EXPECT_EQ(Sha256::hex(h.final()), hexOf(m)) << len;
  }
  // 896-bit vector of FIPS 180-4 examples (two blocks after padding).
  EXPECT_EQ(hexOf("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                  "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

// Regression (bundle fuzzer): hashing an empty string_view, whose data() is
// null, passed null to memcpy -- undefined behaviour UBSan reports in the
// sanitize preset.
TEST(Sha256, EmptyUpdatesFromNull) {
  Sha256 h;
  h.update(nullptr, 0);
  h.update(std::string_view());
  h.update("abc", 3);
  h.update(nullptr, 0);
  EXPECT_EQ(Sha256::hex(h.final()), hexOf("abc"));
  EXPECT_EQ(Sha256::hex(Sha256::hash(std::string_view())), hexOf(""));
}

} // namespace
