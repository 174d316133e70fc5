//===- RuntimeTest.cpp - plugins, devices, memory, streams ----------------===//

#include "RuntimeTestSupport.h"

#include <cstring>
#include <vector>

using namespace tessera::testing;

namespace {

TEST(Status, NullIsOk) {
  EXPECT_EQ(tessera_status_code(nullptr), TESSERA_OK);
  EXPECT_STREQ(tessera_status_message(nullptr), "");
  tessera_status_free(nullptr);
}

TEST_F(RuntimeTest, DevicesKnowTripleAndChip) {
  tessera_device_info info;
  ASSERT_OK(tessera_device_get_info(cpu, &info));
  EXPECT_STREQ(info.triple, "x86_64-unknown-linux-gnu");
  EXPECT_STREQ(info.chip, "fakechip");
  EXPECT_STREQ(info.plugin, "fake");
  ASSERT_OK(tessera_device_get_info(gpu, &info));
  EXPECT_STREQ(info.triple, "nvptx64-nvidia-cuda");
  EXPECT_STREQ(info.chip, "sm_80");
  tessera_device_t none;
  EXPECT_NE(
      failure(tessera_runtime_device(runtime, 2, &none), TESSERA_NOT_FOUND)
          .find("out of range"),
      std::string::npos);
}

TEST_F(RuntimeTest, BrokenPluginsAreListedAndTheRestWorks) {
  create(TEST_GOOD_DIR ":" TEST_BROKEN_DIR);
  uint32_t count = 0;
  ASSERT_OK(tessera_runtime_plugin_count(runtime, &count));
  ASSERT_EQ(count, 8u);
  unsigned ready = 0, unavailable = 0, refused = 0;
  for (uint32_t i = 0; i < count; ++i) {
    tessera_plugin_info info;
    ASSERT_OK(tessera_runtime_plugin_info(runtime, i, &info));
    ready += info.state == TESSERA_PLUGIN_READY;
    unavailable += info.state == TESSERA_PLUGIN_UNAVAILABLE;
    refused += info.state == TESSERA_PLUGIN_REFUSED;
    if (info.state != TESSERA_PLUGIN_READY)
      EXPECT_NE(std::string(info.message), "") << info.manifest_path;
    if (!std::strcmp(info.name, "unavail"))
      EXPECT_STREQ(info.message, "libfakevendor.so.1 not found");
    if (!std::strcmp(info.name, "fake"))
      EXPECT_EQ(info.device_count, 2u);
  }
  EXPECT_EQ(ready, 1u);
  EXPECT_EQ(unavailable, 1u);
  EXPECT_EQ(refused, 6u);
}

TEST_F(RuntimeTest, EnvironmentPathIsSearched) {
  ::setenv("TESSERA_PLUGIN_PATH", TEST_BROKEN_DIR, 1);
  tessera_runtime_t other;
  tessera_runtime_options options = {TEST_GOOD_DIR, 1};
  ASSERT_OK(tessera_runtime_create_with_options(&options, &other));
  ::unsetenv("TESSERA_PLUGIN_PATH");
  uint32_t count = 0;
  ASSERT_OK(tessera_runtime_plugin_count(other, &count));
  EXPECT_EQ(count, 8u);
  tessera_plugin_info info;
  ASSERT_OK(tessera_runtime_plugin_info(other, 0, &info));
  // TESSERA_PLUGIN_PATH comes first.
  EXPECT_NE(std::string(info.manifest_path).find(TEST_BROKEN_DIR),
            std::string::npos);
  tessera_runtime_destroy(other);
}

TEST_F(RuntimeTest, BufferCopiesAndRanges) {
  tessera_buffer_t a, b;
  ASSERT_OK(tessera_buffer_alloc(cpu, 64, &a));
  ASSERT_OK(tessera_buffer_alloc(cpu, 64, &b));
  EXPECT_EQ(tessera_buffer_size(a), 64u);
  std::vector<uint8_t> data(64), back(64);
  for (int i = 0; i < 64; ++i)
    data[i] = static_cast<uint8_t>(i);
  EXPECT_OK(tessera_buffer_write(a, nullptr, 0, data.data(), 64));
  EXPECT_OK(tessera_buffer_copy(b, 0, a, 0, 64, nullptr));
  EXPECT_OK(tessera_buffer_fill(b, nullptr, 8, 0xAB, 8));
  EXPECT_OK(tessera_buffer_read(b, nullptr, 0, back.data(), 64));
  EXPECT_EQ(back[7], 7);
  EXPECT_EQ(back[8], 0xAB);
  EXPECT_EQ(back[16], 16);
  std::string message =
      failure(tessera_buffer_write(a, nullptr, 60, data.data(), 8),
              TESSERA_INVALID_ARGUMENT);
  EXPECT_NE(message.find("exceeds the buffer's 64 bytes"), std::string::npos);
  failure(tessera_buffer_read(a, nullptr, UINT64_MAX, back.data(), 2),
          TESSERA_INVALID_ARGUMENT);
  tessera_buffer_t other;
  ASSERT_OK(tessera_buffer_alloc(gpu, 8, &other));
  failure(tessera_buffer_copy(other, 0, a, 0, 8, nullptr),
          TESSERA_INVALID_ARGUMENT);
  tessera_buffer_release(other);
  tessera_buffer_release(a);
  tessera_buffer_release(b);
}

TEST_F(RuntimeTest, StreamsAndEvents) {
  tessera_stream_t stream;
  tessera_event_t start, end;
  ASSERT_OK(tessera_stream_create(cpu, &stream));
  ASSERT_OK(tessera_event_create(cpu, &start));
  ASSERT_OK(tessera_event_create(cpu, &end));
  tessera_buffer_t buffer;
  ASSERT_OK(tessera_buffer_alloc(cpu, 16, &buffer));
  EXPECT_OK(tessera_event_record(start, stream));
  EXPECT_OK(tessera_buffer_fill(buffer, stream, 0, 1, 16));
  EXPECT_OK(tessera_event_record(end, stream));
  EXPECT_OK(tessera_stream_synchronize(stream));
  EXPECT_OK(tessera_event_synchronize(end));
  float ms = -1;
  EXPECT_OK(tessera_event_elapsed_ms(start, end, &ms));
  EXPECT_GE(ms, 0.0f);
  tessera_stream_t gpuStream;
  ASSERT_OK(tessera_stream_create(gpu, &gpuStream));
  failure(tessera_buffer_fill(buffer, gpuStream, 0, 1, 16),
          TESSERA_INVALID_ARGUMENT);
  tessera_stream_destroy(gpuStream);
  tessera_buffer_release(buffer);
  tessera_event_destroy(start);
  tessera_event_destroy(end);
  tessera_stream_destroy(stream);
}

TEST_F(RuntimeTest, NativeStreamsNeedAPluginThatWrapsThem) {
  // The CPU plugin has no native streams: a clear error, nothing created.
  tessera_stream_t stream = nullptr;
  int dummy = 0;
  std::string message =
      failure(tessera_stream_wrap(cpu, &dummy, &stream), TESSERA_UNAVAILABLE);
  EXPECT_NE(message.find("cannot wrap native streams"), std::string::npos)
      << message;
  EXPECT_EQ(stream, nullptr);
  failure(tessera_stream_wrap(cpu, nullptr, &stream), TESSERA_INVALID_ARGUMENT);
  failure(tessera_stream_wrap(nullptr, &dummy, &stream),
          TESSERA_INVALID_ARGUMENT);
}

TEST(RuntimeDefaults, CreateWithoutOptionsWorks) {
  // Whatever real plugins the build tree has, creation must not fail.
  tessera_runtime_t runtime;
  ASSERT_OK(tessera_runtime_create(&runtime));
  tessera_runtime_destroy(runtime);
}

} // namespace
