//===- replay_main.cpp - run a fuzz target over files, without libFuzzer --===//
//
//   tessera-<name>-replay <file or directory>...
//
// Calls the target's LLVMFuzzerTestOneInput once per file (every regular
// file of a directory, in name order), as libFuzzer does for a corpus. The
// ctest `fuzz.<name>.replay` runs it over the committed seeds and regression
// inputs in every build, so an input that once crashed a parser keeps being
// checked, under ASan and UBSan in the sanitize preset, without libFuzzer.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    fs::path path = argv[i];
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<fs::path> inside;
      for (const auto &entry : fs::directory_iterator(path, ec))
        if (entry.is_regular_file())
          inside.push_back(entry.path());
      std::sort(inside.begin(), inside.end());
      files.insert(files.end(), inside.begin(), inside.end());
    } else if (fs::is_regular_file(path, ec)) {
      files.push_back(path);
    } else {
      std::fprintf(stderr, "replay: no file or directory '%s'\n", argv[i]);
      return 2;
    }
  }
  for (const fs::path &file : files) {
    std::ifstream in(file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "replay: cannot read '%s'\n", file.c_str());
      return 2;
    }
    // Report the input before running it: a crash names its input.
    std::fprintf(stderr, "replay: %s\n", file.c_str());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                           bytes.size());
  }
  std::printf("replayed %zu inputs\n", files.size());
  return files.empty() ? 1 : 0;
}
