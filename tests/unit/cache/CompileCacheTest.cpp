//===- CompileCacheTest.cpp - the cache and its key, without LLVM
//----------===//

#include "CompileCache.h"
#include "CompileKey.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace tessera;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/tessera-cache-unit-XXXXXX";
    path = mkdtemp(tmpl) ? tmpl : "";
  }
  ~TempDir() { (void)std::system(("rm -rf '" + path + "'").c_str()); }
};

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CompileCache, PutThenGetRoundTrips) {
  TempDir tmp;
  CompileCache cache(tmp.path + "/sub/dir");
  std::string error, payload;
  EXPECT_EQ(cache.get("k", payload), CompileCache::Lookup::Miss);
  std::string bytes("bundle\0bytes", 12);
  ASSERT_TRUE(cache.put("k", bytes, error)) << error;
  ASSERT_EQ(cache.get("k", payload), CompileCache::Lookup::Hit);
  EXPECT_EQ(payload, bytes);
}

TEST(CompileCache, DamagedEntryIsCorrupt) {
  TempDir tmp;
  CompileCache cache(tmp.path);
  std::string error, payload;
  ASSERT_TRUE(cache.put("k", "payload bytes", error)) << error;
  std::string good = readFile(cache.entryPath("k"));
  for (size_t i : {size_t(0), size_t(9), good.size() - 1}) {
    std::string bad = good;
    bad[i] ^= 1;
    std::ofstream(cache.entryPath("k"), std::ios::binary) << bad;
    EXPECT_EQ(cache.get("k", payload), CompileCache::Lookup::Corrupt) << i;
  }
  std::ofstream(cache.entryPath("k"), std::ios::binary) << good.substr(0, 20);
  EXPECT_EQ(cache.get("k", payload), CompileCache::Lookup::Corrupt);
}

TEST(CompileCache, DisabledCacheStoresNothing) {
  CompileCache off{std::string()};
  std::string error, payload;
  EXPECT_FALSE(off.enabled());
  EXPECT_TRUE(off.put("k", "x", error));
  EXPECT_EQ(off.get("k", payload), CompileCache::Lookup::Miss);
}

TEST(CompileCache, DefaultFolderFollowsTheEnvironment) {
  setenv("TESSERA_CACHE_DIR", "/a/b", 1);
  EXPECT_EQ(CompileCache().directory(), "/a/b");
  unsetenv("TESSERA_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/x", 1);
  EXPECT_EQ(CompileCache().directory(), "/x/tessera");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/h", 1);
  EXPECT_EQ(CompileCache().directory(), "/h/.cache/tessera");
  setenv("TESSERA_NO_CACHE", "1", 1);
  EXPECT_FALSE(CompileCache().enabled());
  unsetenv("TESSERA_NO_CACHE");
}

TEST(CompileKey, PartsAreLengthPrefixed) {
  EXPECT_NE(CompileCache::key({"ab", "c"}), CompileCache::key({"a", "bc"}));
  EXPECT_EQ(CompileCache::key({"ab", "c"}).size(), 64u);
}

TEST(CompileKey, EveryInputChangesTheKey) {
  CompilerPluginIndex none(std::vector<std::string>{});
  std::vector<TargetSpec> host = {{"x86_64-unknown-linux-gnu", ""}};
  std::string base = compileCacheKey("src", 3, host, none);
  EXPECT_EQ(base, compileCacheKey("src", 3, host, none));
  EXPECT_NE(base, compileCacheKey("src2", 3, host, none));
  EXPECT_NE(base, compileCacheKey("src", 2, host, none));
  EXPECT_NE(base,
            compileCacheKey("src", 3, {{"x86_64-unknown-linux-gnu", "znver4"}},
                            none));
}

TEST(CompileKey, CompilerSwitchesAreInTheKey) {
  CompilerPluginIndex none(std::vector<std::string>{});
  std::vector<TargetSpec> host = {{"x86_64-unknown-linux-gnu", ""}};
  for (const char *name : compilerSwitches())
    ASSERT_EQ(std::getenv(name), nullptr)
        << name << " set in the test's environment";
  std::string base = compileCacheKey("src", 3, host, none);
  for (const char *name : {"TESSERA_PTX_FAST",
                           "TESSERA_WIDEN",
                           "TESSERA_MASK_VERSION",
                           "TESSERA_FMA_LAYOUT",
                           "TESSERA_MMA_ZERO_START",
                           "TESSERA_PERSISTENT",
                           "TESSERA_CUDA_WARP_SPECIALIZATION",
                           "TESSERA_TMA_STORE",
                           "TESSERA_STMATRIX",
                           "TESSERA_LONGEST_FIRST",
                           "TESSERA_SPLIT_THREADS",
                           "TESSERA_COMPACT_TWINS",
                           "TESSERA_DEFER_STORE_WAIT",
                           "TESSERA_WAIT_FENCE",
                           "TESSERA_DEEPEN_KEYS",
                           "TESSERA_EARLY_COPIES",
                           "TESSERA_PREFETCH_UNROLL",
                           "TESSERA_ZIGZAG",
                           "TESSERA_L2_KEEP",
                           "TESSERA_FMA_PREFETCH",
                           "TESSERA_STAGE_FRAGMENTS"}) {
    SCOPED_TRACE(name);
    setenv(name, "0", 1);
    std::string off = compileCacheKey("src", 3, host, none);
    setenv(name, "1", 1);
    std::string one = compileCacheKey("src", 3, host, none);
    unsetenv(name);
    EXPECT_NE(base, off);
    EXPECT_NE(off, one);
    EXPECT_EQ(base, compileCacheKey("src", 3, host, none));
  }
  // Variables that do not change what is compiled leave the key alone.
  setenv("TESSERA_MLIR_TIMING", "1", 1);
  EXPECT_EQ(base, compileCacheKey("src", 3, host, none));
  unsetenv("TESSERA_MLIR_TIMING");
}

TEST(CompileKey, LocationsDoNotChangeTheKey) {
  CompilerPluginIndex none(std::vector<std::string>{});
  std::vector<TargetSpec> host = {{"x86_64-unknown-linux-gnu", ""}};
  std::string a = "%c = arith.constant 8 : index loc(\"/a/k.py\":20:9)\n"
                  "tile.kernel {} loc(fused[\"x(\", callsite(\"/a\":1:2)])\n";
  std::string b = "%c = arith.constant 8 : index loc(\"/b/c/k.py\":3:1)\n"
                  "tile.kernel {}\n";
  EXPECT_EQ(compileCacheKey(a, 3, host, none),
            compileCacheKey(b, 3, host, none));
  EXPECT_EQ(withoutLocations(a), "%c = arith.constant 8 : index\n"
                                 "tile.kernel {}\n");
  // Code still changes it; so does `loc(` inside a string or a longer name.
  EXPECT_NE(compileCacheKey(a, 3, host, none),
            compileCacheKey("%c = arith.constant 9 : index\ntile.kernel {}\n",
                            3, host, none));
  EXPECT_EQ(withoutLocations("x = \"loc(1)\" myloc(2)"),
            "x = \"loc(1)\" myloc(2)");
}

TEST(CompileKey, LibrariesAreKnownByBuildId) {
  // This test binary's own build id (lld writes one) names it.
  std::string self = libraryIdentity("/proc/self/exe");
  EXPECT_EQ(self.rfind("build-id ", 0), 0u) << self;
  EXPECT_EQ(self, libraryIdentity("/proc/self/exe"));
  EXPECT_EQ(libraryIdentity("/nonexistent/libx.so"), "missing");
  TempDir dir;
  std::string plain = dir.path + "/plain.so";
  std::ofstream(plain) << "not an ELF";
  EXPECT_NE(libraryIdentity(plain).find("@"), std::string::npos);
}

TEST(CompileKey, SplitsTargetSpecs) {
  TargetSpec t;
  std::string error;
  ASSERT_TRUE(splitTargetSpec("nvptx64-nvidia-cuda:sm_90a", t, error));
  EXPECT_EQ(t.triple, "nvptx64-nvidia-cuda");
  EXPECT_EQ(t.chip, "sm_90a");
  ASSERT_TRUE(splitTargetSpec("x86_64-unknown-linux-gnu", t, error));
  EXPECT_EQ(t.chip, "");
  EXPECT_FALSE(splitTargetSpec("x86_64", t, error));
  EXPECT_NE(error.find("bad target 'x86_64'"), std::string::npos);
}

TEST(CompileKey, DefaultPluginDirIsBesideTheLibrary) {
  EXPECT_EQ(defaultPluginDirBeside("/p/bin/../lib/libtessera_compiler.so"),
            "/p/lib/tessera/plugins");
}

} // namespace
