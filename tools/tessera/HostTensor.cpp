//===- HostTensor.cpp - host copies of kernel arguments -------------------===//

#include "HostTensor.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace tessera;
using namespace tessera::tool;
using bundle::DType;

namespace {

float bf16ToFloat(uint16_t v) {
  uint32_t bits = uint32_t(v) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t floatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f))
    return 0x7fc0;
  bits += 0x7fff + ((bits >> 16) & 1); // round to nearest even
  return uint16_t(bits >> 16);
}

/// fp8 decode: E4M3FN (bias 7, no infinities, NaN = S.1111.111) and E5M2.
double fp8ToDouble(uint8_t v, bool e4m3) {
  int sign = v >> 7;
  int expBits = e4m3 ? 4 : 5, manBits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  int e = (v >> manBits) & ((1 << expBits) - 1);
  int m = v & ((1 << manBits) - 1);
  double r;
  if (e4m3 && e == 15 && m == 7)
    return std::numeric_limits<double>::quiet_NaN();
  if (!e4m3 && e == 31)
    return m ? std::numeric_limits<double>::quiet_NaN()
             : (sign ? -INFINITY : INFINITY);
  if (e == 0)
    r = std::ldexp(double(m), 1 - bias - manBits);
  else
    r = std::ldexp(double(m + (1 << manBits)), e - bias - manBits);
  return sign ? -r : r;
}

/// The finite codes of one fp8 format sorted by value, for nearest-value
/// rounding by binary search (ties go to the lower value; test data only).
struct Fp8Table {
  std::vector<std::pair<double, uint8_t>> codes;
  explicit Fp8Table(bool e4m3) {
    for (int c = 0; c < 256; ++c) {
      double v = fp8ToDouble(uint8_t(c), e4m3);
      if (!std::isnan(v) && !std::isinf(v) && !(v == 0 && (c & 0x80)))
        codes.push_back({v, uint8_t(c)});
    }
    std::sort(codes.begin(), codes.end());
  }
  uint8_t nearest(double x) const {
    auto it = std::lower_bound(codes.begin(), codes.end(),
                               std::make_pair(x, uint8_t(0)));
    if (it == codes.end())
      return codes.back().second;
    if (it == codes.begin())
      return it->second;
    auto below = std::prev(it);
    return (x - below->first <= it->first - x) ? below->second : it->second;
  }
};

uint8_t doubleToFp8(double x, bool e4m3) {
  static const Fp8Table e4m3Table(true), e5m2Table(false);
  return (e4m3 ? e4m3Table : e5m2Table).nearest(x);
}

} // namespace

int64_t HostTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

double HostTensor::get(int64_t i) const {
  const unsigned char *p = bytes.data() + i * bundle::dtypeBytes(dtype);
  switch (dtype) {
  case DType::F16: {
    _Float16 h;
    std::memcpy(&h, p, 2);
    return double(h);
  }
  case DType::BF16: {
    uint16_t b;
    std::memcpy(&b, p, 2);
    return bf16ToFloat(b);
  }
  case DType::F32: {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  case DType::F64: {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  case DType::F8E4M3:
    return fp8ToDouble(*p, true);
  case DType::F8E5M2:
    return fp8ToDouble(*p, false);
  case DType::I1:
  case DType::I8:
    return double(int8_t(*p));
  case DType::I16: {
    int16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case DType::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case DType::I64:
  case DType::Index: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return double(v);
  }
  }
  return 0;
}

void HostTensor::set(int64_t i, double v) {
  unsigned char *p = bytes.data() + i * bundle::dtypeBytes(dtype);
  switch (dtype) {
  case DType::F16: {
    _Float16 h = (_Float16)v;
    std::memcpy(p, &h, 2);
    return;
  }
  case DType::BF16: {
    uint16_t b = floatToBf16(float(v));
    std::memcpy(p, &b, 2);
    return;
  }
  case DType::F32: {
    float f = float(v);
    std::memcpy(p, &f, 4);
    return;
  }
  case DType::F64:
    std::memcpy(p, &v, 8);
    return;
  case DType::F8E4M3:
    *p = doubleToFp8(v, true);
    return;
  case DType::F8E5M2:
    *p = doubleToFp8(v, false);
    return;
  case DType::I1:
    *p = v != 0;
    return;
  case DType::I8:
    *p = uint8_t(int8_t(v));
    return;
  case DType::I16: {
    int16_t x = int16_t(v);
    std::memcpy(p, &x, 2);
    return;
  }
  case DType::I32: {
    int32_t x = int32_t(v);
    std::memcpy(p, &x, 4);
    return;
  }
  case DType::I64:
  case DType::Index: {
    int64_t x = int64_t(v);
    std::memcpy(p, &x, 8);
    return;
  }
  }
}

uint64_t tessera::tool::hostAvailableBytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kib;
  while (meminfo >> key >> kib) {
    if (key == "MemAvailable:")
      return kib > UINT64_MAX / 1024 ? UINT64_MAX : kib * 1024;
    meminfo.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0)
    return 0;
  uint64_t bytes;
  if (__builtin_mul_overflow(uint64_t(pages), uint64_t(page), &bytes))
    return UINT64_MAX;
  return bytes;
}

void tessera::tool::fillRandom(HostTensor &t, std::mt19937_64 &rng,
                               bool normal) {
  // Fixed chunks, each from its own generator seeded by one draw of `rng`
  // and its number: the same values for a seed on any machine, filled on
  // several threads (a benchmark's 200M-element inputs took seconds per run
  // on one; the GPU machine's device time waited on it).
  constexpr int64_t kChunk = int64_t(1) << 16;
  const uint64_t seed = rng();
  const int64_t n = t.numElements();
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  const bool integer = bundle::isIntegerDType(t.dtype);
  auto fillChunk = [&](int64_t c) {
    std::mt19937_64 r(seed ^ (uint64_t(c) * 0x9E3779B97F4A7C15ull));
    std::uniform_real_distribution<double> real(-1.0, 1.0);
    std::normal_distribution<double> gauss(0.0, 1.0);
    std::uniform_int_distribution<int> small(-8, 8);
    for (int64_t i = c * kChunk, e = std::min(n, i + kChunk); i < e; ++i)
      t.set(i, integer ? double(small(r)) : normal ? gauss(r) : real(r));
  };
  int64_t workers = std::min<int64_t>(
      {chunks, int64_t(std::max(1u, std::thread::hardware_concurrency())), 16});
  if (workers <= 1 || n < (int64_t(1) << 20)) {
    for (int64_t c = 0; c < chunks; ++c)
      fillChunk(c);
    return;
  }
  std::atomic<int64_t> next{0};
  std::vector<std::thread> pool;
  for (int64_t w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      for (int64_t c; (c = next.fetch_add(1)) < chunks;)
        fillChunk(c);
    });
  for (std::thread &th : pool)
    th.join();
}

double tessera::tool::relativeError(const HostTensor &a, const HostTensor &b) {
  if (a.dims != b.dims || a.dtype != b.dtype)
    return INFINITY;
  double num = 0, den = 0;
  for (int64_t i = 0, n = a.numElements(); i < n; ++i) {
    double x = a.get(i), y = b.get(i);
    if (std::isnan(x) || std::isnan(y))
      return INFINITY;
    num += (x - y) * (x - y);
    den += y * y;
  }
  if (den == 0)
    return num == 0 ? 0 : INFINITY;
  return std::sqrt(num / den);
}

double tessera::tool::toleranceFor(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return 2e-3;
  case DType::BF16:
    return 1e-2;
  case DType::F8E4M3:
  case DType::F8E5M2:
    return 6e-2;
  case DType::F32:
    return 1e-4;
  case DType::F64:
    return 1e-10;
  default:
    return 0;
  }
}
