//===- TestFiles.h - locating and reading test data files ------*- C++ -*-===//
//
// Tests find their data beside their own binary, so a build tree copied to
// another machine (the GPU machine) still finds it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TESTS_UNIT_COMMON_TESTFILES_H
#define TESSERA_TESTS_UNIT_COMMON_TESTFILES_H

#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

namespace tessera::test {

/// The folder holding the running test binary.
inline std::string exeDir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0)
    return ".";
  std::string path(buf, size_t(n));
  return path.substr(0, path.rfind('/'));
}

/// The bytes of a file (empty when it cannot be read).
inline std::vector<char> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

} // namespace tessera::test

#endif
