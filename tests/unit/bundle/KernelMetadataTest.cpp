//===- KernelMetadataTest.cpp - the `tessera.kernels` document ------------===//

#include "tessera/bundle/KernelMetadata.h"

#include <gtest/gtest.h>

using namespace tessera::bundle;

namespace {

const char *kGemm = R"toml(
[[kernel]]
name = "gemm"
symbol = "tessera_kernel_gemm"
threads = 128
shared_bytes = 0
grid = ["ceildiv(N, 128)", "ceildiv(M, 128)", "1"]
[[kernel.arg]]
name = "A"
kind = "tensor"
dtype = "f16"
dims = ["M", "K"]
[[kernel.arg]]
name = "B"
kind = "tensor"
dtype = "f16"
dims = ["K", "N"]
[[kernel.arg]]
name = "C"
kind = "tensor"
dtype = "f32"
dims = ["M", "?", 4]
[[kernel.arg]]
name = "alpha"
kind = "scalar"
dtype = "f32"
)toml";

std::string parseError(const std::string &text) {
  std::vector<KernelInfo> kernels;
  std::string error;
  EXPECT_FALSE(parseKernelMetadata(text, "meta", kernels, error)) << text;
  return error;
}

TEST(KernelMetadata, ParsesTheContractExample) {
  std::vector<KernelInfo> kernels;
  std::string error;
  ASSERT_TRUE(parseKernelMetadata(kGemm, "meta", kernels, error)) << error;
  ASSERT_EQ(kernels.size(), 1u);
  const KernelInfo &k = kernels[0];
  EXPECT_EQ(k.name, "gemm");
  EXPECT_EQ(k.symbol, "tessera_kernel_gemm");
  EXPECT_EQ(k.threads, 128u);
  EXPECT_EQ(k.grid[1], "ceildiv(M, 128)");
  ASSERT_EQ(k.args.size(), 4u);
  EXPECT_EQ(k.args[0].dtype, DType::F16);
  EXPECT_EQ(k.args[2].dims, (std::vector<std::string>{"M", "?", "4"}));
  EXPECT_EQ(k.args[3].kind, ArgKind::Scalar);
}

TEST(KernelMetadata, PrintParsesBack) {
  std::vector<KernelInfo> kernels, again;
  std::string error;
  ASSERT_TRUE(parseKernelMetadata(kGemm, "meta", kernels, error)) << error;
  std::string text = printKernelMetadata(kernels);
  ASSERT_TRUE(parseKernelMetadata(text, "printed", again, error))
      << error << text;
  EXPECT_EQ(printKernelMetadata(again), text);
}

// Regression (bundle fuzzer): see Manifest.BadTableHeadersAreSyntaxErrors.
TEST(KernelMetadata, BadTableHeadersAreSyntaxErrors) {
  for (const char *text : {"[.v+", "[.kernel]]\n", "[[ .kernel]]\n"})
    EXPECT_NE(parseError(text).find("meta:1"), std::string::npos) << text;
}

// Regression (bundle fuzzer): see
// Manifest.NonAsciiOutsideStringsIsASyntaxError.
TEST(KernelMetadata, NonAsciiOutsideStringsIsASyntaxError) {
  for (const char *text : {"\xd1\x99\xc8\x93)", "[[kernel]]\n\xc3\xa9 = 1\n"})
    EXPECT_NE(parseError(text).find("meta:"), std::string::npos) << text;
}

TEST(KernelMetadata, Errors) {
  EXPECT_NE(
      parseError("[[kernel]]\nname = \"k\"\n").find("missing key 'symbol'"),
      std::string::npos);
  EXPECT_NE(parseError("[[kernel]\n").find("meta:1"), std::string::npos);
  std::string bad = kGemm;
  bad.replace(bad.find("\"f16\""), 5, "\"f17\"");
  std::string error = parseError(bad);
  EXPECT_NE(error.find("unknown dtype 'f17'"), std::string::npos) << error;
  EXPECT_NE(error.find("argument 'A'"), std::string::npos) << error;
  EXPECT_NE(error.find("meta:11"), std::string::npos) << error;
  bad = kGemm;
  bad.replace(bad.find("ceildiv(M"), 9, "ceildiv(M(");
  EXPECT_NE(parseError(bad).find("grid formula"), std::string::npos);
  bad = kGemm;
  bad.replace(bad.find("threads = 128"), 13, "threads = 0");
  EXPECT_NE(parseError(bad).find("'threads' is 0"), std::string::npos);
  EXPECT_NE(parseError("kernel = 3").find("array of tables"),
            std::string::npos);
  bad = kGemm;
  bad.replace(bad.find("\"K\", \"N\""), 8, "\"K\", \"N\", 1, 2, 3");
  EXPECT_NE(parseError(bad).find("rank 5"), std::string::npos);
  bad = kGemm;
  bad.replace(bad.find("\"K\", \"N\""), 8, "\"K\", \"a b\"");
  EXPECT_NE(parseError(bad).find("dim 'a b'"), std::string::npos);
}

} // namespace
