//===- ManifestTest.cpp - plugin manifest parsing -------------------------===//

#include "tessera/plugin/Manifest.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace tessera::plugin;

namespace {

const char *kCpu = R"toml(
name = "cpu"
version = "0.1.0"
abi_version = "1.0"
runtime_library = "libtessera_cpu_runtime.so"
compiler_library = "libtessera_cpu_compiler.so"
triples = ["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"]
[targets]
"x86-64-v3" = "targets/host.toml"
)toml";

TEST(Manifest, ParsesTheContractExample) {
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(kCpu, "/p/cpu.toml", m, error)) << error;
  EXPECT_EQ(m.name, "cpu");
  EXPECT_EQ(m.version, "0.1.0");
  EXPECT_EQ(m.abiMajor, 1u);
  EXPECT_EQ(m.abiMinor, 0u);
  EXPECT_EQ(m.directory, "/p");
  EXPECT_EQ(m.runtimeLibrary, "/p/libtessera_cpu_runtime.so");
  EXPECT_EQ(m.compilerLibrary, "/p/libtessera_cpu_compiler.so");
  ASSERT_EQ(m.triples.size(), 2u);
  EXPECT_EQ(m.triples[1], "aarch64-unknown-linux-gnu");
  ASSERT_EQ(m.targets.size(), 1u);
  EXPECT_EQ(m.targets[0].first, "x86-64-v3");
  EXPECT_EQ(m.targets[0].second, "/p/targets/host.toml");
}

std::string errorOf(std::string text) {
  Manifest m;
  std::string error;
  EXPECT_FALSE(parseManifest(text, "/p/x.toml", m, error)) << text;
  return error;
}

std::string replace(std::string text, const std::string &from,
                    const std::string &to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

TEST(Manifest, NamesTheKeyOrLine) {
  EXPECT_EQ(errorOf(replace(kCpu, "name = \"cpu\"\n", "")),
            "plugin manifest '/p/x.toml' is incomplete: missing key 'name'");
  EXPECT_EQ(errorOf(replace(kCpu, "triples = [", "#")),
            "plugin manifest '/p/x.toml' is incomplete: missing key 'triples'");
  std::string error = errorOf(replace(kCpu, "\"1.0\"", "\"one\""));
  EXPECT_NE(error.find("line 4: abi_version 'one'"), std::string::npos)
      << error;
  error = errorOf(replace(kCpu, "version = \"0.1.0\"", "version = 0.1.0\""));
  EXPECT_NE(error.find("line 3 is not valid TOML"), std::string::npos) << error;
  error = errorOf(replace(kCpu, "\"targets/host.toml\"", "3"));
  EXPECT_NE(error.find("target 'x86-64-v3' must name a file"),
            std::string::npos)
      << error;
  error =
      errorOf(replace(kCpu, "runtime_library = \"libtessera_cpu_runtime.so\"",
                      "runtime_library = 5"));
  EXPECT_NE(error.find("'runtime_library' must be a string"), std::string::npos)
      << error;
}

// Regression (manifest fuzzer): a table header whose key starts with a
// character no key starts with violated an assumption inside TOML++
// (undefined behaviour in release builds, an abort with assertions).
TEST(Manifest, BadTableHeadersAreSyntaxErrors) {
  for (const char *text : {"[.v+", "[.x]\n", "[[ !y]]\n", "[\t!]"}) {
    std::string error = errorOf(text);
    EXPECT_NE(error.find("is not valid TOML"), std::string::npos)
        << text << ": " << error;
  }
}

// Regression (bundle fuzzer): a non-ASCII character where TOML++ looks for
// whitespace ran into __builtin_unreachable in its Unicode tables.
TEST(Manifest, NonAsciiOutsideStringsIsASyntaxError) {
  for (const char *text :
       {"\xd1\x99\xc8\x93)", "name = \"cpu\"\n\xc3\xa9 = 1\n",
        "x = 1 \xef\xbb\xbe\n", "\xe3\x80\x81 = 2"}) {
    std::string error = errorOf(text);
    EXPECT_NE(error.find("is not valid TOML"), std::string::npos)
        << text << ": " << error;
  }
  // Where TOML allows them, in strings and comments, they are fine.
  Manifest m;
  std::string error;
  EXPECT_TRUE(
      parseManifest(replace(kCpu, "\"0.1.0\"", "\"0.1.0 \xc3\xa9\" # \xd1\x99"),
                    "/p/x.toml", m, error))
      << error;
  EXPECT_EQ(m.version, "0.1.0 \xc3\xa9");
}

TEST(Manifest, SearchPathPutsTheEnvironmentFirst) {
  ::setenv("TESSERA_PLUGIN_PATH", "/a::/b/:/a", 1);
  auto dirs = pluginSearchPath({"/c", "/b"});
  ::unsetenv("TESSERA_PLUGIN_PATH");
  EXPECT_EQ(dirs, (std::vector<std::string>{"/a", "/b", "/c"}));
  EXPECT_EQ(pluginSearchPath({"/c"}), std::vector<std::string>{"/c"});
}

TEST(Manifest, ListsTomlFilesSorted) {
  auto files = listManifests(BROKEN_DIR);
  ASSERT_GE(files.size(), 7u);
  EXPECT_EQ(files[0], std::string(BROKEN_DIR) + "/abi2.toml");
  EXPECT_TRUE(listManifests("/nonexistent/dir").empty());
}

} // namespace
