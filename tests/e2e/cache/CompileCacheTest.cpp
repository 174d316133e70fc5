//===- CompileCacheTest.cpp - the compile cache seen from `tessera compile`
//===//
//
// Runs the built `tessera compile` in child processes with a private
// TESSERA_CACHE_DIR and checks what a user relies on: a second compile is a
// hit, a damaged entry is detected, recompiled and repaired, and concurrent
// compiles of the same kernel both succeed and leave exactly one valid entry.
// Bundles are checked by loading them on the CPU device and running them.
//
//===----------------------------------------------------------------------===//

#include "../cpu/E2EHelpers.h"

#include "CompileKey.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <dirent.h>
#include <fcntl.h>
#include <functional>
#include <random>

using namespace e2e;

namespace {

struct Compile {
  pid_t pid = -1;
  std::string logPath;
};

/// Starts `tessera compile <example> -o <out> --time` with the given cache
/// directory; stdout and stderr go to <out>.log.
Compile startCompile(const std::string &example, const std::string &out,
                     const std::string &cacheDir) {
  Compile c;
  c.logPath = out + ".log";
  std::string src = examplePath(example);
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(c.logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    setenv("TESSERA_CACHE_DIR", cacheDir.c_str(), 1);
    setenv("TESSERA_PLUGIN_PATH", TESSERA_PLUGIN_DIR, 1);
    unsetenv("TESSERA_NO_CACHE");
    execl(TESSERA_TOOL, TESSERA_TOOL, "compile", src.c_str(), "-o", out.c_str(),
          "--time", (char *)nullptr);
    _exit(127);
  }
  c.pid = pid;
  return c;
}

/// Waits for a compile; returns its exit code (-1 on a signal) and log.
int finish(const Compile &c, std::string &log) {
  int status = 0;
  waitpid(c.pid, &status, 0);
  log = readFile(c.logPath);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int compileNow(const std::string &example, const std::string &out,
               const std::string &cacheDir, std::string &log) {
  return finish(startCompile(example, out, cacheDir), log);
}

std::vector<std::string> listDir(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..")
        names.push_back(n);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Loads a bundle of examples/elementwise_add.mlir and runs it at N = 1500.
/// Returns "" when the results are right, else what went wrong.
std::string runElementwiseAdd(const std::string &bundlePath) {
  static CpuRuntime *rt = new CpuRuntime();
  if (!rt->cpu)
    return "no CPU device";
  try {
    tessera::Module module = rt->device().loadBundle(bundlePath);
    const int64_t n = 1500;
    std::vector<float> a(n), b(n), c(n, NAN);
    for (int64_t i = 0; i < n; ++i) {
      a[i] = float(i) * 0.5f;
      b[i] = 3.0f - float(i);
    }
    tessera::Buffer A = rt->device().alloc(n * 4),
                    B = rt->device().alloc(n * 4),
                    C = rt->device().alloc(n * 4);
    A.write(a.data(), n * 4);
    B.write(b.data(), n * 4);
    C.write(c.data(), n * 4);
    module.kernel("elementwise_add")
        .launch({A.tensor(TESSERA_DTYPE_F32, {n}),
                 B.tensor(TESSERA_DTYPE_F32, {n}),
                 C.tensor(TESSERA_DTYPE_F32, {n})});
    C.read(c.data(), n * 4);
    for (int64_t i = 0; i < n; ++i)
      if (c[i] != a[i] + b[i])
        return "wrong result at " + std::to_string(i);
  } catch (const tessera::Error &e) {
    return e.what();
  }
  return "";
}

/// The cache's one entry (a *.tsb file); fails when there is not exactly one.
std::string onlyEntry(const std::string &cacheDir) {
  std::vector<std::string> entries;
  for (const std::string &n : listDir(cacheDir)) {
    EXPECT_FALSE(endsWith(n, ".tmp")) << "leftover temporary file " << n;
    if (endsWith(n, ".tsb"))
      entries.push_back(n);
  }
  EXPECT_EQ(entries.size(), 1u) << "cache entries in " << cacheDir;
  return entries.size() == 1 ? cacheDir + "/" + entries[0] : std::string();
}

TEST(CompileCache, SecondCompileIsAHit) {
  TempDir tmp;
  std::string cache = tmp.file("cache"), log;
  ASSERT_EQ(compileNow("elementwise_add", tmp.file("a.tsb"), cache, log), 0)
      << log;
  EXPECT_NE(log.find("cache: miss"), std::string::npos) << log;
  ASSERT_EQ(compileNow("elementwise_add", tmp.file("b.tsb"), cache, log), 0)
      << log;
  EXPECT_NE(log.find("cache: hit"), std::string::npos) << log;
  EXPECT_EQ(readFile(tmp.file("a.tsb")), readFile(tmp.file("b.tsb")));
  EXPECT_EQ(runElementwiseAdd(tmp.file("b.tsb")), "");
  onlyEntry(cache);
}

TEST(CompileCache, CorruptEntryIsRecompiledAndRepaired) {
  TempDir tmp;
  std::string cache = tmp.file("cache"), log;
  ASSERT_EQ(compileNow("elementwise_add", tmp.file("ref.tsb"), cache, log), 0)
      << log;
  std::string entry = onlyEntry(cache);
  ASSERT_FALSE(entry.empty());
  const std::string good = readFile(entry);
  ASSERT_GT(good.size(), 64u);

  std::mt19937 gen(7);
  struct Damage {
    const char *what;
    std::function<std::string(std::string)> apply;
  };
  const Damage damages[] = {
      {"flip one byte in the payload",
       [&](std::string s) {
         s[s.size() / 2] ^= 0x5a;
         return s;
       }},
      {"flip one byte in the header",
       [&](std::string s) {
         s[3] ^= 0x01;
         return s;
       }},
      {"flip random bytes",
       [&](std::string s) {
         for (int i = 0; i < 16; ++i)
           s[gen() % s.size()] ^= char(1 + gen() % 255);
         return s;
       }},
      {"flip the last byte",
       [&](std::string s) {
         s.back() ^= 0x80;
         return s;
       }},
      {"truncate to half",
       [&](std::string s) { return s.substr(0, s.size() / 2); }},
      {"truncate by one byte",
       [&](std::string s) { return s.substr(0, s.size() - 1); }},
      {"truncate to 10 bytes", [&](std::string s) { return s.substr(0, 10); }},
      {"empty", [&](std::string) { return std::string(); }},
      {"append junk", [&](std::string s) { return s + "junk"; }},
  };
  int round = 0;
  for (const Damage &d : damages) {
    SCOPED_TRACE(d.what);
    writeFile(entry, d.apply(good));
    std::string out = tmp.file("out" + std::to_string(round++) + ".tsb");
    ASSERT_EQ(compileNow("elementwise_add", out, cache, log), 0) << log;
    EXPECT_NE(log.find("cache: corrupt"), std::string::npos) << log;
    EXPECT_EQ(runElementwiseAdd(out), "");
    // Repaired: the entry is whole again (compiles are deterministic) and
    // the next compile is a hit.
    EXPECT_EQ(readFile(onlyEntry(cache)) == good, true);
    ASSERT_EQ(compileNow("elementwise_add", out + ".again", cache, log), 0)
        << log;
    EXPECT_NE(log.find("cache: hit"), std::string::npos) << log;
    EXPECT_EQ(readFile(out + ".again"), readFile(out));
  }
}

TEST(CompileCache, ConcurrentCompilesLeaveOneValidEntry) {
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    TempDir tmp;
    std::string cache = tmp.file("cache");
    // Alternate kernels so the race happens on different entry sizes.
    const char *example = round % 2 ? "gemm" : "elementwise_add";
    Compile a = startCompile(example, tmp.file("a.tsb"), cache);
    Compile b = startCompile(example, tmp.file("b.tsb"), cache);
    std::string logA, logB;
    ASSERT_EQ(finish(a, logA), 0) << logA;
    ASSERT_EQ(finish(b, logB), 0) << logB;
    std::string entry = onlyEntry(cache);
    ASSERT_FALSE(entry.empty());
    EXPECT_EQ(readFile(tmp.file("a.tsb")), readFile(tmp.file("b.tsb")));
    if (round % 2 == 0) {
      EXPECT_EQ(runElementwiseAdd(tmp.file("a.tsb")), "");
      EXPECT_EQ(runElementwiseAdd(tmp.file("b.tsb")), "");
    } else {
      static CpuRuntime *rt = new CpuRuntime();
      ASSERT_NE(rt->cpu, nullptr);
      EXPECT_NO_THROW(
          rt->device().loadBundle(tmp.file("a.tsb")).kernel("gemm"));
      EXPECT_NO_THROW(
          rt->device().loadBundle(tmp.file("b.tsb")).kernel("gemm"));
    }
    // The entry both left is valid: the next compile hits it.
    std::string log;
    ASSERT_EQ(compileNow(example, tmp.file("c.tsb"), cache, log), 0) << log;
    EXPECT_NE(log.find("cache: hit"), std::string::npos) << log;
    EXPECT_EQ(readFile(tmp.file("c.tsb")), readFile(tmp.file("a.tsb")));
  }
}

TEST(CompileCache, NoCacheFlagWritesNothing) {
  TempDir tmp;
  std::string cache = tmp.file("cache");
  CommandResult r = runCommand(
      "TESSERA_CACHE_DIR='" + cache + "' '" TESSERA_TOOL "' compile '" +
      examplePath("elementwise_add") + "' --no-cache --time -o '" +
      tmp.file("a.tsb") + "'");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("cache: off"), std::string::npos) << r.output;
  for (const std::string &n : listDir(cache))
    EXPECT_FALSE(endsWith(n, ".tsb")) << n;
  EXPECT_EQ(runElementwiseAdd(tmp.file("a.tsb")), "");
}

/// `tessera <args>` with the test's cache and plugins and the compiler
/// library at `compilerLibrary` (which may be missing).
CommandResult tessera(const std::string &args, const std::string &cacheDir,
                      const std::string &compilerLibrary) {
  return runCommand("TESSERA_CACHE_DIR='" + cacheDir +
                    "' TESSERA_PLUGIN_PATH='" TESSERA_PLUGIN_DIR
                    "' TESSERA_COMPILER_LIBRARY='" +
                    compilerLibrary + "' '" + TESSERA_TOOL "' " + args);
}

TEST(CompileCache, ToolKeyNamesTheEntryTheCompilerStored) {
  TempDir tmp;
  std::string cache = tmp.file("cache"), log;
  ASSERT_EQ(compileNow("gemm", tmp.file("a.tsb"), cache, log), 0) << log;
  EXPECT_NE(log.find("cache: miss"), std::string::npos) << log;
  std::string key, error;
  ASSERT_TRUE(tessera::compileCacheKeyForFile(
      examplePath("gemm"), {}, 3,
      tessera::CompilerPluginIndex({TESSERA_PLUGIN_DIR}), key, error))
      << error;
  EXPECT_EQ(onlyEntry(cache), cache + "/" + key + ".tsb");
}

TEST(CompileCache, CachedCompileNeedsNoCompilerLibrary) {
  TempDir tmp;
  std::string cache = tmp.file("cache"), log;
  std::string missing = tmp.file("lib/libtessera_compiler.so");
  std::string src = "'" + examplePath("elementwise_add") + "'";
  ASSERT_EQ(compileNow("elementwise_add", tmp.file("a.tsb"), cache, log), 0)
      << log;
  CommandResult hit =
      tessera("compile " + src + " --time -o '" + tmp.file("b.tsb") + "'",
              cache, missing);
  ASSERT_EQ(hit.exitCode, 0) << hit.output;
  EXPECT_NE(hit.output.find("cache: hit"), std::string::npos) << hit.output;
  EXPECT_EQ(readFile(tmp.file("a.tsb")), readFile(tmp.file("b.tsb")));
  EXPECT_EQ(runElementwiseAdd(tmp.file("b.tsb")), "");

  // Anything not in the cache needs the compiler, and says it is missing.
  for (const char *flags : {"-O1", "--no-cache", "--print-ir-after-all"}) {
    CommandResult miss = tessera("compile " + src + " " + flags + " -o '" +
                                     tmp.file("c.tsb") + "'",
                                 cache, missing);
    EXPECT_EQ(miss.exitCode, 1) << flags << ": " << miss.output;
    EXPECT_NE(miss.output.find("this tessera has no compiler: "
                               "libtessera_compiler.so not found at " +
                               missing),
              std::string::npos)
        << flags << ": " << miss.output;
  }
}

TEST(CompileCache, RunInfoAndPluginsNeedNoCompilerLibrary) {
  TempDir tmp;
  std::string cache = tmp.file("cache"), log;
  std::string missing = tmp.file("libtessera_compiler.so");
  ASSERT_EQ(compileNow("elementwise_add", tmp.file("a.tsb"), cache, log), 0)
      << log;
  std::string bundle = "'" + tmp.file("a.tsb") + "'";
  CommandResult run =
      tessera("run " + bundle + " --shape N=1000", cache, missing);
  ASSERT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find("check: skipped (no compiler library for the "
                            "reference)"),
            std::string::npos)
      << run.output;
  // With the compiler library beside the tool, the reference runs.
  CommandResult checked =
      tessera("run " + bundle + " --shape N=1000", cache, "");
  ASSERT_EQ(checked.exitCode, 0) << checked.output;
  EXPECT_NE(checked.output.find("check: passed (reference: tile interpreter)"),
            std::string::npos)
      << checked.output;
  CommandResult info = tessera("info " + bundle, cache, missing);
  ASSERT_EQ(info.exitCode, 0) << info.output;
  EXPECT_NE(info.output.find("elementwise_add"), std::string::npos)
      << info.output;
  CommandResult plugins = tessera("plugins", cache, missing);
  EXPECT_EQ(plugins.exitCode, 0) << plugins.output;
}

} // namespace
