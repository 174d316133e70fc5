//===- LoaderTest.cpp - loading good and broken runtime plugins ----------===//

#include "tessera/plugin/Loader.h"

#include <gtest/gtest.h>

#include <map>

using namespace tessera::plugin;

namespace {

class Loader : public ::testing::Test {
protected:
  void SetUp() override {
    plugins = loadRuntimePlugins({GOOD_DIR, BROKEN_DIR});
    for (auto &plugin : plugins) {
      std::string file = plugin->manifest.path;
      byFile[file.substr(file.rfind('/') + 1)] = plugin.get();
    }
  }
  const RuntimePlugin &get(const std::string &file) {
    EXPECT_TRUE(byFile.count(file)) << file;
    return *byFile.at(file);
  }
  std::vector<std::unique_ptr<RuntimePlugin>> plugins;
  std::map<std::string, RuntimePlugin *> byFile;
};

TEST_F(Loader, GoodPluginIsReady) {
  const RuntimePlugin &fake = get("fake.toml");
  EXPECT_EQ(fake.state, PluginState::Ready) << fake.message;
  ASSERT_NE(fake.table, nullptr);
  EXPECT_STREQ(fake.table->name, "fake");
  uint32_t count = 0;
  char err[256];
  EXPECT_EQ(fake.table->device_count(&count, err, sizeof err), 0);
  EXPECT_EQ(count, 2u);
}

TEST_F(Loader, OtherAbiMajorIsRefused) {
  const RuntimePlugin &manifest = get("abi2.toml");
  EXPECT_EQ(manifest.state, PluginState::Refused);
  EXPECT_NE(manifest.message.find(
                "plugin 'abi2' (" BROKEN_DIR
                "/abi2.toml) speaks runtime ABI 2.0, this runtime speaks 1.2"),
            std::string::npos)
      << manifest.message;
  // The manifest says 1.0, the library's table says 2.
  const RuntimePlugin &table = get("abitable.toml");
  EXPECT_EQ(table.state, PluginState::Refused);
  // (Its minor is the header's it was built with.)
  EXPECT_NE(table.message.find("speaks runtime ABI 2." +
                               std::to_string(TESSERA_RUNTIME_ABI_MINOR) +
                               ", this runtime speaks 1.2"),
            std::string::npos)
      << table.message;
}

TEST_F(Loader, MissingLibraryIsRefused) {
  const RuntimePlugin &plugin = get("missing.toml");
  EXPECT_EQ(plugin.state, PluginState::Refused);
  EXPECT_NE(plugin.message.find("libtessera_missing_runtime.so', which does "
                                "not exist"),
            std::string::npos)
      << plugin.message;
}

TEST_F(Loader, LibraryWithoutEntryPointIsRefused) {
  const RuntimePlugin &plugin = get("noentry.toml");
  EXPECT_EQ(plugin.state, PluginState::Refused);
  EXPECT_NE(plugin.message.find("does not export tessera_runtime_plugin_entry"),
            std::string::npos)
      << plugin.message;
}

TEST_F(Loader, CorruptAndIncompleteManifestsAreRefused) {
  const RuntimePlugin &corrupt = get("corrupt.toml");
  EXPECT_EQ(corrupt.state, PluginState::Refused);
  EXPECT_NE(corrupt.message.find("corrupt.toml' line 2 is not valid TOML"),
            std::string::npos)
      << corrupt.message;
  const RuntimePlugin &incomplete = get("incomplete.toml");
  EXPECT_EQ(incomplete.state, PluginState::Refused);
  EXPECT_NE(incomplete.message.find("incomplete: missing key 'triples'"),
            std::string::npos)
      << incomplete.message;
}

TEST_F(Loader, FailedInitializeIsUnavailable) {
  const RuntimePlugin &plugin = get("unavail.toml");
  EXPECT_EQ(plugin.state, PluginState::Unavailable);
  EXPECT_EQ(plugin.message, "libfakevendor.so.1 not found");
}

TEST(LoaderShadowing, FirstDirectoryWins) {
  auto plugins = loadRuntimePlugins({GOOD_DIR, GOOD_DIR "/."});
  ASSERT_EQ(plugins.size(), 2u);
  EXPECT_EQ(plugins[0]->state, PluginState::Ready);
  EXPECT_EQ(plugins[1]->state, PluginState::Refused);
  EXPECT_NE(plugins[1]->message.find("is shadowed by"), std::string::npos);
}

} // namespace
