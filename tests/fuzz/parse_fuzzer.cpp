//===- parse_fuzzer.cpp - libFuzzer target for the tile dialect parser ----===//
//
// Parses arbitrary bytes as a module of tile-dialect IR (with arith, math and
// scf, as tessera-opt registers them), verifies it and, when it verifies,
// prints it and parses the printed text back. Diagnostics are expected and
// swallowed; what the fuzzer looks for is a crash, a sanitizer report, or
// verified IR whose printed form does not parse again.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Dialect/Tile/TileOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace mlir;

// libMLIR.so is not built with AddressSanitizer, but the LLVM headers this
// file and the dialect include are: their inline BumpPtrAllocator poisons the
// slabs it creates and only instrumented code unpoisons what it hands out.
// Storage that libMLIR then allocates from such a slab reads as
// "use-after-poison". Turning user poisoning off removes that false positive
// and keeps every real ASan check.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

static MLIRContext &getContext() {
  // One context for the whole run: loading the dialects per input would
  // dominate the time. Threading off keeps reports deterministic.
  static MLIRContext *context = [] {
    DialectRegistry registry;
    registry.insert<tessera::tile::TileDialect, arith::ArithDialect,
                    math::MathDialect, scf::SCFDialect>();
    auto *ctx = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    return ctx;
  }();
  return *context;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = getContext();
  ScopedDiagnosticHandler swallow(&context,
                                  [](Diagnostic &) { return success(); });
  // A copy ends in a NUL, which the lexer may read past the end.
  std::string text(reinterpret_cast<const char *>(data), size);
  // Upstream MLIR 22 parser crashes (a null dereference, a stack overflow
  // on deep nesting), not tessera's: tessera's own parse paths reject such
  // text with an error first.
  if (tessera::tile::findDenseIndexArray(text) ||
      tessera::tile::findDeepNesting(text))
    return 0;
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, config, "fuzz-input");
  if (!module || failed(verify(*module)))
    return 0;

  std::string printed;
  llvm::raw_string_ostream os(printed);
  module->print(os);
  os.flush();
  ParserConfig reparseConfig(&context, /*verifyAfterParse=*/true);
  OwningOpRef<ModuleOp> again =
      parseSourceString<ModuleOp>(printed, reparseConfig, "fuzz-printed");
  if (!again) {
    std::fprintf(stderr, "verified IR did not parse after printing:\n%s\n",
                 printed.c_str());
    std::abort();
  }
  return 0;
}
