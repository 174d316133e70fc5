//===- bundle_fuzzer.cpp - libFuzzer target for the bundle reader ---------===//
//
// What the runtime does with a bundle file it is handed, on arbitrary bytes:
// read and verify it (runtime/lib/bundle), then parse, validate and evaluate
// every image's kernel metadata and grid formulas. Digests make a mutated
// bundle fail verification early, so the metadata and grid parsers are also
// fed the input directly, and the input is wrapped in a bundle by the writer
// and read back, which must round-trip. The fuzzer looks for crashes,
// sanitizer reports and broken round trips.
//
//===----------------------------------------------------------------------===//

#include "tessera/bundle/Bundle.h"
#include "tessera/bundle/GridExpr.h"
#include "tessera/bundle/KernelMetadata.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

using namespace tessera::bundle;

namespace {

[[noreturn]] void broken(const char *what, const std::string &detail) {
  std::fprintf(stderr, "%s: %s\n", what, detail.c_str());
  std::abort();
}

/// Parses, validates and evaluates kernel metadata as a launch would.
void exerciseMetadata(std::string_view text) {
  std::vector<KernelInfo> kernels;
  std::string error;
  if (!parseKernelMetadata(text, "fuzz", kernels, error)) {
    if (error.empty())
      broken("metadata rejected without a message", std::string(text));
    return;
  }
  GridEnv env;
  env.symbols = {{"M", 1000}, {"N", 77}, {"K", 1 << 20}};
  env.dim = [](int64_t arg, int64_t dim, int64_t &value) {
    if (arg < 0 || arg > 3 || dim < 0 || dim > 3)
      return false;
    value = (arg + 1) * 1000 + dim;
    return true;
  };
  for (const KernelInfo &kernel : kernels) {
    validateKernel(kernel, error);
    for (const std::string &formula : kernel.grid) {
      int64_t value;
      evaluateGridExpr(formula, env, value, error);
    }
  }
  // What the printer writes, the parser reads back.
  std::string printed = printKernelMetadata(kernels);
  std::vector<KernelInfo> again;
  if (!parseKernelMetadata(printed, "printed", again, error))
    broken("printed metadata does not parse", error + "\n" + printed);
  if (again.size() != kernels.size())
    broken("printed metadata lost kernels", printed);
}

void exerciseGrid(std::string_view text) {
  std::string error;
  bool syntax = checkGridExprSyntax(text, error);
  GridEnv env;
  env.symbols = {{"M", 3}, {"N", -5}, {"K", INT64_MAX}};
  env.dim = [](int64_t, int64_t, int64_t &value) {
    value = 7;
    return true;
  };
  int64_t value;
  if (evaluateGridExpr(text, env, value, error) && !syntax)
    broken("a formula evaluates but fails the syntax check", std::string(text));
}

/// Strings of a bundle cannot hold NUL: it ends them.
std::string withoutNul(std::string_view text) {
  std::string out(text);
  for (char &c : out)
    if (c == '\0')
      c = ' ';
  return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view input(reinterpret_cast<const char *>(data), size);

  // 1. The input as a bundle file.
  Bundle bundle;
  std::string error;
  if (readBundle(input, "fuzz.tsb", bundle, error)) {
    for (const Image &image : bundle.images)
      exerciseMetadata(image.kernels());
    // A bundle that reads, rewritten, reads back the same.
    Bundle again;
    std::string rewritten = writeBundle(bundle);
    if (!readBundle(rewritten, "rewritten.tsb", again, error))
      broken("a rewritten bundle does not read", error);
    if (again.images.size() != bundle.images.size())
      broken("a rewritten bundle lost images", "");
  } else if (error.empty()) {
    broken("bundle rejected without a message", "");
  }
  if (looksLikeBundle(input))
    return 0;

  // 2. The input as kernel metadata and as a grid formula.
  exerciseMetadata(input);
  if (size < 4096)
    exerciseGrid(input);

  // 3. The input as the contents of an image, written and read back.
  Image image;
  image.imageKind = static_cast<ImageKind>(size % 7);
  image.offloadKind = OffloadKind::Cuda;
  image.setString(kTripleKey, "nvptx64-nvidia-cuda");
  image.setString(kArchKey, "sm_90a");
  image.setString(kKernelsKey, withoutNul(input));
  image.bytes = std::string(input);
  Bundle one;
  one.images = {image, image};
  Bundle back;
  if (!readBundle(writeBundle(one), "written.tsb", back, error))
    broken("a written bundle does not read", error);
  if (back.images.size() != 2 || back.images[1].bytes != image.bytes ||
      back.images[1].kernels() != image.kernels())
    broken("a written bundle reads back different", "");
  return 0;
}
