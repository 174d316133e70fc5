//===- target_fuzzer.cpp - libFuzzer target for target descriptions -------===//
//
// A TargetDescription is read from TOML (core/target): shipped with each
// backend, and written by vendors of out-of-tree plugins. Arbitrary text must
// give a description or a message naming the file, never a crash.
//
//===----------------------------------------------------------------------===//

#include "tessera/target/TargetDescription.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  std::string error;
  auto description =
      tessera::target::parseTargetDescription(text, "fuzz.toml", &error);
  if (description) {
    // The lookups passes make on a description.
    for (const auto &atom : description->mmaAtoms)
      description->findMmaAtom(atom.name);
  } else if (error.find("fuzz.toml") == std::string::npos) {
    std::fprintf(stderr, "message does not name the file: %s\n", error.c_str());
    std::abort();
  }
  return 0;
}
