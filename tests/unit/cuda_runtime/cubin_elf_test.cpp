//===- cubin_elf_test.cpp - the cuda plugin's cubin ELF reader ------------===//
//
// Runs everywhere (no GPU): reads the sm_90a cubin nvcc built next to this
// binary. kernel_get asks cuModuleGetGlobal for `tessera_tma_<kernel>` only
// when cubinDefinedSymbols lists it, so these kernels (no descriptor) load
// without the probe that compute-sanitizer reports as CUDA_ERROR_NOT_FOUND.
//
//===----------------------------------------------------------------------===//

#include "cubin_elf.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

using namespace tessera::cuda;

namespace {

std::vector<unsigned char> testCubin() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  std::string dir = n > 0 ? std::string(buf, size_t(n)) : "./x";
  dir = dir.substr(0, dir.rfind('/'));
  std::ifstream in(dir + "/cuda_test_kernels.sm_90a.cubin", std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), {});
}

#ifdef TESSERA_TEST_HAVE_KERNELS
TEST(CubinElf, TensorMapDescriptorsFromTheSymbolTable) {
  std::vector<unsigned char> cubin = testCubin();
  ASSERT_GT(cubin.size(), 64u);
  std::set<std::string> names;
  ASSERT_TRUE(
      cubinDefinedSymbols(cubin.data(), cubin.size(), "tessera_tma_", names));
  EXPECT_EQ(names, std::set<std::string>{"tessera_tma_no_such_kernel"});
  EXPECT_EQ(names.count("tessera_tma_tessera_kernel_vadd"), 0u);

  std::set<std::string> kernels;
  ASSERT_TRUE(cubinDefinedSymbols(cubin.data(), cubin.size(), "tessera_kernel_",
                                  kernels));
  EXPECT_EQ(kernels.count("tessera_kernel_vadd"), 1u);
  EXPECT_EQ(kernels.count("tessera_kernel_reverse_chunks"), 1u);
}

TEST(CubinElf, ParameterCounts) {
  std::vector<unsigned char> cubin = testCubin();
  std::map<std::string, long> counts;
  cubinParamCounts(cubin.data(), cubin.size(), counts);
  EXPECT_EQ(counts["tessera_kernel_vadd"], 7);
  EXPECT_EQ(counts["tessera_kernel_reverse_chunks"], 5);
}

TEST(CubinElf, TruncatedImagesAreRefusedNotRead) {
  std::vector<unsigned char> cubin = testCubin();
  ASSERT_GT(cubin.size(), 64u);
  std::set<std::string> names;
  // Every prefix of the image: no reads past the end (ASan builds check),
  // and either an answer or "unknown".
  for (size_t size = 0; size < cubin.size(); size += 61) {
    std::vector<unsigned char> cut(cubin.begin(), cubin.begin() + long(size));
    if (cubinDefinedSymbols(cut.data(), cut.size(), "tessera_", names))
      EXPECT_LE(names.size(), 3u);
  }
}
#endif

TEST(CubinElf, NotAnElf) {
  const unsigned char ptx[] = ".version 8.0\n.target sm_80\n"
                              "                                        "
                              "                                        ";
  std::set<std::string> names = {"stale"};
  EXPECT_FALSE(cubinDefinedSymbols(ptx, sizeof ptx, "tessera_tma_", names));
  EXPECT_TRUE(names.empty());
}

} // namespace
