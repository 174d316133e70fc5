//===- LayoutSpec.cpp - layouts by name or spec string, layout dumps ------===//
#include "tessera/layout/LayoutSpec.h"
#include "tessera/layout/NamedLayouts.h"
#include "tessera/layout/Print.h"
#include "tessera/layout/SharedMemory.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>

namespace tessera::layout {

namespace {

[[noreturn]] void fail(const std::string &spec, const std::string &why) {
  throw LayoutError("layout spec '" + spec + "': " + why);
}

int32_t parseInt(const std::string &spec, const std::string &key,
                 const std::string &v) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos ||
      v.size() > 9)
    fail(spec, "'" + key + "' must be a positive integer, got '" + v + "'");
  return int32_t(std::stol(v));
}

std::vector<int32_t> parseDims(const std::string &spec, const std::string &key,
                               const std::string &v) {
  std::vector<int32_t> r;
  size_t pos = 0;
  while (true) {
    size_t x = v.find('x', pos);
    r.push_back(parseInt(spec, key, v.substr(pos, x - pos)));
    if (x == std::string::npos)
      break;
    pos = x + 1;
  }
  return r;
}

/// key=value,key=value; every key must be used (unknown keys are errors).
class Params {
public:
  Params(const std::string &spec, const std::string &body) : spec(spec) {
    size_t pos = 0;
    while (pos <= body.size() && !body.empty()) {
      size_t comma = body.find(',', pos);
      std::string item = body.substr(pos, comma - pos);
      size_t eq = item.find('=');
      if (eq == std::string::npos)
        fail(spec, "expected key=value, got '" + item + "'");
      kv[item.substr(0, eq)] = item.substr(eq + 1);
      if (comma == std::string::npos)
        break;
      pos = comma + 1;
    }
  }
  bool has(const std::string &k) const { return kv.count(k); }
  std::string str(const std::string &k) {
    auto it = kv.find(k);
    if (it == kv.end())
      fail(spec, "missing key '" + k + "'");
    used.push_back(k);
    return it->second;
  }
  int32_t i(const std::string &k) { return parseInt(spec, k, str(k)); }
  int32_t i(const std::string &k, int32_t dflt) { return has(k) ? i(k) : dflt; }
  std::vector<int32_t> dims(const std::string &k) {
    return parseDims(spec, k, str(k));
  }
  std::vector<int32_t> dims(const std::string &k, std::vector<int32_t> d) {
    return has(k) ? dims(k) : d;
  }
  void done() const {
    for (auto &[k, v] : kv)
      if (std::find(used.begin(), used.end(), k) == used.end())
        fail(spec, "unknown key '" + k + "'");
  }

private:
  std::string spec;
  std::map<std::string, std::string> kv;
  std::vector<std::string> used;
};

MmaOperand operandOf(const std::string &spec, const std::string &s) {
  if (s == "a")
    return MmaOperand::A;
  if (s == "b")
    return MmaOperand::B;
  if (s == "c")
    return MmaOperand::C;
  fail(spec, "unknown operand '" + s + "'");
}

} // namespace

LinearLayout parseLayoutSpec(const std::string &spec) {
  try {
    size_t colon = spec.find(':');
    if (colon != std::string::npos) {
      std::string family = spec.substr(0, colon);
      Params p(spec, spec.substr(colon + 1));
      LinearLayout l;
      if (family == "blocked") {
        BlockedSpec b;
        b.sizePerThread = p.dims("sizePerThread");
        b.threadsPerWarp = p.dims("threadsPerWarp");
        b.warpsPerBlock = p.dims("warpsPerBlock");
        b.order = p.dims("order");
        b.shape = p.dims("shape", {});
        l = blockedLayout(b);
      } else if (family == "copy") {
        auto shape = p.dims("shape");
        int eb = p.i("elemBytes");
        int ws = p.i("warpSize");
        int w = p.i("warps");
        auto order = p.dims("order", {});
        int vb = p.i("vectorBytes", 16);
        l = vectorizedCopyLayout(shape, eb, ws, w, order, vb);
      } else if (family == "swizzle") {
        int r = p.i("rows"), c = p.i("cols");
        SwizzleParams sp{p.i("vec"), p.i("perPhase"), p.i("maxPhase")};
        l = swizzledSharedLayout(r, c, sp);
      } else if (family == "nvmma") {
        int r = p.i("rows"), c = p.i("cols"), eb = p.i("elemBytes");
        l = nvmmaSharedLayout(r, c, eb, p.i("swizzle"));
      } else if (family == "tile") {
        LinearLayout atom = parseLayoutSpec(p.str("atom"));
        auto w = p.dims("warpsPerBlock");
        l = tileAtom(atom, w, p.dims("shape"));
      } else {
        fail(spec, "unknown layout family '" + family + "'");
      }
      p.done();
      return l;
    }
    std::smatch m;
    static const std::regex mma("mma_m16n8k16_([abc])");
    static const std::regex mma8("mma_m16n8k32_b8_([abc])");
    static const std::regex wgAcc("wgmma_m64n([0-9]+)k16_acc");
    static const std::regex mfma32("mfma_32x32x8_f16_([abc])");
    static const std::regex mfma16("mfma_16x16x16_f16_([abc])");
    static const std::regex wmma("wmma_16x16x16_f16_([abc])");
    if (std::regex_match(spec, m, mma))
      return mmaM16N8K16(operandOf(spec, m[1]));
    if (std::regex_match(spec, m, mma8))
      return mmaM16N8K32Byte(operandOf(spec, m[1]));
    if (std::regex_match(spec, m, wgAcc))
      return wgmmaM64K16Acc(parseInt(spec, "N", m[1]));
    if (spec == "wgmma_m64k16_a")
      return wgmmaM64K16A();
    if (std::regex_match(spec, m, mfma32))
      return mfma32x32x8F16(operandOf(spec, m[1]));
    if (std::regex_match(spec, m, mfma16))
      return mfma16x16x16F16(operandOf(spec, m[1]));
    if (std::regex_match(spec, m, wmma))
      return wmma16x16x16F16(operandOf(spec, m[1]));
    fail(spec, "unknown layout name");
  } catch (const LayoutError &e) {
    std::string msg = e.what();
    if (msg.rfind("layout spec '", 0) == 0)
      throw;
    fail(spec, msg);
  }
}

std::vector<std::string> namedLayoutExamples() {
  return {"mma_m16n8k16_a",
          "mma_m16n8k16_b",
          "mma_m16n8k16_c",
          "mma_m16n8k32_b8_a",
          "mma_m16n8k32_b8_b",
          "wgmma_m64n64k16_acc",
          "wgmma_m64k16_a",
          "mfma_32x32x8_f16_a",
          "mfma_32x32x8_f16_b",
          "mfma_32x32x8_f16_c",
          "mfma_16x16x16_f16_a",
          "mfma_16x16x16_f16_b",
          "mfma_16x16x16_f16_c",
          "wmma_16x16x16_f16_a",
          "wmma_16x16x16_f16_b",
          "wmma_16x16x16_f16_c",
          "blocked:sizePerThread=1x4,threadsPerWarp=8x4,warpsPerBlock=4x1,"
          "order=1x0,shape=64x64",
          "copy:shape=64x64,elemBytes=2,warpSize=32,warps=4",
          "swizzle:rows=32,cols=64,vec=8,perPhase=1,maxPhase=8",
          "nvmma:rows=64,cols=64,elemBytes=2,swizzle=128",
          "tile:atom=mma_m16n8k16_c,warpsPerBlock=2x2,shape=64x64"};
}

int dumpLayoutsMain(const std::vector<std::string> &args, std::ostream &out,
                    std::ostream &err) {
  std::string svg;
  bool basesOnly = false;
  std::vector<std::string> specs;
  for (auto &a : args) {
    if (a.rfind("--svg=", 0) == 0)
      svg = a.substr(6);
    else if (a == "--bases")
      basesOnly = true;
    else if (a == "--list") {
      for (auto &n : namedLayoutExamples())
        out << n << "\n";
      return 0;
    } else if (a.rfind("--", 0) == 0) {
      err << "dump-layouts: unknown option '" << a << "'\n";
      return 1;
    } else
      specs.push_back(a);
  }
  if (specs.empty()) {
    err << "dump-layouts: no layout given (try --list)\n";
    return 1;
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    try {
      LinearLayout l = parseLayoutSpec(specs[i]);
      out << "layout " << specs[i] << "\n";
      if (basesOnly)
        out << l << "\n";
      else
        printLayoutTable(l, out);
      if (!svg.empty()) {
        std::string file = svg;
        if (specs.size() > 1) {
          size_t dot = file.rfind('.');
          std::string suffix = "-" + std::to_string(i);
          file = dot == std::string::npos
                     ? file + suffix
                     : file.substr(0, dot) + suffix + file.substr(dot);
        }
        std::ofstream f(file);
        if (!f) {
          err << "dump-layouts: cannot write '" << file << "'\n";
          return 1;
        }
        printLayoutSVG(l, f);
      }
    } catch (const LayoutError &e) {
      err << "dump-layouts: " << e.what() << "\n";
      return 1;
    }
  }
  return 0;
}

} // namespace tessera::layout
