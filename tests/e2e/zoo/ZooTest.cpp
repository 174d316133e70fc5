//===- ZooTest.cpp - the kernel zoo, compiled and run on the CPU ----------===//
//
// Every kernel of examples/zoo is compiled with `tessera compile` (host
// target, no cache), loaded on the runtime's CPU device and run on fresh
// random inputs at shapes that are not multiples of its tiles (1, 17, 1000,
// 4097 where they apply; smaller ones for the costly attention kernels).
// Outputs are poisoned (NaN, or a sentinel for integers) before each launch,
// so an element the kernel fails to write fails the comparison. References
// are plain C++ loops in double precision over the same (already rounded)
// inputs the kernel sees; they share no code with the kernels or the tile
// interpreter.
//
// Tolerances are relative 2-norm errors ||got - ref|| / ||ref|| unless said
// otherwise:
//   f32 result of f32/bf16/fp8 inputs   2e-5  f32 accumulation over K <= 4097
//                                              terms (~sqrt(K) * 2^-24 ~ 4e-6)
//   f16 result                          2e-3  one f16 rounding (2^-11) per
//                                              element on top
//   bf16 result                         8e-3  one bf16 rounding (2^-8)
//   attention, f16 / bf16 output        5e-3 / 1e-2  P rounded to the input
//                                              type before P V, polynomial exp
//   integer GEMM                        exact
//   top-k ids                           exact (inputs chosen so that the f32
//                                              scores are exact)
//
//===----------------------------------------------------------------------===//

#include "E2EHelpers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <random>

using namespace e2e;

namespace {

using half = _Float16;

//===----------------------------------------------------------------------===//
// Element types: rounding to and decoding from each storage type
//===----------------------------------------------------------------------===//

enum class DType { F32, F16, BF16, F8E4M3, I8, I32 };

size_t bytesOf(DType t) {
  switch (t) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F8E4M3:
  case DType::I8:
    return 1;
  }
  return 0;
}

tessera_dtype_t runtimeType(DType t) {
  switch (t) {
  case DType::F32:
    return TESSERA_DTYPE_F32;
  case DType::F16:
    return TESSERA_DTYPE_F16;
  case DType::BF16:
    return TESSERA_DTYPE_BF16;
  case DType::F8E4M3:
    return TESSERA_DTYPE_F8E4M3;
  case DType::I8:
    return TESSERA_DTYPE_I8;
  case DType::I32:
    return TESSERA_DTYPE_I32;
  }
  return TESSERA_DTYPE_F32;
}

uint16_t toBf16(double d) {
  float f = static_cast<float>(d);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f))
    return 0x7fc0;
  u += 0x7fff + ((u >> 16) & 1); // round to nearest even
  return static_cast<uint16_t>(u >> 16);
}

double fromBf16(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// f8E4M3FN: bias 7, no infinities, 0x7f/0xff NaN, largest finite 448.
/// Round to nearest even; values beyond 448 saturate (only the quantization
/// reference needs them, and it never produces any).
uint8_t toF8E4M3(double x) {
  if (std::isnan(x))
    return 0x7f;
  uint8_t sign = std::signbit(x) ? 0x80 : 0;
  double a = std::fabs(x);
  if (a >= 448)
    return sign | 0x7e;
  if (a < std::ldexp(1.0, -6)) // subnormal: multiples of 2^-9
    return sign | static_cast<uint8_t>(std::nearbyint(std::ldexp(a, 9)));
  int e = std::ilogb(a);
  double mant = std::nearbyint((std::ldexp(a, -e) - 1.0) * 8);
  if (mant == 8) {
    mant = 0;
    ++e;
  }
  int code = ((e + 7) << 3) | static_cast<int>(mant);
  return sign | static_cast<uint8_t>(std::min(code, 0x7e));
}

double fromF8E4M3(uint8_t v) {
  int e = (v >> 3) & 0xf, m = v & 7;
  if (e == 0xf && m == 7)
    return NAN;
  double a = e == 0 ? std::ldexp(m, -9) : std::ldexp(1.0 + m / 8.0, e - 7);
  return (v & 0x80) ? -a : a;
}

/// A host tensor in its storage type, with a device copy for launches.
class Tensor {
public:
  Tensor(DType dtype, std::vector<int64_t> dims)
      : dtype_(dtype), dims_(std::move(dims)) {
    count_ = 1;
    for (int64_t d : dims_)
      count_ *= d;
    bytes_.assign(count_ * bytesOf(dtype_), 0);
  }
  size_t size() const { return count_; }
  const std::vector<int64_t> &dims() const { return dims_; }

  double get(size_t i) const {
    const uint8_t *p = &bytes_[i * bytesOf(dtype_)];
    switch (dtype_) {
    case DType::F32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case DType::F16: {
      half h;
      std::memcpy(&h, p, 2);
      return static_cast<double>(h);
    }
    case DType::BF16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return fromBf16(h);
    }
    case DType::F8E4M3:
      return fromF8E4M3(*p);
    case DType::I8:
      return static_cast<int8_t>(*p);
    case DType::I32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    }
    return 0;
  }

  /// Stores `v` rounded to the storage type.
  void set(size_t i, double v) {
    uint8_t *p = &bytes_[i * bytesOf(dtype_)];
    switch (dtype_) {
    case DType::F32: {
      float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
      break;
    }
    case DType::F16: {
      half h = static_cast<half>(v);
      std::memcpy(p, &h, 2);
      break;
    }
    case DType::BF16: {
      uint16_t h = toBf16(v);
      std::memcpy(p, &h, 2);
      break;
    }
    case DType::F8E4M3:
      *p = toF8E4M3(v);
      break;
    case DType::I8:
      *p = static_cast<uint8_t>(static_cast<int8_t>(v));
      break;
    case DType::I32: {
      int32_t x = static_cast<int32_t>(v);
      std::memcpy(p, &x, 4);
      break;
    }
    }
  }

  std::vector<double> values() const {
    std::vector<double> v(count_);
    for (size_t i = 0; i < count_; ++i)
      v[i] = get(i);
    return v;
  }

  /// Uniform values in [lo, hi] (integers for integer types), rounded.
  Tensor &random(double lo, double hi) {
    std::uniform_real_distribution<double> dist(lo, hi);
    for (size_t i = 0; i < count_; ++i) {
      double x = dist(rng());
      if (dtype_ == DType::I8 || dtype_ == DType::I32)
        x = std::floor(x + 0.5);
      set(i, x);
    }
    return *this;
  }
  /// Random integers in [lo, hi] times `unit` (exact in every float type
  /// for small ranges).
  Tensor &randomInts(int lo, int hi, double unit = 1.0) {
    std::uniform_int_distribution<int> dist(lo, hi);
    for (size_t i = 0; i < count_; ++i)
      set(i, dist(rng()) * unit);
    return *this;
  }
  Tensor &fill(double v) {
    for (size_t i = 0; i < count_; ++i)
      set(i, v);
    return *this;
  }
  /// NaN for float types, INT32_MIN / -128 for integers.
  Tensor &poison() {
    bool isInt = dtype_ == DType::I8 || dtype_ == DType::I32;
    return fill(isInt ? (dtype_ == DType::I8 ? -128.0 : -2147483648.0) : NAN);
  }

  /// Copies the host data to a fresh device buffer; the launch argument.
  tessera_arg arg() {
    buffer_ = Runtime().device().alloc(std::max<size_t>(bytes_.size(), 1));
    if (!bytes_.empty())
      buffer_.write(bytes_.data(), bytes_.size());
    return buffer_.tensor(runtimeType(dtype_), dims_);
  }
  /// Reads the device copy back into the host data.
  Tensor &fetch() {
    if (!bytes_.empty())
      buffer_.read(bytes_.data(), bytes_.size());
    return *this;
  }

  static std::mt19937_64 &rng() {
    static std::mt19937_64 gen(20251121);
    return gen;
  }
  static CpuRuntime &Runtime() {
    static CpuRuntime *runtime = new CpuRuntime();
    return *runtime;
  }

private:
  DType dtype_;
  std::vector<int64_t> dims_;
  size_t count_ = 0;
  std::vector<uint8_t> bytes_;
  tessera::Buffer buffer_;
};

//===----------------------------------------------------------------------===//
// Compiling the zoo kernels
//===----------------------------------------------------------------------===//

class ZooKernel {
public:
  explicit ZooKernel(const std::string &name, std::string source = "")
      : name_(name) {
    if (source.empty())
      source = std::string(TESSERA_ZOO_DIR) + "/" + name + ".mlir";
    std::string out = dir().file(name + ".tsb");
    CommandResult r = runCommand(
        std::string("TESSERA_PLUGIN_PATH='") + TESSERA_PLUGIN_DIR +
        "' '" TESSERA_TOOL "' compile '" + source + "' --no-cache -o '" + out +
        "'" + Tensor::Runtime().targetOption());
    log_ = r.output;
    if (r.exitCode == 0)
      module_ = Tensor::Runtime().device().loadBundle(out);
  }
  bool ok() const { return static_cast<bool>(module_); }
  const std::string &log() const { return log_; }
  void launch(const std::vector<tessera_arg> &args) const {
    module_.kernel(name_).launch(args);
  }

private:
  static TempDir &dir() {
    static TempDir *d = new TempDir();
    return *d;
  }
  std::string name_, log_;
  tessera::Module module_;
};

const ZooKernel &zoo(const std::string &name, const std::string &source = "") {
  static std::map<std::string, std::unique_ptr<ZooKernel>> compiled;
  auto &slot = compiled[name];
  if (!slot)
    slot = std::make_unique<ZooKernel>(name, source);
  return *slot;
}

#define REQUIRE_ZOO(var, name)                                                 \
  E2E_REQUIRE_DEVICE(Tensor::Runtime());                                       \
  const ZooKernel &var = zoo(name);                                            \
  ASSERT_TRUE(var.ok()) << "compiling " name " failed:\n" << var.log()

tessera_arg i32Arg(int64_t v) { return tessera_arg_i64(TESSERA_DTYPE_I32, v); }

//===----------------------------------------------------------------------===//
// References
//===----------------------------------------------------------------------===//

/// C[i, j] = sum_k A(i, k) B(k, j) with A(i, k) = a[i * ai + k * ak] and
/// B(k, j) = b[k * bk + j * bj] (strides express the transposes).
std::vector<double> matmul(const std::vector<double> &a, int64_t ai, int64_t ak,
                           const std::vector<double> &b, int64_t bk, int64_t bj,
                           int64_t m, int64_t n, int64_t k, size_t aOff = 0,
                           size_t bOff = 0) {
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < k; ++kk) {
      double av = a[aOff + i * ai + kk * ak];
      if (av == 0)
        continue;
      for (int64_t j = 0; j < n; ++j)
        c[i * n + j] += av * b[bOff + kk * bk + j * bj];
    }
  return c;
}

double gelu(double x) {
  return 0.5 * x *
         (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}
double silu(double x) { return x / (1 + std::exp(-x)); }

struct GemmShape {
  int64_t m, n, k;
};
const GemmShape kGemmShapes[] = {
    {1, 1, 1}, {17, 17, 17}, {1000, 17, 70}, {33, 1000, 129}, {130, 257, 4097}};

std::string shapeName(const GemmShape &s) {
  return "M=" + std::to_string(s.m) + " N=" + std::to_string(s.n) +
         " K=" + std::to_string(s.k);
}

//===----------------------------------------------------------------------===//
// GEMMs
//===----------------------------------------------------------------------===//

TEST(Zoo, GemmBf16RowBias) {
  REQUIRE_ZOO(k, "gemm_bf16_64x64_rowbias");
  for (const GemmShape &s : kGemmShapes) {
    SCOPED_TRACE(shapeName(s));
    Tensor A(DType::BF16, {s.m, s.k}), B(DType::BF16, {s.k, s.n}),
        bias(DType::F32, {s.m}), C(DType::BF16, {s.m, s.n});
    A.random(-1, 1), B.random(-1, 1), bias.random(-2, 2), C.poison();
    k.launch({A.arg(), B.arg(), bias.arg(), C.arg()});
    std::vector<double> ref =
        matmul(A.values(), s.k, 1, B.values(), s.n, 1, s.m, s.n, s.k);
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j)
        ref[i * s.n + j] += bias.get(i);
    EXPECT_LE(relError(C.fetch().values(), ref), 8e-3);
  }
}

TEST(Zoo, GemmBf16ColBiasGelu) {
  REQUIRE_ZOO(k, "gemm_bf16_128x128_colbias_gelu");
  for (const GemmShape &s : kGemmShapes) {
    SCOPED_TRACE(shapeName(s));
    Tensor A(DType::BF16, {s.m, s.k}), B(DType::BF16, {s.k, s.n}),
        bias(DType::F32, {s.n}), C(DType::BF16, {s.m, s.n});
    double w = 2.0 / std::sqrt(double(s.k)); // pre-activations of order 1
    A.random(-1, 1), B.random(-w, w), bias.random(-1, 1), C.poison();
    k.launch({A.arg(), B.arg(), bias.arg(), C.arg()});
    std::vector<double> ref =
        matmul(A.values(), s.k, 1, B.values(), s.n, 1, s.m, s.n, s.k);
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j)
        ref[i * s.n + j] = gelu(ref[i * s.n + j] + bias.get(j));
    EXPECT_LE(relError(C.fetch().values(), ref), 8e-3);
  }
}

TEST(Zoo, GemmBf16Silu128x256) {
  REQUIRE_ZOO(k, "gemm_bf16_128x256_silu");
  for (const GemmShape &s : kGemmShapes) {
    SCOPED_TRACE(shapeName(s));
    Tensor A(DType::BF16, {s.m, s.k}), B(DType::BF16, {s.k, s.n}),
        C(DType::F16, {s.m, s.n});
    double w = 3.0 / std::sqrt(double(s.k));
    A.random(-1, 1), B.random(-w, w), C.poison();
    k.launch({A.arg(), B.arg(), C.arg()});
    std::vector<double> ref =
        matmul(A.values(), s.k, 1, B.values(), s.n, 1, s.m, s.n, s.k);
    for (double &x : ref)
      x = silu(x);
    EXPECT_LE(relError(C.fetch().values(), ref), 2e-3);
  }
}

TEST(Zoo, GemmF32ColScale256x128) {
  REQUIRE_ZOO(k, "gemm_f32_256x128_colscale");
  for (const GemmShape &s : kGemmShapes) {
    SCOPED_TRACE(shapeName(s));
    Tensor A(DType::F32, {s.m, s.k}), B(DType::F32, {s.k, s.n}),
        scale(DType::F32, {s.n}), C(DType::F32, {s.m, s.n});
    A.random(-1, 1), B.random(-1, 1), scale.random(0.5, 2), C.poison();
    k.launch({A.arg(), B.arg(), scale.arg(), C.arg()});
    std::vector<double> ref =
        matmul(A.values(), s.k, 1, B.values(), s.n, 1, s.m, s.n, s.k);
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j)
        ref[i * s.n + j] *= scale.get(j);
    EXPECT_LE(relError(C.fetch().values(), ref), 2e-5);
  }
}

TEST(Zoo, LinearF32TransposedWeight) {
  REQUIRE_ZOO(k, "linear_f32_nt");
  for (const GemmShape &s : kGemmShapes) {
    SCOPED_TRACE(shapeName(s));
    Tensor X(DType::F32, {s.m, s.k}), W(DType::F32, {s.n, s.k}),
        bias(DType::F32, {s.n}), Y(DType::F32, {s.m, s.n});
    X.random(-1, 1), W.random(-1, 1), bias.random(-1, 1), Y.poison();
    k.launch({X.arg(), W.arg(), bias.arg(), Y.arg()});
    // W^T(k, j) = W[j, k]: stride 1 along k, K along j.
    std::vector<double> ref =
        matmul(X.values(), s.k, 1, W.values(), 1, s.k, s.m, s.n, s.k);
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j)
        ref[i * s.n + j] += bias.get(j);
    EXPECT_LE(relError(Y.fetch().values(), ref), 2e-5);
  }
}

TEST(Zoo, GemmF16TransposedARowScale) {
  REQUIRE_ZOO(k, "gemm_f16_at_rowscale");
  for (const GemmShape &s : kGemmShapes) {
    SCOPED_TRACE(shapeName(s));
    Tensor A(DType::F16, {s.k, s.m}), B(DType::F16, {s.k, s.n}),
        scale(DType::F32, {s.m}), C(DType::F16, {s.m, s.n});
    A.random(-1, 1), B.random(-1, 1), scale.random(0.01, 0.1), C.poison();
    k.launch({A.arg(), B.arg(), scale.arg(), C.arg()});
    std::vector<double> ref =
        matmul(A.values(), 1, s.m, B.values(), s.n, 1, s.m, s.n, s.k);
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j)
        ref[i * s.n + j] *= scale.get(i);
    EXPECT_LE(relError(C.fetch().values(), ref), 2e-3);
  }
}

TEST(Zoo, GemmBf16BothTransposed) {
  REQUIRE_ZOO(k, "gemm_bf16_tt");
  for (const GemmShape &s : kGemmShapes) {
    SCOPED_TRACE(shapeName(s));
    Tensor A(DType::BF16, {s.k, s.m}), B(DType::BF16, {s.n, s.k}),
        C(DType::F32, {s.m, s.n});
    A.random(-1, 1), B.random(-1, 1), C.poison();
    k.launch({A.arg(), B.arg(), C.arg()});
    std::vector<double> ref =
        matmul(A.values(), 1, s.m, B.values(), 1, s.k, s.m, s.n, s.k);
    EXPECT_LE(relError(C.fetch().values(), ref), 2e-5);
  }
}

TEST(Zoo, GemmFp8RowColScaled) {
  REQUIRE_ZOO(k, "gemm_fp8_128x256_scaled");
  for (const GemmShape &s : kGemmShapes) {
    SCOPED_TRACE(shapeName(s));
    Tensor A(DType::F8E4M3, {s.m, s.k}), B(DType::F8E4M3, {s.n, s.k}),
        sa(DType::F32, {s.m}), sb(DType::F32, {s.n}),
        C(DType::BF16, {s.m, s.n});
    A.random(-4, 4), B.random(-4, 4), sa.random(0.5, 2), sb.random(0.5, 2);
    C.poison();
    k.launch({A.arg(), B.arg(), sa.arg(), sb.arg(), C.arg()});
    std::vector<double> ref =
        matmul(A.values(), s.k, 1, B.values(), 1, s.k, s.m, s.n, s.k);
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j)
        ref[i * s.n + j] *= sa.get(i) * sb.get(j);
    EXPECT_LE(relError(C.fetch().values(), ref), 8e-3);
  }
}

TEST(Zoo, GemmFp8BlockScaled) {
  REQUIRE_ZOO(k, "gemm_fp8_blockscale");
  // The scale blocks are 128 wide along K (and N for B): shapes with a
  // partial last block along every dimension, and several blocks along K.
  const GemmShape shapes[] = {{1, 1, 1},        {17, 17, 17},
                              {1000, 17, 70},   {33, 1000, 129},
                              {130, 257, 4097}, {200, 300, 333}};
  for (const GemmShape &s : shapes) {
    SCOPED_TRACE(shapeName(s));
    int64_t kb = (s.k + 127) / 128, nb = (s.n + 127) / 128;
    Tensor A(DType::F8E4M3, {s.m, s.k}), B(DType::F8E4M3, {s.n, s.k}),
        sa(DType::F32, {s.m, kb}), sb(DType::F32, {nb, kb}),
        C(DType::BF16, {s.m, s.n});
    // Scales over a 16x range: a scale of another row, column block or K
    // block would show.
    A.random(-4, 4), B.random(-4, 4), sa.random(0.25, 4), sb.random(0.25, 4);
    C.poison();
    k.launch({A.arg(), B.arg(), sa.arg(), sb.arg(), C.arg()});
    std::vector<double> a = A.values(), b = B.values();
    std::vector<double> ref(s.m * s.n, 0.0);
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j) {
        double sum = 0;
        for (int64_t q = 0; q < kb; ++q) {
          double part = 0;
          for (int64_t kk = q * 128; kk < std::min(s.k, (q + 1) * 128); ++kk)
            part += a[i * s.k + kk] * b[j * s.k + kk];
          sum += part * sa.get(i * kb + q) * sb.get((j / 128) * kb + q);
        }
        ref[i * s.n + j] = sum;
      }
    EXPECT_LE(relError(C.fetch().values(), ref), 8e-3);
  }
}

TEST(Zoo, GemmI8I32) {
  REQUIRE_ZOO(k, "gemm_i8_i32");
  for (const GemmShape &s : kGemmShapes) {
    SCOPED_TRACE(shapeName(s));
    Tensor A(DType::I8, {s.m, s.k}), B(DType::I8, {s.n, s.k}),
        C(DType::I32, {s.m, s.n});
    A.randomInts(-128, 127), B.randomInts(-128, 127), C.poison();
    k.launch({A.arg(), B.arg(), C.arg()});
    std::vector<double> ref =
        matmul(A.values(), s.k, 1, B.values(), 1, s.k, s.m, s.n, s.k);
    std::vector<double> got = C.fetch().values();
    int64_t wrong = 0;
    for (size_t i = 0; i < ref.size(); ++i)
      wrong += got[i] != ref[i];
    EXPECT_EQ(wrong, 0);
  }
}

TEST(Zoo, GemmSplitK) {
  REQUIRE_ZOO(k, "gemm_splitk_f32");
  // Splits for about 512 blocks, at most one per K step of 64: 1, 1, 16,
  // 65 and 2 splits.
  const GemmShape shapes[] = {
      {1, 1, 1}, {17, 17, 17}, {17, 33, 1000}, {65, 17, 4097}, {1000, 17, 70}};
  for (const GemmShape &s : shapes) {
    SCOPED_TRACE(shapeName(s));
    Tensor A(DType::BF16, {s.m, s.k}), B(DType::BF16, {s.k, s.n}),
        C(DType::F32, {s.m, s.n});
    // C is accumulated into, so it starts at zero (the kernel's contract)
    // rather than NaN; an element no block adds to stays 0 and fails the
    // comparison against the random products instead.
    A.random(-1, 1), B.random(-1, 1), C.fill(0);
    k.launch({A.arg(), B.arg(), C.arg()});
    std::vector<double> ref =
        matmul(A.values(), s.k, 1, B.values(), s.n, 1, s.m, s.n, s.k);
    EXPECT_LE(relError(C.fetch().values(), ref), 2e-5);
  }
}

TEST(Zoo, GemmBatched) {
  REQUIRE_ZOO(k, "gemm_batched_bf16");
  struct Case {
    int64_t b;
    GemmShape s;
  };
  const Case cases[] = {{1, {1, 1, 1}},
                        {3, {17, 17, 17}},
                        {2, {100, 130, 70}},
                        {1, {1000, 17, 65}},
                        {2, {33, 257, 4097}}};
  for (const Case &c : cases) {
    const GemmShape &s = c.s;
    SCOPED_TRACE("Bt=" + std::to_string(c.b) + " " + shapeName(s));
    Tensor A(DType::BF16, {c.b, s.m, s.k}), B(DType::BF16, {c.b, s.k, s.n}),
        C(DType::F32, {c.b, s.m, s.n});
    A.random(-1, 1), B.random(-1, 1), C.poison();
    k.launch({A.arg(), B.arg(), C.arg()});
    std::vector<double> av = A.values(), bv = B.values(), ref;
    for (int64_t b = 0; b < c.b; ++b) {
      std::vector<double> r = matmul(av, s.k, 1, bv, s.n, 1, s.m, s.n, s.k,
                                     b * s.m * s.k, b * s.k * s.n);
      ref.insert(ref.end(), r.begin(), r.end());
    }
    EXPECT_LE(relError(C.fetch().values(), ref), 2e-5);
  }
}

TEST(Zoo, MlpBackToBack) {
  REQUIRE_ZOO(k, "mlp_b2b_bf16");
  constexpr int64_t D = 128;
  const std::pair<int64_t, int64_t> shapes[] = {
      {1, 1}, {17, 17}, {1000, 200}, {130, 4097}, {65, 64}};
  for (auto [m, f] : shapes) {
    SCOPED_TRACE("M=" + std::to_string(m) + " F=" + std::to_string(f));
    Tensor X(DType::BF16, {m, D}), W1(DType::BF16, {D, f}),
        W2(DType::BF16, {f, D}), Y(DType::BF16, {m, D});
    X.random(-1, 1), W1.random(-0.3, 0.3);
    double w2 = 2.0 / std::sqrt(double(f));
    W2.random(-w2, w2), Y.poison();
    k.launch({X.arg(), W1.arg(), W2.arg(), Y.arg()});
    std::vector<double> h =
        matmul(X.values(), D, 1, W1.values(), f, 1, m, f, D);
    for (double &x : h)
      x = silu(x);
    std::vector<double> ref = matmul(h, f, 1, W2.values(), D, 1, m, D, f);
    // H is rounded to bf16 on chip before the second GEMM (2^-8 each).
    EXPECT_LE(relError(Y.fetch().values(), ref), 1.5e-2);
  }
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// softmax(q k^T * scale over visible keys) v for one query row: q, k, v
/// accessors return element d of query row / key j.
void attendRow(int64_t skv, int64_t dim, double scale,
               const std::function<double(int64_t)> &q,
               const std::function<double(int64_t, int64_t)> &k,
               const std::function<double(int64_t, int64_t)> &v,
               const std::function<bool(int64_t)> &visible, double *out,
               double *lse = nullptr) {
  std::vector<double> s(skv, -INFINITY);
  double mx = -INFINITY;
  std::vector<double> qd(dim);
  for (int64_t d = 0; d < dim; ++d)
    qd[d] = q(d);
  for (int64_t j = 0; j < skv; ++j) {
    if (!visible(j))
      continue;
    double dot = 0;
    for (int64_t d = 0; d < dim; ++d)
      dot += qd[d] * k(j, d);
    s[j] = dot * scale;
    mx = std::max(mx, s[j]);
  }
  double sum = 0;
  for (int64_t j = 0; j < skv; ++j)
    if (s[j] != -INFINITY)
      sum += s[j] = std::exp(s[j] - mx);
    else
      s[j] = 0;
  for (int64_t d = 0; d < dim; ++d)
    out[d] = 0;
  for (int64_t j = 0; j < skv; ++j)
    if (s[j] != 0)
      for (int64_t d = 0; d < dim; ++d)
        out[d] += s[j] / sum * v(j, d);
  if (lse)
    *lse = mx + std::log(sum);
}

/// Standard [B, H, S, D] attention reference with KV head `kvHead(h)` and a
/// visibility rule on (query index, key index).
std::vector<double>
attention(const Tensor &Q, const Tensor &K, const Tensor &V, double scale,
          const std::function<int64_t(int64_t)> &kvHead,
          const std::function<bool(int64_t, int64_t)> &visible) {
  const auto &qd = Q.dims(), &kd = K.dims();
  int64_t nb = qd[0], nh = qd[1], sq = qd[2], dim = qd[3];
  bool rank3 = kd.size() == 3; // MQA: K, V are [B, S, D]
  int64_t hkv = rank3 ? 1 : kd[1], skv = rank3 ? kd[1] : kd[2];
  std::vector<double> q = Q.values(), k = K.values(), v = V.values();
  std::vector<double> out(Q.size());
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t h = 0; h < nh; ++h) {
      size_t kvBase = ((b * hkv) + kvHead(h)) * skv * dim;
      for (int64_t i = 0; i < sq; ++i) {
        size_t qBase = ((b * nh + h) * sq + i) * dim;
        attendRow(
            skv, dim, scale, [&](int64_t d) { return q[qBase + d]; },
            [&](int64_t j, int64_t d) { return k[kvBase + j * dim + d]; },
            [&](int64_t j, int64_t d) { return v[kvBase + j * dim + d]; },
            [&](int64_t j) { return visible(i, j); }, &out[qBase]);
      }
    }
  return out;
}

int64_t sameHead(int64_t h) { return h; }

TEST(Zoo, AttnD64CausalBf16) {
  REQUIRE_ZOO(k, "attn_fwd_d64_causal_bf16");
  constexpr int64_t D = 64;
  const std::array<int64_t, 3> shapes[] = {
      {1, 2, 1}, {1, 1, 17}, {2, 2, 200}, {1, 1, 129}};
  double scale = 1 / std::sqrt(double(D));
  for (auto [b, h, s] : shapes) {
    SCOPED_TRACE("B=" + std::to_string(b) + " H=" + std::to_string(h) +
                 " S=" + std::to_string(s));
    Tensor Q(DType::BF16, {b, h, s, D}), K(DType::BF16, {b, h, s, D}),
        V(DType::BF16, {b, h, s, D}), O(DType::BF16, {b, h, s, D});
    Q.random(-2, 2), K.random(-2, 2), V.random(-1, 1), O.poison();
    k.launch({Q.arg(), K.arg(), V.arg(), O.arg(), tessera_arg_f32(scale)});
    auto ref = attention(Q, K, V, scale, sameHead,
                         [](int64_t i, int64_t j) { return j <= i; });
    EXPECT_LE(relError(O.fetch().values(), ref), 1e-2);
  }
}

// Non-causal head-dim-256 attention with Sq != Skv: O = softmax(Q K^T s) V.
static void
checkCrossAttentionD256(const ZooKernel &k,
                        const std::vector<std::array<int64_t, 4>> &shapes) {
  constexpr int64_t D = 256;
  double scale = 1 / std::sqrt(double(D));
  for (auto [b, h, sq, skv] : shapes) {
    SCOPED_TRACE("B=" + std::to_string(b) + " H=" + std::to_string(h) +
                 " Sq=" + std::to_string(sq) + " Skv=" + std::to_string(skv));
    Tensor Q(DType::F16, {b, h, sq, D}), K(DType::F16, {b, h, skv, D}),
        V(DType::F16, {b, h, skv, D}), O(DType::F16, {b, h, sq, D});
    Q.random(-2, 2), K.random(-2, 2), V.random(-1, 1), O.poison();
    k.launch({Q.arg(), K.arg(), V.arg(), O.arg(), tessera_arg_f32(scale)});
    auto ref = attention(Q, K, V, scale, sameHead,
                         [](int64_t, int64_t) { return true; });
    EXPECT_LE(relError(O.fetch().values(), ref), 5e-3);
  }
}

TEST(Zoo, AttnD256CrossF16) {
  REQUIRE_ZOO(k, "attn_fwd_d256_cross_f16");
  checkCrossAttentionD256(
      k, {{1, 1, 1, 1}, {1, 2, 17, 200}, {2, 1, 200, 17}, {1, 1, 65, 129}});
}

TEST(Zoo, AttnD256Q128F16) {
  REQUIRE_ZOO(k, "attn_fwd_d256_q128_f16");
  checkCrossAttentionD256(k, {{1, 1, 1, 1},
                              {1, 2, 17, 200},
                              {2, 1, 200, 17},
                              {1, 1, 65, 129},
                              {1, 1, 130, 70}});
}

TEST(Zoo, AttnPrefillPrefixCausal) {
  REQUIRE_ZOO(k, "attn_prefill_prefix_causal_d128");
  constexpr int64_t D = 128;
  const std::array<int64_t, 4> shapes[] = {{1, 2, 17, 200},
                                           {1, 1, 1, 1},
                                           {1, 1, 1, 77},
                                           {2, 1, 200, 200},
                                           {1, 1, 65, 100}};
  double scale = 1 / std::sqrt(double(D));
  for (auto [b, h, sq, skv] : shapes) {
    SCOPED_TRACE("B=" + std::to_string(b) + " H=" + std::to_string(h) +
                 " Sq=" + std::to_string(sq) + " Skv=" + std::to_string(skv));
    Tensor Q(DType::F16, {b, h, sq, D}), K(DType::F16, {b, h, skv, D}),
        V(DType::F16, {b, h, skv, D}), O(DType::F16, {b, h, sq, D});
    Q.random(-2, 2), K.random(-2, 2), V.random(-1, 1), O.poison();
    k.launch({Q.arg(), K.arg(), V.arg(), O.arg(), tessera_arg_f32(scale)});
    int64_t offset = skv - sq;
    auto ref = attention(Q, K, V, scale, sameHead,
                         [&](int64_t i, int64_t j) { return j <= offset + i; });
    EXPECT_LE(relError(O.fetch().values(), ref), 5e-3);
  }
}

TEST(Zoo, AttnSlidingWindow) {
  REQUIRE_ZOO(k, "attn_sliding_window_d64");
  constexpr int64_t D = 64;
  const std::array<int64_t, 3> shapes[] = {// B, S, window
                                           {1, 17, 4},     {1, 200, 50},
                                           {2, 200, 1},    {1, 1, 8},
                                           {1, 200, 1000}, {1, 300, 64}};
  double scale = 1 / std::sqrt(double(D));
  for (auto [b, s, w] : shapes) {
    SCOPED_TRACE("B=" + std::to_string(b) + " S=" + std::to_string(s) +
                 " window=" + std::to_string(w));
    int64_t h = 2;
    Tensor Q(DType::F16, {b, h, s, D}), K(DType::F16, {b, h, s, D}),
        V(DType::F16, {b, h, s, D}), O(DType::F16, {b, h, s, D});
    Q.random(-2, 2), K.random(-2, 2), V.random(-1, 1), O.poison();
    k.launch({Q.arg(), K.arg(), V.arg(), O.arg(), tessera_arg_f32(scale),
              i32Arg(w)});
    int64_t window = w;
    auto ref = attention(Q, K, V, scale, sameHead, [&](int64_t i, int64_t j) {
      return j <= i && j > i - window;
    });
    EXPECT_LE(relError(O.fetch().values(), ref), 5e-3);
  }
}

TEST(Zoo, AttnGroupedQuery) {
  REQUIRE_ZOO(k, "attn_gqa_d128_causal");
  constexpr int64_t D = 128;
  const std::array<int64_t, 4> shapes[] = {// B, Hq, Hkv, S
                                           {1, 4, 2, 17},
                                           {1, 4, 1, 200},
                                           {2, 2, 2, 65},
                                           {1, 3, 1, 1}};
  double scale = 1 / std::sqrt(double(D));
  for (auto [b, hq, hkv, s] : shapes) {
    SCOPED_TRACE("B=" + std::to_string(b) + " Hq=" + std::to_string(hq) +
                 " Hkv=" + std::to_string(hkv) + " S=" + std::to_string(s));
    Tensor Q(DType::F16, {b, hq, s, D}), K(DType::F16, {b, hkv, s, D}),
        V(DType::F16, {b, hkv, s, D}), O(DType::F16, {b, hq, s, D});
    Q.random(-2, 2), K.random(-2, 2), V.random(-1, 1), O.poison();
    k.launch({Q.arg(), K.arg(), V.arg(), O.arg(), tessera_arg_f32(scale)});
    int64_t group = hq / hkv;
    auto ref = attention(
        Q, K, V, scale, [&](int64_t hh) { return hh / group; },
        [](int64_t i, int64_t j) { return j <= i; });
    EXPECT_LE(relError(O.fetch().values(), ref), 5e-3);
  }
}

TEST(Zoo, AttnMultiQuery) {
  REQUIRE_ZOO(k, "attn_mqa_d64_bf16");
  constexpr int64_t D = 64;
  const std::array<int64_t, 3> shapes[] = {{1, 3, 17}, {2, 2, 200}, {1, 1, 1}};
  double scale = 1 / std::sqrt(double(D));
  for (auto [b, h, s] : shapes) {
    SCOPED_TRACE("B=" + std::to_string(b) + " H=" + std::to_string(h) +
                 " S=" + std::to_string(s));
    Tensor Q(DType::BF16, {b, h, s, D}), K(DType::BF16, {b, s, D}),
        V(DType::BF16, {b, s, D}), O(DType::BF16, {b, h, s, D});
    Q.random(-2, 2), K.random(-2, 2), V.random(-1, 1), O.poison();
    k.launch({Q.arg(), K.arg(), V.arg(), O.arg(), tessera_arg_f32(scale)});
    auto ref = attention(
        Q, K, V, scale, [](int64_t) { return 0; },
        [](int64_t, int64_t) { return true; });
    EXPECT_LE(relError(O.fetch().values(), ref), 1e-2);
  }
}

TEST(Zoo, AttnSplitKvDecodeAndCombine) {
  REQUIRE_ZOO(split, "attn_decode_splitkv_d128");
  REQUIRE_ZOO(combine, "attn_decode_combine");
  constexpr int64_t D = 128, kSplit = 256;
  const std::array<int64_t, 4> shapes[] = {// B, H, Sq, Skv
                                           {1, 2, 1, 17},
                                           {2, 2, 1, 1000},
                                           {1, 1, 1, 4097},
                                           {1, 2, 3, 300},
                                           {1, 1, 1, 1}};
  double scale = 1 / std::sqrt(double(D));
  for (auto [b, h, sq, skv] : shapes) {
    SCOPED_TRACE("B=" + std::to_string(b) + " H=" + std::to_string(h) +
                 " Sq=" + std::to_string(sq) + " Skv=" + std::to_string(skv));
    int64_t ns = (skv + kSplit - 1) / kSplit;
    Tensor Q(DType::F16, {b, h, sq, D}), K(DType::F16, {b, h, skv, D}),
        V(DType::F16, {b, h, skv, D}), Op(DType::F32, {b, h * ns, sq, D}),
        L(DType::F32, {b, h * ns, sq}), O(DType::F16, {b, h, sq, D});
    Q.random(-2, 2), K.random(-2, 2), V.random(-1, 1);
    Op.poison(), L.poison(), O.poison();
    tessera_arg opArg = Op.arg(), lArg = L.arg();
    split.launch(
        {Q.arg(), K.arg(), V.arg(), opArg, lArg, tessera_arg_f32(scale)});
    combine.launch({opArg, lArg, O.arg()});

    // Per split: the partial output and log-sum-exp of its 256 keys.
    std::vector<double> q = Q.values(), kk = K.values(), v = V.values();
    std::vector<double> refPart(Op.size()), refLse(L.size());
    for (int64_t bb = 0; bb < b; ++bb)
      for (int64_t hh = 0; hh < h; ++hh)
        for (int64_t s = 0; s < ns; ++s)
          for (int64_t i = 0; i < sq; ++i) {
            size_t qBase = ((bb * h + hh) * sq + i) * D;
            size_t kvBase = (bb * h + hh) * skv * D;
            size_t row = (bb * h * ns + hh * ns + s) * sq + i;
            attendRow(
                skv, D, scale, [&](int64_t d) { return q[qBase + d]; },
                [&](int64_t j, int64_t d) { return kk[kvBase + j * D + d]; },
                [&](int64_t j, int64_t d) { return v[kvBase + j * D + d]; },
                [&](int64_t j) { return j / kSplit == s; }, &refPart[row * D],
                &refLse[row]);
          }
    EXPECT_LE(relError(Op.fetch().values(), refPart), 5e-3);
    std::vector<double> lse = L.fetch().values();
    double worst = 0;
    for (size_t i = 0; i < lse.size(); ++i)
      worst =
          std::max(worst, std::isfinite(lse[i]) ? std::fabs(lse[i] - refLse[i])
                                                : INFINITY);
    EXPECT_LE(worst, 1e-3) << "largest log-sum-exp error";
    auto ref = attention(Q, K, V, scale, sameHead,
                         [](int64_t, int64_t) { return true; });
    EXPECT_LE(relError(O.fetch().values(), ref), 5e-3);
  }
}

//===----------------------------------------------------------------------===//
// Row-wise kernels
//===----------------------------------------------------------------------===//

const std::pair<int64_t, int64_t> kLongRows[] = {
    {1, 1}, {17, 1000}, {3, 4097}, {2, 16384}, {3, 20000}};

TEST(Zoo, SoftmaxBf16LongRows) {
  REQUIRE_ZOO(k, "softmax_bf16_16k");
  const double scale = 0.7;
  for (auto [m, n] : kLongRows) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    Tensor X(DType::BF16, {m, n}), Y(DType::BF16, {m, n});
    X.random(-8, 8), Y.poison();
    k.launch({X.arg(), Y.arg(), tessera_arg_f32(float(scale))});
    std::vector<double> ref(m * n);
    for (int64_t r = 0; r < m; ++r) {
      double mx = -INFINITY, sum = 0;
      for (int64_t c = 0; c < n; ++c)
        mx = std::max(mx, X.get(r * n + c) * double(float(scale)));
      for (int64_t c = 0; c < n; ++c)
        sum += std::exp(X.get(r * n + c) * double(float(scale)) - mx);
      for (int64_t c = 0; c < n; ++c)
        ref[r * n + c] =
            std::exp(X.get(r * n + c) * double(float(scale)) - mx) / sum;
    }
    EXPECT_LE(relError(Y.fetch().values(), ref), 8e-3);
  }
}

TEST(Zoo, RmsNormF16LongRows) {
  REQUIRE_ZOO(k, "rmsnorm_f16_16k");
  const float eps = 1e-5f;
  for (auto [m, n] : kLongRows) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    Tensor X(DType::F16, {m, n}), W(DType::F16, {n}), Y(DType::F16, {m, n});
    X.random(-3, 3), W.random(0.5, 1.5), Y.poison();
    k.launch({X.arg(), W.arg(), Y.arg(), tessera_arg_f32(eps)});
    std::vector<double> ref(m * n);
    for (int64_t r = 0; r < m; ++r) {
      double ss = 0;
      for (int64_t c = 0; c < n; ++c)
        ss += X.get(r * n + c) * X.get(r * n + c);
      double inv = 1 / std::sqrt(ss / double(n) + double(eps));
      for (int64_t c = 0; c < n; ++c)
        ref[r * n + c] = X.get(r * n + c) * inv * W.get(c);
    }
    EXPECT_LE(relError(Y.fetch().values(), ref), 2e-3);
  }
}

TEST(Zoo, LayerNormF32LongRows) {
  REQUIRE_ZOO(k, "layernorm_f32_16k");
  const float eps = 1e-5f;
  for (auto [m, n] : kLongRows) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n));
    Tensor X(DType::F32, {m, n}), G(DType::F32, {n}), Bt(DType::F32, {n}),
        Y(DType::F32, {m, n});
    X.random(-3, 5), G.random(0.5, 1.5), Bt.random(-1, 1), Y.poison();
    k.launch({X.arg(), G.arg(), Bt.arg(), Y.arg(), tessera_arg_f32(eps)});
    std::vector<double> ref(m * n);
    for (int64_t r = 0; r < m; ++r) {
      double mean = 0, var = 0;
      for (int64_t c = 0; c < n; ++c)
        mean += X.get(r * n + c);
      mean /= double(n);
      for (int64_t c = 0; c < n; ++c)
        var += (X.get(r * n + c) - mean) * (X.get(r * n + c) - mean);
      double rstd = 1 / std::sqrt(var / double(n) + double(eps));
      for (int64_t c = 0; c < n; ++c)
        ref[r * n + c] =
            (X.get(r * n + c) - mean) * rstd * G.get(c) + Bt.get(c);
    }
    EXPECT_LE(relError(Y.fetch().values(), ref), 2e-5);
  }
}

//===----------------------------------------------------------------------===//
// MoE gating
//===----------------------------------------------------------------------===//

/// Top 8 of each row of `scores` (ties: lower id first) and the softmax of
/// the 8 picks; compares with the kernel's ids (exactly) and weights.
void checkTopK(const std::vector<double> &scores, int64_t t, const Tensor &Idx,
               const Tensor &Wt) {
  constexpr int64_t E = 256, TopK = 8;
  std::vector<double> refW(t * TopK);
  int64_t wrongIds = 0;
  for (int64_t r = 0; r < t; ++r) {
    std::vector<int64_t> ids(E);
    std::iota(ids.begin(), ids.end(), 0);
    const double *s = &scores[r * E];
    std::stable_sort(ids.begin(), ids.end(),
                     [&](int64_t a, int64_t b) { return s[a] > s[b]; });
    double sum = 0;
    for (int64_t k = 0; k < TopK; ++k)
      sum += std::exp(s[ids[k]] - s[ids[0]]);
    for (int64_t k = 0; k < TopK; ++k) {
      refW[r * TopK + k] = std::exp(s[ids[k]] - s[ids[0]]) / sum;
      wrongIds += Idx.get(r * TopK + k) != double(ids[k]);
    }
  }
  EXPECT_EQ(wrongIds, 0);
  EXPECT_LE(relError(Wt.values(), refW), 1e-5);
}

TEST(Zoo, MoeTopKGating) {
  REQUIRE_ZOO(k, "moe_topk_gating");
  const std::pair<int64_t, int64_t> shapes[] = {// T, D
                                                {1, 1},
                                                {17, 17},
                                                {1000, 64},
                                                {33, 200}};
  for (auto [t, d] : shapes) {
    SCOPED_TRACE("T=" + std::to_string(t) + " D=" + std::to_string(d));
    // Small integers (times 1/64): every product and sum is exact in f32,
    // so the kernel's scores equal the reference's, ties included (D = 1
    // has many).
    Tensor X(DType::BF16, {t, d}), Wg(DType::BF16, {d, 256}),
        Idx(DType::I32, {t, 8}), Wt(DType::F32, {t, 8});
    X.randomInts(-4, 4), Wg.randomInts(-8, 8, 1.0 / 64), Idx.poison();
    Wt.poison();
    k.launch({X.arg(), Wg.arg(), Idx.arg(), Wt.arg()});
    checkTopK(matmul(X.values(), d, 1, Wg.values(), 256, 1, t, 256, d), t,
              Idx.fetch(), Wt.fetch());
  }
}

TEST(Zoo, MoeTopKFromLogits) {
  REQUIRE_ZOO(k, "moe_topk_softmax_logits");
  for (int64_t t : {1, 17, 1000}) {
    SCOPED_TRACE("T=" + std::to_string(t));
    Tensor L(DType::F32, {t, 256}), Idx(DType::I32, {t, 8}),
        Wt(DType::F32, {t, 8});
    L.random(-4, 4), Idx.poison(), Wt.poison();
    k.launch({L.arg(), Idx.arg(), Wt.arg()});
    checkTopK(L.values(), t, Idx.fetch(), Wt.fetch());
  }
}

//===----------------------------------------------------------------------===//
// SwiGLU + per-token FP8 quantization
//===----------------------------------------------------------------------===//

TEST(Zoo, SwigluFp8Quant) {
  REQUIRE_ZOO(k, "swiglu_fp8_quant");
  for (auto [t, n] : kLongRows) {
    SCOPED_TRACE(std::to_string(t) + "x" + std::to_string(n));
    Tensor A(DType::BF16, {t, n}), Bg(DType::BF16, {t, n}),
        Q(DType::F8E4M3, {t, n}), S(DType::F32, {t});
    A.random(-4, 4), Bg.random(-2, 2), Q.poison(), S.poison();
    k.launch({A.arg(), Bg.arg(), Q.arg(), S.arg()});
    Q.fetch(), S.fetch();
    std::vector<double> y(t * n), refScale(t), dequant(t * n);
    int64_t farOff = 0;
    for (int64_t r = 0; r < t; ++r) {
      double amax = 0;
      for (int64_t c = 0; c < n; ++c) {
        size_t i = r * n + c;
        y[i] = silu(A.get(i)) * Bg.get(i);
        amax = std::max(amax, std::fabs(y[i]));
      }
      refScale[r] = amax / 448;
      for (int64_t c = 0; c < n; ++c) {
        size_t i = r * n + c;
        double q = Q.get(i), want = fromF8E4M3(toF8E4M3(y[i] / refScale[r]));
        dequant[i] = q * S.get(r);
        // One fp8 step at the reference's magnitude: the kernel's f32 y may
        // sit on the other side of a rounding boundary, never further.
        double step = std::ldexp(
            1.0,
            std::max(std::ilogb(std::max(std::fabs(want), 1e-30)), -6) - 3);
        farOff += !(std::fabs(q - want) <= step);
      }
    }
    EXPECT_LE(relError(S.values(), refScale), 1e-5);
    EXPECT_EQ(farOff, 0) << "fp8 codes more than one step from the reference";
    // e4m3 keeps 3 mantissa bits: relative rounding error <= 2^-4.
    EXPECT_LE(relError(dequant, y), 4e-2);
  }
}

/// The fp8 encoding the quantization kernel relies on, at its edges: ties
/// (to even), subnormals, the largest finite value and beyond (saturated),
/// infinities (saturated) and NaN. Regression test: tile.copy to an fp8
/// tensor did not lower on the CPU (arith.truncf to f8 has no LLVM form)
/// and the tile interpreter did not round to fp8 at all.
TEST(Zoo, Fp8EncodeEdgeCases) {
  E2E_REQUIRE_DEVICE(Tensor::Runtime());
  const ZooKernel &k =
      zoo("cast_f32_fp8", TESSERA_ZOO_INPUTS "/cast_f32_fp8.mlir");
  ASSERT_TRUE(k.ok()) << k.log();
  std::vector<double> xs = {0.0,
                            -0.0,
                            1.0,
                            1.0625, // tie between 1 and 1.125: to even (1)
                            1.1875, // tie between 1.125 and 1.25: 1.25
                            -3.3,
                            std::ldexp(1.0, -6),  // smallest normal
                            std::ldexp(1.0, -9),  // smallest subnormal
                            std::ldexp(3.0, -10), // tie: 2^-8 (even)
                            std::ldexp(1.0, -11), // rounds to 0
                            std::ldexp(7.5, -9),  // tie: up to 2^-6
                            240.0,
                            256.0,
                            416.0,
                            432.0, // 432: tie -> 448 (even)
                            448.0,
                            460.0, // past 448: saturates
                            1e6,
                            -1e6,
                            INFINITY,
                            -INFINITY,
                            NAN};
  for (int i = 0; i < 200; ++i) // and random values of every magnitude
    xs.push_back(
        std::ldexp(std::uniform_real_distribution<double>(-2, 2)(Tensor::rng()),
                   std::uniform_int_distribution<int>(-12, 9)(Tensor::rng())));
  int64_t n = xs.size();
  Tensor X(DType::F32, {n}), Y(DType::F8E4M3, {n});
  for (int64_t i = 0; i < n; ++i)
    X.set(i, xs[i]);
  Y.fill(1.0); // not NaN: NaN is an expected output
  k.launch({X.arg(), Y.arg()});
  Y.fetch();
  for (int64_t i = 0; i < n; ++i) {
    double want = fromF8E4M3(toF8E4M3(X.get(i)));
    double got = Y.get(i);
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(got)) << "x = " << X.get(i);
    else
      EXPECT_EQ(got, want) << "x = " << X.get(i);
  }
}

} // namespace
