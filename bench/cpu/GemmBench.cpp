//===- GemmBench.cpp - tessera f32 GEMM on the CPU against OpenBLAS -------===//
//
//   tessera-bench-cpu-gemm [--sizes 256,512,1024,2048] [--threads 1,2]
//                          [--rounds 5] [--kernel a.mlir,b.mlir]
//
// Compiles examples/gemm_f32.mlir (the portable example, 64x64x32 tiles),
// bench/cpu/gemm_f32_cpu.mlir (the same program with CPU tiles, 128x256x64)
// and bench/cpu/linear_f32_nt_cpu.mlir (C = A * W^T with W stored [N, K], the
// transposed-B linear layer, same tiles) -- or the --kernel files: any
// tile.func with one of those signatures, C = A * B on f32 [M,K] x [K,N] or
// C = A * B^T on f32 [M,K] x [N,K] (told apart by B's type, and compared
// with sgemm with CblasTrans) -- for the host with `tessera compile`, then for
// each runs one child process per thread count: TESSERA_CPU_THREADS is read
// once, when the CPU plugin initializes, so each thread count needs a fresh
// process. The child sets OpenBLAS to the same thread count
// (openblas_set_num_threads) and, after a warm-up of each, times both GEMMs on
// the same inputs in interleaved rounds (tessera, OpenBLAS, tessera, ...; each
// round the best of two runs), so both see the same machine load. It reports
// the medians over the rounds (GFLOP/s of each and the median of the per-round
// ratios), the best of each, the load average before and after, checks that
// they agree, and prints one JSON object per size. The parent prints a JSON
// array of all of them, and exits non-zero if any result differs from
// OpenBLAS's by a relative error above 1e-4.
//
//===----------------------------------------------------------------------===//

#include "tessera/runtime.hpp"

#include <cblas.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern "C" void openblas_set_num_threads(int);

namespace {

std::vector<int> parseList(const std::string &s) {
  std::vector<int> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    v.push_back(std::atoi(item.c_str()));
  return v;
}

double seconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Best time in seconds of `fn` over `runs` runs, at least ~`minSeconds` in
/// all (small sizes take many runs).
template <typename Fn> double bestTime(Fn fn, int runs, double minSeconds) {
  double best = 1e30, total = 0;
  for (int i = 0; i < runs || (total < minSeconds && i < 200); ++i) {
    double t0 = seconds();
    fn();
    double dt = seconds() - t0;
    best = std::min(best, dt);
    total += dt;
  }
  return best;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double loadAverage() {
  double l = -1;
  if (FILE *f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &l) != 1)
      l = -1;
    std::fclose(f);
  }
  return l;
}

/// The name of the first tile.func in `path`.
std::string kernelName(const std::string &path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  size_t at = text.find("tile.func @");
  if (at == std::string::npos)
    return "gemm_f32";
  at += 11;
  size_t end = at;
  while (end < text.size() &&
         (std::isalnum((unsigned char)text[end]) || text[end] == '_'))
    ++end;
  return text.substr(at, end - at);
}

/// Whether the first tile.func's second argument is a [N, K] tensor, i.e.
/// the kernel computes A * B^T.
bool transposedB(const std::string &path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  size_t at = text.find("tile.func @");
  if (at == std::string::npos)
    return false;
  size_t first = text.find("!tile.tensor<", at);
  size_t second = text.find("!tile.tensor<", first + 1);
  return second != std::string::npos &&
         text.compare(second, 20, "!tile.tensor<[N, K],") == 0;
}

std::vector<std::string> splitList(const std::string &s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty())
      v.push_back(item);
  return v;
}

std::string baseName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

int child(const std::string &bundle, const std::string &source, int threads,
          const std::vector<int> &sizes, int rounds) {
  std::string name = kernelName(source);
  bool transB = transposedB(source);
  tessera_runtime_options options = {};
  options.plugin_path = TESSERA_PLUGIN_DIR;
  tessera::Runtime rt = tessera::Runtime::create(&options);
  tessera_device_t cpu = nullptr;
  for (const tessera::Device &d : rt.devices())
    if (std::string(d.info().plugin) == "cpu")
      cpu = d.get();
  if (!cpu) {
    std::fprintf(stderr, "no CPU device\n");
    return 1;
  }
  tessera::Device dev(cpu);
  tessera::Module module = dev.loadBundle(bundle);
  tessera::Kernel kernel = module.kernel(name);
  openblas_set_num_threads(threads);
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  bool first = true;
  for (int n : sizes) {
    size_t count = size_t(n) * n;
    std::vector<float> a(count), b(count), c(count), ref(count);
    for (float &x : a)
      x = dist(gen);
    for (float &x : b)
      x = dist(gen);
    tessera::Buffer A = dev.alloc(count * 4), B = dev.alloc(count * 4),
                    C = dev.alloc(count * 4);
    A.write(a.data(), count * 4);
    B.write(b.data(), count * 4);
    int64_t N = n;
    std::vector<tessera_arg> args = {A.tensor(TESSERA_DTYPE_F32, {N, N}),
                                     B.tensor(TESSERA_DTYPE_F32, {N, N}),
                                     C.tensor(TESSERA_DTYPE_F32, {N, N})};
    auto runTessera = [&] { kernel.launch(args); };
    auto runBlas = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans,
                  transB ? CblasTrans : CblasNoTrans, n, n, n, 1.0f, a.data(),
                  n, b.data(), n, 0.0f, ref.data(), n);
    };
    double flops = 2.0 * n * n * n;
    double load0 = loadAverage();
    runTessera(); // warm-ups
    runBlas();
    std::vector<double> gTs, gBs, ratios;
    for (int r = 0; r < rounds; ++r) {
      double gT = flops / bestTime(runTessera, 2, 0.1) * 1e-9;
      double gB = flops / bestTime(runBlas, 2, 0.1) * 1e-9;
      gTs.push_back(gT);
      gBs.push_back(gB);
      ratios.push_back(gT / gB);
    }
    double load1 = loadAverage();
    C.read(c.data(), count * 4);
    double num = 0, den = 0;
    for (size_t i = 0; i < count; ++i) {
      num += double(c[i] - ref[i]) * (c[i] - ref[i]);
      den += double(ref[i]) * ref[i];
    }
    double gT = median(gTs), gB = median(gBs);
    double relError = std::sqrt(num / den);
    std::printf("%s  {\"bench\": \"cpu_gemm_f32\", \"kernel\": \"%s\", "
                "\"b\": \"%s\", "
                "\"size\": %d, \"threads\": %d, \"rounds\": %d, "
                "\"tessera_gflops\": %.2f, \"openblas_gflops\": %.2f, "
                "\"ratio\": %.3f, \"tessera_best_gflops\": %.2f, "
                "\"openblas_best_gflops\": %.2f, \"tessera_ms\": %.3f, "
                "\"openblas_ms\": %.3f, \"load_before\": %.2f, "
                "\"load_after\": %.2f, \"rel_error\": %.2e}",
                first ? "" : ",\n", baseName(source).c_str(),
                transB ? "transposed" : "row-major", n, threads, rounds, gT, gB,
                median(ratios), *std::max_element(gTs.begin(), gTs.end()),
                *std::max_element(gBs.begin(), gBs.end()), flops / gT * 1e-6,
                flops / gB * 1e-6, load0, load1, relError);
    std::fflush(stdout);
    first = false;
    if (!(relError <= 1e-4)) {
      std::fprintf(stderr,
                   "%s: size %d: relative error %.2e against OpenBLAS\n",
                   source.c_str(), n, relError);
      return 1;
    }
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<int> sizes = {256, 512, 1024, 2048}, threads = {1, 2};
  std::string bundle, source;
  std::vector<std::string> sources = {TESSERA_EXAMPLES_DIR "/gemm_f32.mlir",
                                      TESSERA_BENCH_DIR "/gemm_f32_cpu.mlir",
                                      TESSERA_BENCH_DIR
                                      "/linear_f32_nt_cpu.mlir"};
  int childThreads = 0, rounds = 5;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--sizes" && i + 1 < argc)
      sizes = parseList(argv[++i]);
    else if (a == "--threads" && i + 1 < argc)
      threads = parseList(argv[++i]);
    else if (a == "--rounds" && i + 1 < argc)
      rounds = std::max(1, std::atoi(argv[++i]));
    else if (a == "--kernel" && i + 1 < argc)
      sources = splitList(argv[++i]);
    else if (a == "--child" && i + 2 < argc) {
      childThreads = std::atoi(argv[++i]);
      bundle = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: %s [--sizes 256,512] [--threads 1,2] [--rounds 5] "
                   "[--kernel a.mlir,b.mlir]\n",
                   argv[0]);
      return 2;
    }
  }
  try {
    if (childThreads)
      return child(bundle, sources.at(0), childThreads, sizes, rounds);
  } catch (const tessera::Error &e) {
    std::fprintf(stderr, "tessera: %s\n", e.what());
    return 1;
  }

  char dir[] = "/tmp/tessera-bench-XXXXXX";
  if (!mkdtemp(dir))
    return 1;
  std::string sizeList;
  for (int s : sizes)
    sizeList += (sizeList.empty() ? "" : ",") + std::to_string(s);
  std::printf("[\n");
  bool first = true;
  int rc = 0;
  for (size_t ki = 0; ki < sources.size() && rc == 0; ++ki) {
    source = sources[ki];
    bundle = std::string(dir) + "/kernel" + std::to_string(ki) + ".tsb";
    std::string cmd = std::string("TESSERA_PLUGIN_PATH='") +
                      TESSERA_PLUGIN_DIR + "' '" TESSERA_TOOL "' compile '" +
                      source + "' --no-cache -o '" + bundle + "'";
    std::fflush(stdout);
    if (std::system(cmd.c_str()) != 0) {
      std::fprintf(stderr, "compiling %s failed\n", source.c_str());
      rc = 1;
      break;
    }
    for (int t : threads) {
      std::fflush(stdout);
      if (!first)
        std::printf(",\n");
      std::fflush(stdout);
      first = false;
      pid_t pid = fork();
      if (pid == 0) {
        setenv("TESSERA_CPU_THREADS", std::to_string(t).c_str(), 1);
        std::string ts = std::to_string(t), rs = std::to_string(rounds);
        execl("/proc/self/exe", argv[0], "--sizes", sizeList.c_str(),
              "--rounds", rs.c_str(), "--kernel", source.c_str(), "--child",
              ts.c_str(), bundle.c_str(), (char *)nullptr);
        _exit(127);
      }
      int status = 0;
      waitpid(pid, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "benchmark child (%s, %d threads) failed\n",
                     source.c_str(), t);
        rc = 1;
        break;
      }
    }
    std::remove(bundle.c_str());
  }
  std::printf("\n]\n");
  rmdir(dir);
  return rc;
}
