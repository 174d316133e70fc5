//===- GemmBench.cpp - tessera f32 GEMM on the CPU against OpenBLAS -------===//
//
//   tessera-bench-cpu-gemm [--sizes 256,512,1024,2048] [--threads 1,2]
//
// Compiles examples/gemm_f32.mlir for the host with `tessera compile`, then
// runs one child process per thread count: TESSERA_CPU_THREADS is read once,
// when the CPU plugin initializes, so each thread count needs a fresh
// process. The child sets OpenBLAS to the same thread count
// (openblas_set_num_threads), times both GEMMs on the same inputs (best of
// several runs after a warm-up), checks that they agree, and prints one JSON
// object per size. The parent prints a JSON array of all of them.
//
//===----------------------------------------------------------------------===//

#include "tessera/runtime.hpp"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

/// Best time in seconds of `fn` over enough runs to fill ~0.6 s (>= 3 runs).
template <typename Fn> double bestTime(Fn fn) {
  fn(); // warm-up
  double best = 1e30, total = 0;
  for (int i = 0; i < 3 || (total < 0.6 && i < 200); ++i) {
    double t0 = seconds();
    fn();
    double dt = seconds() - t0;
    best = std::min(best, dt);
    total += dt;
  }
  return best;
}

int child(const std::string &bundle, int threads, const std::vector<int> &sizes) {
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
  tessera::Kernel kernel = module.kernel("gemm_f32");
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
    double tTessera = bestTime([&] { kernel.launch(args); });
    double tBlas = bestTime([&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                  a.data(), n, b.data(), n, 0.0f, ref.data(), n);
    });
    C.read(c.data(), count * 4);
    double num = 0, den = 0;
    for (size_t i = 0; i < count; ++i) {
      num += double(c[i] - ref[i]) * (c[i] - ref[i]);
      den += double(ref[i]) * ref[i];
    }
    double flops = 2.0 * n * n * n;
    double gT = flops / tTessera * 1e-9, gB = flops / tBlas * 1e-9;
    std::printf("%s  {\"bench\": \"cpu_gemm_f32\", \"size\": %d, \"threads\": "
                "%d, \"tessera_gflops\": %.2f, \"openblas_gflops\": %.2f, "
                "\"ratio\": %.3f, \"tessera_ms\": %.3f, \"openblas_ms\": %.3f, "
                "\"rel_error\": %.2e}",
                first ? "" : ",\n", n, threads, gT, gB, gT / gB,
                tTessera * 1e3, tBlas * 1e3, std::sqrt(num / den));
    std::fflush(stdout);
    first = false;
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<int> sizes = {256, 512, 1024, 2048}, threads = {1, 2};
  std::string bundle;
  int childThreads = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--sizes" && i + 1 < argc)
      sizes = parseList(argv[++i]);
    else if (a == "--threads" && i + 1 < argc)
      threads = parseList(argv[++i]);
    else if (a == "--child" && i + 2 < argc) {
      childThreads = std::atoi(argv[++i]);
      bundle = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--sizes 256,512] [--threads 1,2]\n",
                   argv[0]);
      return 2;
    }
  }
  try {
    if (childThreads)
      return child(bundle, childThreads, sizes);
  } catch (const tessera::Error &e) {
    std::fprintf(stderr, "tessera: %s\n", e.what());
    return 1;
  }

  char dir[] = "/tmp/tessera-bench-XXXXXX";
  if (!mkdtemp(dir))
    return 1;
  bundle = std::string(dir) + "/gemm_f32.tsb";
  std::string cmd = std::string("TESSERA_PLUGIN_PATH='") + TESSERA_PLUGIN_DIR +
                    "' '" TESSERA_TOOL "' compile '" TESSERA_EXAMPLES_DIR
                    "/gemm_f32.mlir' --no-cache -o '" + bundle + "'";
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "compiling gemm_f32.mlir failed\n");
    return 1;
  }
  std::string sizeList;
  for (int s : sizes)
    sizeList += (sizeList.empty() ? "" : ",") + std::to_string(s);
  std::printf("[\n");
  bool first = true;
  for (int t : threads) {
    std::fflush(stdout);
    if (!first)
      std::printf(",\n");
    std::fflush(stdout);
    first = false;
    pid_t pid = fork();
    if (pid == 0) {
      setenv("TESSERA_CPU_THREADS", std::to_string(t).c_str(), 1);
      std::string ts = std::to_string(t);
      execl("/proc/self/exe", argv[0], "--sizes", sizeList.c_str(), "--child",
            ts.c_str(), bundle.c_str(), (char *)nullptr);
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "benchmark child with %d threads failed\n", t);
      return 1;
    }
  }
  std::printf("\n]\n");
  std::remove(bundle.c_str());
  rmdir(dir);
  return 0;
}
