//===- PipelineSemanticsTest.cpp - the core passes keep a kernel's meaning
//-===//
//
// The reference interpreter runs a kernel as written and again after the
// core passes for a chip (tessera-pipeline: merged blocks, layouts,
// multi-buffered stages, the last gemm of a pipelined loop issued beside the
// next iteration's work), on the same random inputs; the outputs must agree.
// The passes reorder no arithmetic, so they agree to the last bit but for
// the order of a merged block's rows (none here) -- except
// tessera-deepen-keys, whose merged key blocks round P once per deeper
// block (Sm90aDeepenedKeys compares within a tolerance; the other tests
// turn it off).
//
//===----------------------------------------------------------------------===//

#include "TileInterpreter.h"
#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <random>
#include <string>

using namespace mlir;
using namespace tessera;

namespace {

struct Case {
  const char *file;
  /// Sizes of the symbolic dims (by name) and scalar arguments (by position).
  std::map<std::string, int64_t> dims;
  std::map<unsigned, double> scalars;
  /// Tensors of small integers (-2..2): sums of their products are exact in
  /// any order, so passes that change only the order in which a gemm's
  /// products reach its accumulator (shorter K steps) must agree exactly.
  bool integers = false;
};

/// Arguments for `func`: tensors of the named sizes with values in [-1, 1]
/// (the same for the same seed), scalars as given.
std::vector<reference::Arg> argsFor(tile::FuncOp func, const Case &c,
                                    unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<reference::Arg> args;
  for (BlockArgument a : func.getBody().front().getArguments()) {
    reference::Arg arg;
    if (auto t = dyn_cast<tile::GlobalTensorType>(a.getType())) {
      arg.isTensor = true;
      int64_t n = 1;
      for (int64_t d = 0; d < t.getRank(); ++d) {
        int64_t size = t.isDynamicDim(d) ? c.dims.at(t.getSymbol(d).str())
                                         : t.getShape()[d];
        arg.dims.push_back(size);
        n *= size;
      }
      std::uniform_int_distribution<int> small(-2, 2);
      for (int64_t i = 0; i < n; ++i)
        arg.data.push_back(c.integers ? double(small(rng)) : dist(rng));
    } else {
      auto it = c.scalars.find(a.getArgNumber());
      arg.scalar = it == c.scalars.end() ? 0.0 : it->second;
    }
    args.push_back(std::move(arg));
  }
  return args;
}

tile::FuncOp onlyFunc(ModuleOp m) {
  tile::FuncOp f;
  m.walk([&](tile::FuncOp g) { f = g; });
  return f;
}

/// `relTol` 0: the outputs agree to the last bit (1e-9); else within
/// relTol times the largest magnitude of the argument's reference.
void expectSameMeaning(const Case &c, const std::string &chip,
                       double relTol = 0) {
  SCOPED_TRACE(std::string(c.file) + " on " + chip);
  DialectRegistry registry;
  registry.insert<tile::TileDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect>();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  std::string path = c.file[0] == '/'
                         ? std::string(c.file)
                         : std::string(TESSERA_SOURCE_DIR) + "/" + c.file;
  OwningOpRef<ModuleOp> before = parseSourceFile<ModuleOp>(path, &ctx);
  ASSERT_TRUE(before);
  OwningOpRef<ModuleOp> after = before->clone();
  PassManager pm(&ctx);
  passes::buildTesseraPipeline(pm, chip);
  ASSERT_TRUE(succeeded(pm.run(*after)));

  std::vector<reference::Arg> want = argsFor(onlyFunc(*before), c, 7);
  std::vector<reference::Arg> got = argsFor(onlyFunc(*after), c, 7);
  std::string err;
  ASSERT_TRUE(reference::interpret(onlyFunc(*before), want, err)) << err;
  ASSERT_TRUE(reference::interpret(onlyFunc(*after), got, err)) << err;
  ASSERT_EQ(want.size(), got.size());
  for (size_t a = 0; a < want.size(); ++a) {
    ASSERT_EQ(want[a].data.size(), got[a].data.size());
    double largest = 0;
    for (double w : want[a].data)
      largest = std::max(largest, std::fabs(w));
    for (size_t i = 0; i < want[a].data.size(); ++i) {
      double w = want[a].data[i], g = got[a].data[i];
      ASSERT_TRUE(std::isfinite(g)) << "argument " << a << " element " << i;
      double tol =
          relTol > 0 ? relTol * largest + 1e-9 : 1e-9 * (1 + std::fabs(w));
      ASSERT_NEAR(g, w, tol) << "argument " << a << " element " << i;
    }
  }
}

// Attention (two gemms with the softmax between: the second is issued
// beside the next iteration's softmax on sm_90a), a back-to-back MLP, a
// GEMM; sizes that leave partial tiles and loops of one, two and many
// iterations.
const Case kCases[] = {
    {"examples/flash_attention_fwd.mlir",
     {{"B", 1}, {"H", 2}, {"S", 200}},
     {{4, 1.0}, {5, 0.088}}},
    {"examples/flash_attention_fwd.mlir",
     {{"B", 1}, {"H", 1}, {"S", 130}},
     {{4, 0.0}, {5, 0.088}}},
    {"examples/flash_attention_fwd.mlir",
     {{"B", 1}, {"H", 1}, {"S", 40}},
     {{4, 0.0}, {5, 0.088}}},
    {"examples/flash_attention_fwd_q128.mlir",
     {{"B", 1}, {"H", 2}, {"S", 200}},
     {{4, 1.0}, {5, 0.088}}},
    {"examples/flash_attention_fwd_q128.mlir",
     {{"B", 1}, {"H", 1}, {"S", 130}},
     {{4, 0.0}, {5, 0.088}}},
    {"examples/zoo/attn_gqa_d128_causal.mlir",
     {{"B", 1}, {"Hq", 4}, {"Hkv", 2}, {"S", 190}},
     {{4, 0.088}}},
    {"examples/zoo/attn_mqa_d64_bf16.mlir",
     {{"B", 1}, {"H", 2}, {"S", 150}},
     {{4, 0.125}}},
    {"examples/zoo/attn_fwd_d64_causal_bf16.mlir",
     {{"B", 1}, {"H", 2}, {"S", 150}},
     {{4, 0.125}}},
    {"examples/zoo/mlp_b2b_bf16.mlir", {{"M", 100}, {"F", 200}}, {}},
    {"examples/gemm.mlir", {{"M", 130}, {"N", 140}, {"K", 70}}, {}},
    // Shorter K steps (tessera-k-steps; integer inputs, see Case):
    // 128 -> 32 with K past the last full step and a step that starts past
    // K; 64 -> 32 through a rank-reducing copy (batched) and B transposed
    // (tt keeps its steps, A being transposed, as does fp8: the meaning
    // holds either way).
    {"examples/zoo/gemm_bf16_64x64_rowbias.mlir",
     {{"M", 130}, {"N", 300}, {"K", 330}},
     {},
     true},
    {"examples/zoo/gemm_bf16_64x64_rowbias.mlir",
     {{"M", 70}, {"N", 60}, {"K", 20}},
     {},
     true},
    {"examples/zoo/gemm_bf16_tt.mlir",
     {{"M", 140}, {"N", 260}, {"K", 100}},
     {},
     true},
    {"examples/zoo/gemm_batched_bf16.mlir",
     {{"Bt", 2}, {"M", 130}, {"N", 140}, {"K", 90}},
     {},
     true},
    // 16 -> 32 (two K steps of wgmma), K past the last longer step.
    {"tests/lit/passes/Inputs/gemm_k16.mlir",
     {{"M", 130}, {"N", 140}, {"K", 70}},
     {},
     true},
    {"examples/zoo/gemm_fp8_128x256_scaled.mlir",
     {{"M", 130}, {"N", 270}, {"K", 200}},
     {},
     true},
};

/// More cases from the environment (random programs, say):
/// TESSERA_SEMANTICS_CASES="path|N1=v1,N2=v2;path2|..." (absolute paths or
/// relative to the source tree; scalar arguments are 0; `__ints=1` among
/// the sizes draws small integers).
std::vector<std::pair<std::string, Case>> envCases() {
  std::vector<std::pair<std::string, Case>> out;
  const char *env = std::getenv("TESSERA_SEMANTICS_CASES");
  std::string all = env ? env : "";
  size_t pos = 0;
  while (pos < all.size()) {
    size_t end = all.find(';', pos);
    std::string one =
        all.substr(pos, end == std::string::npos ? end : end - pos);
    pos = end == std::string::npos ? all.size() : end + 1;
    size_t bar = one.find('|');
    std::pair<std::string, Case> c;
    c.first = one.substr(0, bar);
    std::string dims = bar == std::string::npos ? "" : one.substr(bar + 1);
    size_t p = 0;
    while (p < dims.size()) {
      size_t e = dims.find(',', p);
      std::string kv = dims.substr(p, e == std::string::npos ? e : e - p);
      p = e == std::string::npos ? dims.size() : e + 1;
      size_t eq = kv.find('=');
      // __ints=1: tensors of small integers (see Case::integers).
      if (kv.substr(0, eq) == "__ints")
        c.second.integers = kv.substr(eq + 1) == "1";
      else
        c.second.dims[kv.substr(0, eq)] = std::stoll(kv.substr(eq + 1));
    }
    out.push_back(std::move(c));
  }
  return out;
}

TEST(PipelineSemantics, Sm90a) {
  setenv("TESSERA_DEEPEN_KEYS", "0", 1);
  for (const Case &c : kCases)
    expectSameMeaning(c, "sm_90a");
  for (auto &[file, c] : envCases()) {
    c.file = file.c_str();
    expectSameMeaning(c, "sm_90a");
  }
  unsetenv("TESSERA_DEEPEN_KEYS");
}

TEST(PipelineSemantics, Sm90aWithMmaOverlap) {
  setenv("TESSERA_MMA_OVERLAP", "1", 1);
  setenv("TESSERA_DEEPEN_KEYS", "0", 1);
  for (const Case &c : kCases)
    expectSameMeaning(c, "sm_90a");
  for (auto &[file, c] : envCases()) {
    c.file = file.c_str();
    expectSameMeaning(c, "sm_90a");
  }
  unsetenv("TESSERA_MMA_OVERLAP");
  unsetenv("TESSERA_DEEPEN_KEYS");
}

/// Loops tessera-deepen-keys deepens in `file` for `chip` (after
/// tessera-widen-blocks, as in the pipeline).
int deepenedLoops(const char *file, const std::string &chip) {
  DialectRegistry registry;
  registry.insert<tile::TileDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect>();
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> m = parseSourceFile<ModuleOp>(
      std::string(TESSERA_SOURCE_DIR) + "/" + file, &ctx);
  if (!m)
    return -1;
  PassManager pm(&ctx);
  pm.addPass(passes::createWidenBlocksPass(chip));
  pm.addPass(passes::createDeepenKeysPass(chip));
  if (failed(pm.run(*m)))
    return -1;
  int n = 0;
  m->walk([&](tile::PipelinedOp p) { n += p->hasAttr("tile.keys_from"); });
  return n;
}

// Key blocks merged to 128 (64 -> 128, 32 -> 128; 32 -> 64 for d256 cross;
// forced where the default keeps them): the same
// values up to P's rounding to the input type and the output's (bf16: 2^-8
// relative, f16: 2^-11), with odd trip counts (half a block past the loop
// masked), causal bounds and a sliding window's lower bound that is not even.
TEST(PipelineSemantics, Sm90aDeepenedKeys) {
  // Forced: by default no deeper than S's rows or the head dimension.
  setenv("TESSERA_DEEPEN_KEYS", "128", 1);
  auto same = [](const Case &c) {
    // bf16 outputs: one bf16 rounding (2^-8) of the output on top.
    bool bf16 = std::string(c.file).find("bf16") != std::string::npos;
    expectSameMeaning(c, "sm_90a", bf16 ? 8e-3 : 2e-3);
  };
  // The attention cases above whose loops deepen (flash d64-row, GQA, MQA,
  // d64 causal; the q128 program's blocks are 128 keys already).
  int deepened = 0;
  for (const Case &c : kCases)
    if (deepenedLoops(c.file, "sm_90a") == 1) {
      ++deepened;
      same(c);
    }
  EXPECT_GE(deepened, 6);
  const Case more[] = {
      {"tests/lit/passes/Inputs/attn_gqa_k32.mlir",
       {{"B", 1}, {"Hq", 2}, {"Hkv", 1}, {"S", 300}},
       {{4, 0.088}}},
      {"examples/zoo/attn_fwd_d256_cross_f16.mlir",
       {{"B", 1}, {"H", 1}, {"Sq", 70}, {"Skv", 100}},
       {{4, 0.0625}}},
      {"examples/zoo/attn_sliding_window_d64.mlir",
       {{"B", 1}, {"H", 1}, {"S", 330}},
       {{4, 0.125}, {5, 100.0}}},
      // Key blocks [1, 5) and [3, 4) and nothing but the loop's bounds to
      // keep the others out: the pass's own masks (scores and, the scale
      // being a scalar of unknown sign, P) do.
      {"tests/lit/passes/Inputs/attn_key_range.mlir",
       {{"B", 1}, {"H", 2}, {"S", 330}},
       {{4, 0.18}, {5, 1}, {6, 5}}},
      {"tests/lit/passes/Inputs/attn_key_range.mlir",
       {{"B", 1}, {"H", 1}, {"S", 330}},
       {{4, 0.18}, {5, 3}, {6, 4}}},
  };
  for (const Case &c : more) {
    EXPECT_EQ(deepenedLoops(c.file, "sm_90a"), 1) << c.file;
    same(c);
  }
  unsetenv("TESSERA_DEEPEN_KEYS");
}

} // namespace
