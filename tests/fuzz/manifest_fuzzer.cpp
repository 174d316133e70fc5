//===- manifest_fuzzer.cpp - libFuzzer target for plugin manifests --------===//
//
// Plugin manifests are TOML files found on TESSERA_PLUGIN_PATH; both the
// runtime and the compiler read them (plugins/lib/Manifest.cpp). Arbitrary
// text must give a manifest or a message naming the file, never a crash.
//
//===----------------------------------------------------------------------===//

#include "tessera/plugin/Manifest.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  tessera::plugin::Manifest manifest;
  std::string error;
  if (tessera::plugin::parseManifest(text, "/fuzz/plugins/fuzz.toml", manifest,
                                     error)) {
    // A manifest that parses names a runtime library in its folder.
    if (manifest.name.empty() || manifest.runtimeLibrary.empty()) {
      std::fprintf(stderr, "accepted a manifest without name or library\n");
      std::abort();
    }
  } else if (error.find("fuzz.toml") == std::string::npos) {
    std::fprintf(stderr, "message does not name the file: %s\n", error.c_str());
    std::abort();
  }
  return 0;
}
