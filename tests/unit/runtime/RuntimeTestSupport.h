//===- RuntimeTestSupport.h - a runtime on the fake backend ----*- C++ -*-===//

#ifndef TESSERA_TESTS_RUNTIME_SUPPORT_H
#define TESSERA_TESTS_RUNTIME_SUPPORT_H

#include "tessera/bundle/Bundle.h"
#include "tessera/bundle/KernelMetadata.h"
#include "tessera/runtime.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace tessera::testing {

/// Fails the test with the status message; frees the status.
#define EXPECT_OK(expr)                                                        \
  do {                                                                         \
    tessera_status_t status_ = (expr);                                         \
    EXPECT_EQ(status_, nullptr) << tessera_status_message(status_);            \
    tessera_status_free(status_);                                              \
  } while (0)
#define ASSERT_OK(expr)                                                        \
  do {                                                                         \
    tessera_status_t status_ = (expr);                                         \
    std::string message_ = tessera_status_message(status_);                    \
    tessera_status_free(status_);                                              \
    ASSERT_TRUE(message_.empty()) << message_;                                 \
  } while (0)

/// Runs \p expr, expects \p code, returns the message.
inline std::string failure(tessera_status_t status,
                           tessera_status_code_t code) {
  EXPECT_EQ(tessera_status_code(status), code)
      << tessera_status_message(status);
  std::string message = tessera_status_message(status);
  tessera_status_free(status);
  return message;
}

inline std::string readFile(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

/// C = A + alpha * B over f32[N]; grid ceildiv(N, 128).
inline bundle::KernelInfo axpyKernel() {
  bundle::KernelInfo k;
  k.name = "axpy";
  k.symbol = "tessera_kernel_axpy";
  k.threads = 128;
  k.grid = {"ceildiv(N, 128)", "1", "1"};
  for (const char *name : {"A", "B", "C"})
    k.args.push_back(
        {name, bundle::ArgKind::Tensor, bundle::DType::F32, {"N"}});
  k.args.push_back({"alpha", bundle::ArgKind::Scalar, bundle::DType::F32, {}});
  return k;
}

inline bundle::Image cpuImage(const std::string &triple,
                              const std::string &chip,
                              const std::vector<bundle::KernelInfo> &kernels) {
  bundle::Image image;
  image.imageKind = bundle::ImageKind::Object;
  image.offloadKind = bundle::OffloadKind::OpenMP;
  image.setString(bundle::kTripleKey, triple);
  image.setString(bundle::kArchKey, chip);
  image.setString(bundle::kKernelsKey, bundle::printKernelMetadata(kernels));
  image.setString(bundle::kVersionKey, "0.1.0");
  image.bytes = readFile(TEST_KERNELS_SO);
  return image;
}

/// A runtime that sees only the fake backend (and the broken plugins when
/// asked), never the real plugins of the build tree.
class RuntimeTest : public ::testing::Test {
protected:
  void SetUp() override { create(TEST_GOOD_DIR); }
  void TearDown() override { tessera_runtime_destroy(runtime); }

  void create(const char *path) {
    tessera_runtime_destroy(runtime);
    runtime = nullptr;
    tessera_runtime_options options = {path, 1};
    ASSERT_OK(tessera_runtime_create_with_options(&options, &runtime));
    uint32_t count = 0;
    ASSERT_OK(tessera_runtime_device_count(runtime, &count));
    ASSERT_EQ(count, 2u);
    ASSERT_OK(tessera_runtime_device(runtime, 0, &cpu));
    ASSERT_OK(tessera_runtime_device(runtime, 1, &gpu));
  }

  tessera_runtime_t runtime = nullptr;
  tessera_device_t cpu = nullptr; // x86_64-unknown-linux-gnu : fakechip
  tessera_device_t gpu = nullptr; // nvptx64-nvidia-cuda : sm_80 (on the host)
};

} // namespace tessera::testing

#endif // TESSERA_TESTS_RUNTIME_SUPPORT_H
