//===- CompileLatencyBench.cpp - cold and cached compile latency ----------===//
//
//   tessera-bench-compile-latency [--runs N] [--process-runs N]
//                                 [--kernel examples/gemm.mlir]
//                                 [--target nvptx64-nvidia-cuda:sm_90a]
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
// With --target (e.g. nvptx64-nvidia-cuda:sm_90a) every compile is for that
// target, and for NVPTX targets the cold compile is broken down (medians):
//   parse_verify_ms       parseTileModule: parse + verify, fresh context;
//   in_process_cold_ptx_only_ms
//                         a cold compile with TESSERA_PTXAS=none: everything
//                         but ptxas (tile passes, lowering to NVVM, LLVM
//                         O3, NVPTX codegen, bundle);
//   nvptx_codegen_ms      LLVM's NVPTX codegen (llc's work, in process) of
//                         the optimized LLVM IR the compile dumped (the
//                         kernels; TMA kernels' twins are a module of their
//                         own, compiled on another thread, not measured);
//   ptxas_ms              ptxas as the compiler runs it (-arch=<chip> -O3,
//                         fresh process) on the PTX the compile dumped (the
//                         kernels: the twins never go through ptxas); also
//                         with -Ofast-compile=max and -O0 for comparison.
// `tessera compile --time` prints the same phases of one compile.
//
//===----------------------------------------------------------------------===//

#include "BundleCompiler.h"
#include "Compile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <map>
#include <string>
#include <sys/stat.h>
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

std::string gTarget; // --target; empty: the host

/// One in-process compile; returns ms, or -1 on failure.
double compileInProcess(const std::string &source, const std::string &cacheDir,
                        std::string *cacheState,
                        const std::string &dumpDir = {}) {
  double t0 = nowMs();
  mlir::DialectRegistry registry;
  registerTileModuleDialects(registry);
  mlir::MLIRContext ctx(registry);
  CompilerPluginRegistry plugins;
  CompileCache cache(cacheDir);
  BundleRequest request;
  request.sourcePath = source;
  if (!gTarget.empty())
    request.targets = {gTarget};
  request.options.dumpDir = dumpDir;
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
    if (gTarget.empty())
      execl(TESSERA_TOOL, TESSERA_TOOL, "compile", source.c_str(), "-o",
            out.c_str(), (char *)nullptr);
    else
      execl(TESSERA_TOOL, TESSERA_TOOL, "compile", source.c_str(), "--target",
            gTarget.c_str(), "-o", out.c_str(), (char *)nullptr);
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

/// Wall time of one process `argv` (stdout and stderr to /dev/null); -1 on
/// failure.
double runProcess(const std::vector<std::string> &argv) {
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  double t0 = nowMs();
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open("/dev/null", O_WRONLY);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return -1;
  return nowMs() - t0;
}

std::string findPtxas() {
  if (const char *v = std::getenv("TESSERA_PTXAS"); v && *v)
    return v;
  for (const char *var : {"TESSERA_CUDA_PATH", "CUDA_HOME", "CUDA_PATH"})
    if (const char *v = std::getenv(var); v && *v)
      return std::string(v) + "/bin/ptxas";
  return "/usr/local/cuda/bin/ptxas";
}

/// LLVM NVPTX codegen of an LLVM IR file (parsing excluded); -1 on failure.
double nvptxCodegenMs(const std::string &llPath, const std::string &chip) {
  static bool init = [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    return true;
  }();
  (void)init;
  llvm::LLVMContext ctx;
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> m = llvm::parseIRFile(llPath, diag, ctx);
  if (!m)
    return -1;
  double t0 = nowMs();
  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return -1;
  llvm::TargetOptions to;
  to.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, chip, chip == "sm_90a" ? "+ptx84" : "+ptx78", to, std::nullopt,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  llvm::SmallVector<char, 0> out;
  llvm::raw_svector_ostream os(out);
  llvm::legacy::PassManager cg;
  if (!tm || tm->addPassesToEmitFile(cg, os, nullptr,
                                     llvm::CodeGenFileType::AssemblyFile))
    return -1;
  cg.run(*m);
  return nowMs() - t0;
}

/// The NVPTX breakdown of a cold compile (see the file comment), as JSON
/// fields starting with ", ".
std::string nvptxBreakdown(const std::string &source, const std::string &dir,
                           int runs, int &fresh) {
  std::string chip = gTarget.substr(gTarget.find(':') + 1);
  std::vector<double> parse, ptxOnly, codegen;
  std::map<std::string, std::vector<double>> ptxas;
  for (int i = 0; i < runs; ++i) {
    mlir::DialectRegistry registry;
    registerTileModuleDialects(registry);
    mlir::MLIRContext ctx(registry);
    double t0 = nowMs();
    auto module = parseTileModule(source, ctx);
    if (!module)
      return ", \"breakdown_error\": \"parse failed\"";
    parse.push_back(nowMs() - t0);
  }
  const char *old = std::getenv("TESSERA_PTXAS");
  std::string saved = old ? old : "";
  setenv("TESSERA_PTXAS", "none", 1);
  for (int i = 0; i < runs; ++i)
    ptxOnly.push_back(compileInProcess(
        source, dir + "/ptx" + std::to_string(fresh++), nullptr));
  if (old)
    setenv("TESSERA_PTXAS", saved.c_str(), 1);
  else
    unsetenv("TESSERA_PTXAS");
  std::string dump = dir + "/dump";
  mkdir(dump.c_str(), 0755);
  if (compileInProcess(source, dir + "/dumpcache", nullptr, dump) < 0)
    return ", \"breakdown_error\": \"dump compile failed\"";
  std::string ll = dump + "/kernel." + chip + ".ll";
  std::string ptx = dump + "/kernel." + chip + ".ptx";
  for (int i = 0; i < runs; ++i)
    codegen.push_back(nvptxCodegenMs(ll, chip));
  std::string tool = findPtxas(), cubin = dir + "/out.cubin";
  std::vector<std::pair<std::string, std::string>> variants = {
      {"ptxas_ms", "-O3"},
      {"ptxas_ofast_compile_max_ms", "--Ofast-compile=max"},
      {"ptxas_O0_ms", "-O0"}};
  for (int i = 0; i < runs; ++i)
    for (auto &[key, flag] : variants)
      ptxas[key].push_back(
          runProcess({tool, "-arch=" + chip, flag, ptx, "-o", cubin}));
  char buf[512];
  std::snprintf(buf, sizeof buf,
                ", \"parse_verify_ms\": %.2f, \"in_process_cold_ptx_only_ms\": "
                "%.2f, \"nvptx_codegen_ms\": %.2f",
                median(parse), median(ptxOnly), median(codegen));
  std::string json = buf;
  for (auto &[key, flag] : variants) {
    std::snprintf(buf, sizeof buf, ", \"%s\": %.2f", key.c_str(),
                  median(ptxas[key]));
    json += buf;
  }
  return json;
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
    else if (a == "--target" && i + 1 < argc)
      gTarget = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: %s [--runs N] [--process-runs N] [--kernel k.mlir] "
                   "[--target triple:chip]\n",
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
      std::fprintf(stderr, "cached compile failed (cache: %s)\n",
                   state.c_str());
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
    pNoCompiler.push_back(
        compileProcess(source, warmP, out, /*noCompiler=*/true));
  for (int i = 0; i < processRuns; ++i)
    pHelp.push_back(helpProcess());
  if (std::count(pCold.begin(), pCold.end(), -1.0) ||
      std::count(pCached.begin(), pCached.end(), -1.0) ||
      std::count(pNoCompiler.begin(), pNoCompiler.end(), -1.0) ||
      std::count(pHelp.begin(), pHelp.end(), -1.0)) {
    std::fprintf(stderr, "a `tessera compile` process failed\n");
    return 1;
  }
  std::string breakdown;
  if (gTarget.rfind("nvptx", 0) == 0)
    breakdown = nvptxBreakdown(source, dir, runs, fresh);
  std::string rm = "rm -rf '" + dir + "'";
  (void)std::system(rm.c_str());

  std::printf(
      "{\"bench\": \"compile_latency\", \"kernel\": \"%s\", \"target\": "
      "\"%s\", \"runs\": %d, \"first_cold_ms\": %.2f, "
      "\"in_process_cold_ms\": %.2f, \"in_process_cached_ms\": %.3f, "
      "\"process_cold_ms\": %.2f, \"process_runs\": %d, "
      "\"process_cached_ms\": %.2f, \"process_cached_min_ms\": %.2f, "
      "\"process_cached_p90_ms\": %.2f, "
      "\"process_cached_no_compiler_ms\": %.2f, "
      "\"process_help_ms\": %.2f%s}\n",
      source.c_str(), gTarget.empty() ? "host" : gTarget.c_str(), runs, first,
      median(cold), median(cached), median(pCold), processRuns, median(pCached),
      percentile(pCached, 0.0), percentile(pCached, 0.9), median(pNoCompiler),
      median(pHelp), breakdown.c_str());
  return 0;
}
