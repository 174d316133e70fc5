//===- CompileLatencyBench.cpp - cold and cached compile latency ----------===//
//
//   tessera-bench-compile-latency [--runs N] [--process-runs N]
//                                 [--kernel examples/gemm.mlir]
//
// Compiles a kernel for the host and reports medians (JSON):
//   in_process_cold_ms    compileBundle in this process with a fresh
//                         MLIRContext, plugin registry and an empty cache
//                         directory each run (the first run, which also
//                         dlopens the plugin and initializes LLVM, is
//                         reported apart as first_cold_ms);
//   in_process_cached_ms  the same with a cache that holds the entry;
//   process_cold_ms       wall time of a fresh `tessera compile` process with
//                         an empty TESSERA_CACHE_DIR;
//   process_cached_ms     the same with the entry cached: the tool answers
//                         from the cache without loading
//                         libtessera_compiler/libMLIR/libLLVM (median of
//                         --process-runs, default 20; min and p90 too);
//   process_cached_no_compiler_ms
//                         the same with TESSERA_COMPILER_LIBRARY naming a
//                         missing file, which proves the path loads nothing;
//   process_help_ms       `tessera help`: the floor of a process start.
//
//===----------------------------------------------------------------------===//

#include "BundleCompiler.h"
#include "Compile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace tessera;

namespace {

double nowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// One in-process compile; returns ms, or -1 on failure.
double compileInProcess(const std::string &source, const std::string &cacheDir,
                        std::string *cacheState) {
  double t0 = nowMs();
  mlir::DialectRegistry registry;
  registerTileModuleDialects(registry);
  mlir::MLIRContext ctx(registry);
  CompilerPluginRegistry plugins;
  CompileCache cache(cacheDir);
  BundleRequest request;
  request.sourcePath = source;
  BundleResult result;
  if (mlir::failed(compileBundle(request, ctx, plugins, cache, result)))
    return -1;
  double ms = nowMs() - t0;
  if (cacheState)
    *cacheState = result.cacheState;
  return ms;
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(p * double(v.size() - 1) + 0.5))];
}

/// Wall time of one `tessera compile` process; -1 on failure. With
/// `noCompiler` the compiler library is unavailable to it.
double compileProcess(const std::string &source, const std::string &cacheDir,
                      const std::string &out, bool noCompiler = false) {
  double t0 = nowMs();
  pid_t pid = fork();
  if (pid == 0) {
    setenv("TESSERA_CACHE_DIR", cacheDir.c_str(), 1);
    unsetenv("TESSERA_NO_CACHE");
    if (noCompiler)
      setenv("TESSERA_COMPILER_LIBRARY", "/nonexistent/libtessera_compiler.so",
             1);
    else
      unsetenv("TESSERA_COMPILER_LIBRARY");
    execl(TESSERA_TOOL, TESSERA_TOOL, "compile", source.c_str(), "-o",
          out.c_str(), (char *)nullptr);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return -1;
  return nowMs() - t0;
}

/// Wall time of one `tessera help` process; -1 on failure.
double helpProcess() {
  double t0 = nowMs();
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open("/dev/null", O_WRONLY);
    if (fd >= 0)
      dup2(fd, 1);
    execl(TESSERA_TOOL, TESSERA_TOOL, "help", (char *)nullptr);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return -1;
  return nowMs() - t0;
}

} // namespace

int main(int argc, char **argv) {
  int runs = 7, processRuns = 20;
  std::string source = TESSERA_EXAMPLES_DIR "/gemm.mlir";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--process-runs" && i + 1 < argc)
      processRuns = std::max(1, std::atoi(argv[++i]));
    else if (a == "--kernel" && i + 1 < argc)
      source = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: %s [--runs N] [--process-runs N] [--kernel k.mlir]\n",
                   argv[0]);
      return 2;
    }
  }
  char dirTemplate[] = "/tmp/tessera-latency-XXXXXX";
  if (!mkdtemp(dirTemplate))
    return 1;
  std::string dir = dirTemplate;
  int fresh = 0;
  auto freshDir = [&] { return dir + "/cache" + std::to_string(fresh++); };

  std::string state;
  double first = compileInProcess(source, freshDir(), &state);
  std::vector<double> cold, cached, pCold, pCached, pNoCompiler, pHelp;
  for (int i = 0; i < runs; ++i) {
    double ms = compileInProcess(source, freshDir(), &state);
    if (ms < 0 || state != "miss") {
      std::fprintf(stderr, "cold compile failed (cache: %s)\n", state.c_str());
      return 1;
    }
    cold.push_back(ms);
  }
  std::string warm = freshDir();
  compileInProcess(source, warm, &state);
  for (int i = 0; i < runs; ++i) {
    double ms = compileInProcess(source, warm, &state);
    if (ms < 0 || state != "hit") {
      std::fprintf(stderr, "cached compile failed (cache: %s)\n", state.c_str());
      return 1;
    }
    cached.push_back(ms);
  }
  std::string out = dir + "/out.tsb";
  for (int i = 0; i < runs; ++i)
    pCold.push_back(compileProcess(source, freshDir(), out));
  std::string warmP = freshDir();
  compileProcess(source, warmP, out);
  for (int i = 0; i < processRuns; ++i)
    pCached.push_back(compileProcess(source, warmP, out));
  for (int i = 0; i < processRuns; ++i)
    pNoCompiler.push_back(compileProcess(source, warmP, out, /*noCompiler=*/true));
  for (int i = 0; i < processRuns; ++i)
    pHelp.push_back(helpProcess());
  if (std::count(pCold.begin(), pCold.end(), -1.0) ||
      std::count(pCached.begin(), pCached.end(), -1.0) ||
      std::count(pNoCompiler.begin(), pNoCompiler.end(), -1.0) ||
      std::count(pHelp.begin(), pHelp.end(), -1.0)) {
    std::fprintf(stderr, "a `tessera compile` process failed\n");
    return 1;
  }
  std::string rm = "rm -rf '" + dir + "'";
  (void)std::system(rm.c_str());

  std::printf("{\"bench\": \"compile_latency\", \"kernel\": \"%s\", \"target\": "
              "\"host\", \"runs\": %d, \"first_cold_ms\": %.2f, "
              "\"in_process_cold_ms\": %.2f, \"in_process_cached_ms\": %.3f, "
              "\"process_cold_ms\": %.2f, \"process_runs\": %d, "
              "\"process_cached_ms\": %.2f, \"process_cached_min_ms\": %.2f, "
              "\"process_cached_p90_ms\": %.2f, "
              "\"process_cached_no_compiler_ms\": %.2f, "
              "\"process_help_ms\": %.2f}\n",
              source.c_str(), runs, first, median(cold), median(cached),
              median(pCold), processRuns, median(pCached),
              percentile(pCached, 0.0), percentile(pCached, 0.9),
              median(pNoCompiler), median(pHelp));
  return 0;
}
