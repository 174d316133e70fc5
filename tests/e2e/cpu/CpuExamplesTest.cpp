//===- CpuExamplesTest.cpp - every example, compiled and run on the CPU ---===//
//
// Each test compiles one example with `tessera compile` (host target, no
// cache), loads the bundle on the runtime's CPU device and runs it on fresh
// random inputs at shapes that are not multiples of the kernel's tiles. The
// outputs are poisoned (NaN) before every launch, so an element the kernel
// fails to write fails the comparison. References are plain C++ loops in
// double precision over the same (already rounded) inputs the kernel sees.
//
// Tolerances are relative 2-norm errors, ||got - ref|| / ||ref||:
//   f32 GEMM       1e-5   f32 accumulation over K <= 1000 terms gives a
//                         relative error of about sqrt(K) * 2^-24 ~ 2e-6.
//   f16 GEMM       2e-3   f32 accumulation, then one rounding of the result
//                         to f16 (unit roundoff 2^-11 ~ 4.9e-4 per element).
//   elementwise    1e-6   one f32 rounding per element (2^-24 ~ 6e-8).
//   softmax        2e-5   exp is an inline polynomial approximation (a few
//                         f32 ulps) plus f32 sums over <= 4097 terms.
//   rmsnorm        2e-5   f32 sum of squares over <= 4097 terms, rsqrt.
//   flash attn     5e-3   f16 inputs and output (2^-11 each), P rounded to
//                         f16 before P*V, polynomial exp, f32 accumulation.
//
//===----------------------------------------------------------------------===//

#include "E2EHelpers.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>

using namespace e2e;

namespace {

using half = _Float16;

/// Compiles an example once per process and loads it on the CPU device.
class Example {
public:
  explicit Example(const std::string &name, std::string source = "")
      : name_(name) {
    if (source.empty())
      source = examplePath(name);
    std::string out = dir().file(name + ".tsb");
    CommandResult r =
        runCommand(std::string("TESSERA_PLUGIN_PATH='") + TESSERA_PLUGIN_DIR +
                   "' '" TESSERA_TOOL "' compile '" + source +
                   "' --no-cache -o '" + out + "'" + rt().targetOption());
    compileLog_ = r.output;
    if (r.exitCode != 0)
      return;
    module_ = rt().device().loadBundle(out);
  }
  bool ok() const { return static_cast<bool>(module_); }
  const std::string &log() const { return compileLog_; }
  tessera::Kernel kernel() const { return module_.kernel(name_); }

  static CpuRuntime &rt() {
    static CpuRuntime *runtime = new CpuRuntime();
    return *runtime;
  }

private:
  static TempDir &dir() {
    static TempDir *d = new TempDir();
    return *d;
  }
  std::string name_, compileLog_;
  tessera::Module module_;
};

Example &example(const std::string &name, const std::string &source = "") {
  static std::map<std::string, std::unique_ptr<Example>> compiled;
  auto &slot = compiled[name];
  if (!slot)
    slot = std::make_unique<Example>(name, source);
  return *slot;
}

#define REQUIRE_EXAMPLE(var, name)                                             \
  E2E_REQUIRE_DEVICE(Example::rt());                                           \
  Example &var = example(name);                                                \
  ASSERT_TRUE(var.ok()) << "compiling " name " failed:\n" << var.log()

/// Fresh inputs per case: every call draws from a generator seeded anew.
std::mt19937_64 &rng() {
  static std::mt19937_64 gen(20240611);
  return gen;
}

template <typename T>
std::vector<T> randomVector(size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> v(n);
  for (T &x : v)
    x = static_cast<T>(dist(rng()));
  return v;
}

template <typename T> tessera_dtype_t dtypeOf();
template <> tessera_dtype_t dtypeOf<float>() { return TESSERA_DTYPE_F32; }
template <> tessera_dtype_t dtypeOf<half>() { return TESSERA_DTYPE_F16; }

template <typename T> std::vector<double> toDouble(const std::vector<T> &v) {
  return std::vector<double>(v.begin(), v.end());
}

/// A device buffer holding a host vector.
template <typename T> tessera::Buffer upload(const std::vector<T> &host) {
  tessera::Buffer b = Example::rt().device().alloc(host.size() * sizeof(T));
  if (!host.empty())
    b.write(host.data(), host.size() * sizeof(T));
  return b;
}

/// A device buffer of n elements, all NaN.
template <typename T> tessera::Buffer poisoned(size_t n) {
  return upload(std::vector<T>(n, static_cast<T>(NAN)));
}

template <typename T>
std::vector<T> download(const tessera::Buffer &b, size_t n) {
  std::vector<T> host(n);
  if (n)
    b.read(host.data(), n * sizeof(T));
  return host;
}

//===----------------------------------------------------------------------===//
// GEMM: gemm (f16), gemm_relu (f16), gemm_f32
//===----------------------------------------------------------------------===//

struct GemmShape {
  int64_t m, n, k;
};
const GemmShape kGemmShapes[] = {
    {1000, 1000, 1000}, {1, 1, 1},     {17, 17, 17},  {17, 1000, 33},
    {1000, 17, 5},      {33, 65, 129}, {128, 128, 32}};

template <typename T> void runGemm(Example &ex, bool relu, double tolerance) {
  for (const GemmShape &s : kGemmShapes) {
    SCOPED_TRACE("M=" + std::to_string(s.m) + " N=" + std::to_string(s.n) +
                 " K=" + std::to_string(s.k));
    std::vector<T> a = randomVector<T>(s.m * s.k, -1, 1);
    std::vector<T> b = randomVector<T>(s.k * s.n, -1, 1);
    tessera::Buffer A = upload(a), B = upload(b), C = poisoned<T>(s.m * s.n);
    ex.kernel().launch({A.tensor(dtypeOf<T>(), {s.m, s.k}),
                        B.tensor(dtypeOf<T>(), {s.k, s.n}),
                        C.tensor(dtypeOf<T>(), {s.m, s.n})});
    std::vector<double> ref(s.m * s.n, 0.0), ad = toDouble(a), bd = toDouble(b);
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t kk = 0; kk < s.k; ++kk) {
        double av = ad[i * s.k + kk];
        for (int64_t j = 0; j < s.n; ++j)
          ref[i * s.n + j] += av * bd[kk * s.n + j];
      }
    if (relu)
      for (double &x : ref)
        x = x > 0 ? x : 0;
    double err = relError(toDouble(download<T>(C, s.m * s.n)), ref);
    EXPECT_LE(err, tolerance);
  }
}

TEST(CpuExamples, GemmF16) {
  REQUIRE_EXAMPLE(ex, "gemm");
  runGemm<half>(ex, /*relu=*/false, 2e-3);
}

TEST(CpuExamples, GemmReluF16) {
  REQUIRE_EXAMPLE(ex, "gemm_relu");
  runGemm<half>(ex, /*relu=*/true, 2e-3);
}

TEST(CpuExamples, GemmF32) {
  REQUIRE_EXAMPLE(ex, "gemm_f32");
  runGemm<float>(ex, /*relu=*/false, 1e-5);
}

/// Not an example: Inputs/gemm_at_bf16.mlir covers the gemm micro-kernel's
/// transpose_a and bf16 widening (C = A^T B, A stored [K, M]). Tolerance
/// 1e-5: the bf16 inputs are exact in f32, so only f32 accumulation error.
TEST(CpuExamples, GemmTransposeABf16) {
  E2E_REQUIRE_DEVICE(Example::rt());
  Example &ex =
      example("gemm_at_bf16", TESSERA_E2E_INPUTS "/gemm_at_bf16.mlir");
  ASSERT_TRUE(ex.ok()) << ex.log();
  auto toBf16 = [](float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u += 0x7fff + ((u >> 16) & 1); // round to nearest even
    return static_cast<uint16_t>(u >> 16);
  };
  auto fromBf16 = [](uint16_t h) {
    uint32_t u = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return double(f);
  };
  for (const GemmShape &s : kGemmShapes) {
    SCOPED_TRACE("M=" + std::to_string(s.m) + " N=" + std::to_string(s.n) +
                 " K=" + std::to_string(s.k));
    std::vector<uint16_t> a(s.k * s.m), b(s.k * s.n);
    std::vector<float> ar = randomVector<float>(a.size(), -1, 1),
                       br = randomVector<float>(b.size(), -1, 1);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = toBf16(ar[i]);
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = toBf16(br[i]);
    tessera::Buffer A = upload(a), B = upload(b),
                    C = poisoned<float>(s.m * s.n);
    ex.kernel().launch({A.tensor(TESSERA_DTYPE_BF16, {s.k, s.m}),
                        B.tensor(TESSERA_DTYPE_BF16, {s.k, s.n}),
                        C.tensor(TESSERA_DTYPE_F32, {s.m, s.n})});
    std::vector<double> ref(s.m * s.n, 0.0);
    for (int64_t kk = 0; kk < s.k; ++kk)
      for (int64_t i = 0; i < s.m; ++i) {
        double av = fromBf16(a[kk * s.m + i]);
        for (int64_t j = 0; j < s.n; ++j)
          ref[i * s.n + j] += av * fromBf16(b[kk * s.n + j]);
      }
    EXPECT_LE(relError(toDouble(download<float>(C, s.m * s.n)), ref), 1e-5);
  }
}

//===----------------------------------------------------------------------===//
// Element-wise add
//===----------------------------------------------------------------------===//

TEST(CpuExamples, ElementwiseAdd) {
  REQUIRE_EXAMPLE(ex, "elementwise_add");
  for (int64_t n : {4097, 1, 17, 1024, 3000}) {
    SCOPED_TRACE("N=" + std::to_string(n));
    std::vector<float> a = randomVector<float>(n, -10, 10);
    std::vector<float> b = randomVector<float>(n, -10, 10);
    tessera::Buffer A = upload(a), B = upload(b), C = poisoned<float>(n);
    ex.kernel().launch({A.tensor(TESSERA_DTYPE_F32, {n}),
                        B.tensor(TESSERA_DTYPE_F32, {n}),
                        C.tensor(TESSERA_DTYPE_F32, {n})});
    std::vector<double> ref(n);
    for (int64_t i = 0; i < n; ++i)
      ref[i] = double(a[i]) + double(b[i]);
    EXPECT_LE(relError(toDouble(download<float>(C, n)), ref), 1e-6);
  }
}

//===----------------------------------------------------------------------===//
// Row-wise kernels: softmax, rmsnorm
//===----------------------------------------------------------------------===//

const std::pair<int64_t, int64_t> kRowShapes[] = {
    {17, 1000}, {1, 1}, {33, 4097}, {4, 1024}, {5, 2048}, {3, 1}};

TEST(CpuExamples, Softmax) {
  REQUIRE_EXAMPLE(ex, "softmax");
  for (auto [m, n] : kRowShapes) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    std::vector<float> x = randomVector<float>(m * n, -8, 8);
    tessera::Buffer X = upload(x), Y = poisoned<float>(m * n);
    ex.kernel().launch({X.tensor(TESSERA_DTYPE_F32, {m, n}),
                        Y.tensor(TESSERA_DTYPE_F32, {m, n})});
    std::vector<double> ref(m * n);
    for (int64_t r = 0; r < m; ++r) {
      double mx = -INFINITY, sum = 0;
      for (int64_t c = 0; c < n; ++c)
        mx = std::max(mx, double(x[r * n + c]));
      for (int64_t c = 0; c < n; ++c)
        sum += std::exp(double(x[r * n + c]) - mx);
      for (int64_t c = 0; c < n; ++c)
        ref[r * n + c] = std::exp(double(x[r * n + c]) - mx) / sum;
    }
    EXPECT_LE(relError(toDouble(download<float>(Y, m * n)), ref), 2e-5);
  }
}

TEST(CpuExamples, RmsNorm) {
  REQUIRE_EXAMPLE(ex, "rmsnorm");
  const float eps = 1e-5f;
  for (auto [m, n] : kRowShapes) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    std::vector<float> x = randomVector<float>(m * n, -3, 3);
    std::vector<float> w = randomVector<float>(n, 0.5, 1.5);
    tessera::Buffer X = upload(x), W = upload(w), Y = poisoned<float>(m * n);
    ex.kernel().launch(
        {X.tensor(TESSERA_DTYPE_F32, {m, n}), W.tensor(TESSERA_DTYPE_F32, {n}),
         Y.tensor(TESSERA_DTYPE_F32, {m, n}), tessera_arg_f32(eps)});
    std::vector<double> ref(m * n);
    for (int64_t r = 0; r < m; ++r) {
      double ss = 0;
      for (int64_t c = 0; c < n; ++c)
        ss += double(x[r * n + c]) * double(x[r * n + c]);
      double scale = 1.0 / std::sqrt(ss / double(n) + double(eps));
      for (int64_t c = 0; c < n; ++c)
        ref[r * n + c] = double(x[r * n + c]) * scale * double(w[c]);
    }
    EXPECT_LE(relError(toDouble(download<float>(Y, m * n)), ref), 2e-5);
  }
}

//===----------------------------------------------------------------------===//
// Flash attention forward (f16, head dim 128)
//===----------------------------------------------------------------------===//

struct AttnShape {
  int64_t batch, heads, seq;
  bool causal;
};

TEST(CpuExamples, FlashAttentionFwd) {
  REQUIRE_EXAMPLE(ex, "flash_attention_fwd");
  constexpr int64_t D = 128;
  const AttnShape shapes[] = {{1, 2, 1000, true}, {2, 2, 1000, false},
                              {1, 2, 1, false},   {1, 2, 1, true},
                              {2, 2, 17, true},   {1, 1, 17, false},
                              {1, 2, 65, true}};
  const float smScale = 1.0f / std::sqrt(float(D));
  for (const AttnShape &s : shapes) {
    SCOPED_TRACE(
        "B=" + std::to_string(s.batch) + " H=" + std::to_string(s.heads) +
        " S=" + std::to_string(s.seq) + (s.causal ? " causal" : " full"));
    size_t count = s.batch * s.heads * s.seq * D;
    // Scores Q.K * sm_scale of order 1..3: the softmax is neither flat nor
    // one-hot.
    std::vector<half> q = randomVector<half>(count, -2, 2);
    std::vector<half> k = randomVector<half>(count, -2, 2);
    std::vector<half> v = randomVector<half>(count, -1, 1);
    tessera::Buffer Q = upload(q), K = upload(k), V = upload(v),
                    O = poisoned<half>(count);
    std::vector<int64_t> dims = {s.batch, s.heads, s.seq, D};
    ex.kernel().launch(
        {Q.tensor(TESSERA_DTYPE_F16, dims), K.tensor(TESSERA_DTYPE_F16, dims),
         V.tensor(TESSERA_DTYPE_F16, dims), O.tensor(TESSERA_DTYPE_F16, dims),
         tessera_arg_i64(TESSERA_DTYPE_I32, s.causal ? 1 : 0),
         tessera_arg_f32(smScale)});
    std::vector<double> ref(count), scores(s.seq);
    std::vector<double> qd = toDouble(q), kd = toDouble(k), vd = toDouble(v);
    for (int64_t bh = 0; bh < s.batch * s.heads; ++bh) {
      const double *qb = &qd[bh * s.seq * D], *kb = &kd[bh * s.seq * D],
                   *vb = &vd[bh * s.seq * D];
      for (int64_t i = 0; i < s.seq; ++i) {
        int64_t keys = s.causal ? i + 1 : s.seq;
        double mx = -INFINITY;
        for (int64_t j = 0; j < keys; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += qb[i * D + d] * kb[j * D + d];
          scores[j] = dot * double(smScale);
          mx = std::max(mx, scores[j]);
        }
        double sum = 0;
        for (int64_t j = 0; j < keys; ++j)
          sum += scores[j] = std::exp(scores[j] - mx);
        double *o = &ref[(bh * s.seq + i) * D];
        for (int64_t j = 0; j < keys; ++j)
          for (int64_t d = 0; d < D; ++d)
            o[d] += scores[j] / sum * vb[j * D + d];
      }
    }
    EXPECT_LE(relError(toDouble(download<half>(O, count)), ref), 5e-3);
  }
}

//===----------------------------------------------------------------------===//
// Bad launches: precise errors, no launch, no crash
//===----------------------------------------------------------------------===//

/// Launches and returns the error message ("" when it succeeded).
std::string launchError(const tessera::Kernel &kernel,
                        const std::vector<tessera_arg> &args,
                        tessera_status_code_t *code = nullptr) {
  try {
    kernel.launch(args);
  } catch (const tessera::Error &e) {
    if (code)
      *code = e.code();
    return e.what();
  }
  return "";
}

TEST(CpuExamples, BadLaunchesFailWithPreciseErrors) {
  REQUIRE_EXAMPLE(ex, "gemm_f32");
  const int64_t M = 40, N = 30, K = 20;
  tessera::Buffer A = upload(randomVector<float>(M * K, -1, 1));
  tessera::Buffer B = upload(randomVector<float>(K * N, -1, 1));
  tessera::Buffer C = poisoned<float>(M * N);
  tessera::Kernel kernel = ex.kernel();

  tessera_status_code_t code = TESSERA_OK;
  EXPECT_EQ(launchError(kernel,
                        {A.tensor(TESSERA_DTYPE_F16, {M, K}),
                         B.tensor(TESSERA_DTYPE_F32, {K, N}),
                         C.tensor(TESSERA_DTYPE_F32, {M, N})},
                        &code),
            "kernel 'gemm_f32': argument 'A' must be f32, got f16");
  EXPECT_EQ(code, TESSERA_INVALID_ARGUMENT);

  EXPECT_EQ(launchError(kernel, {A.tensor(TESSERA_DTYPE_F32, {M, K}),
                                 B.tensor(TESSERA_DTYPE_F32, {K * N}),
                                 C.tensor(TESSERA_DTYPE_F32, {M, N})}),
            "kernel 'gemm_f32': argument 'B' must have rank 2, got 1");

  EXPECT_EQ(launchError(kernel, {A.tensor(TESSERA_DTYPE_F32, {M, K}),
                                 B.tensor(TESSERA_DTYPE_F32, {K, N}),
                                 C.tensor(TESSERA_DTYPE_F32, {M - 1, N})}),
            "kernel 'gemm_f32': dimension M is 40 in argument 'A' but 39 in "
            "argument 'C'");

  EXPECT_EQ(launchError(kernel, {A.tensor(TESSERA_DTYPE_F32, {M, K}),
                                 B.tensor(TESSERA_DTYPE_F32, {K + 1, N}),
                                 C.tensor(TESSERA_DTYPE_F32, {M, N})}),
            "kernel 'gemm_f32': dimension K is 20 in argument 'A' but 21 in "
            "argument 'B'");

  EXPECT_EQ(launchError(kernel, {A.tensor(TESSERA_DTYPE_F32, {M, K}),
                                 B.tensor(TESSERA_DTYPE_F32, {K, N}),
                                 C.tensor(TESSERA_DTYPE_F32, {M, N}),
                                 tessera_arg_f32(1.0f)}),
            "kernel 'gemm_f32': takes 3 arguments, got 4");

  // A tensor larger than its buffer.
  EXPECT_EQ(launchError(kernel, {A.tensor(TESSERA_DTYPE_F32, {M, K}),
                                 B.tensor(TESSERA_DTYPE_F32, {K, N}),
                                 A.tensor(TESSERA_DTYPE_F32, {M, N})}),
            "kernel 'gemm_f32': argument 'C' needs bytes up to 4800 but its "
            "buffer has 3200");

  // Nothing ran: C is still all NaN.
  for (float x : download<float>(C, M * N))
    ASSERT_TRUE(std::isnan(x));

  // Scalars: wrong dtype for the flash attention flag.
  REQUIRE_EXAMPLE(fa, "flash_attention_fwd");
  std::vector<int64_t> dims = {1, 1, 4, 128};
  tessera::Buffer Q = upload(randomVector<half>(4 * 128, -1, 1));
  tessera::Buffer O = poisoned<half>(4 * 128);
  EXPECT_EQ(
      launchError(fa.kernel(), {Q.tensor(TESSERA_DTYPE_F16, dims),
                                Q.tensor(TESSERA_DTYPE_F16, dims),
                                Q.tensor(TESSERA_DTYPE_F16, dims),
                                O.tensor(TESSERA_DTYPE_F16, dims),
                                tessera_arg_f32(1.0f), tessera_arg_f32(0.1f)}),
      "kernel 'flash_attention_fwd': argument 'causal' must be i32, "
      "got f32");
  EXPECT_EQ(launchError(fa.kernel(), {Q.tensor(TESSERA_DTYPE_F16, dims),
                                      Q.tensor(TESSERA_DTYPE_F16, dims),
                                      Q.tensor(TESSERA_DTYPE_F16, dims),
                                      O.tensor(TESSERA_DTYPE_F16, dims),
                                      tessera_arg_i64(TESSERA_DTYPE_I32, 1),
                                      tessera_arg_f32(0.1f)})
                .empty(),
            true);
  // The head dim is static (128).
  std::vector<int64_t> bad = {1, 1, 4, 64};
  EXPECT_EQ(launchError(fa.kernel(), {Q.tensor(TESSERA_DTYPE_F16, bad),
                                      Q.tensor(TESSERA_DTYPE_F16, bad),
                                      Q.tensor(TESSERA_DTYPE_F16, bad),
                                      O.tensor(TESSERA_DTYPE_F16, bad),
                                      tessera_arg_i64(TESSERA_DTYPE_I32, 1),
                                      tessera_arg_f32(0.1f)}),
            "kernel 'flash_attention_fwd': argument 'Q' must have dimension 3 "
            "equal to 128, got 64");
}

} // namespace
