//===- KeyAgreementTest.cpp - the tool's key is the compiler's key
//---------===//
//
// The `tessera` tool answers cached compiles without LLVM, so it must compute
// the very key, host triple and LLVM version that libtessera_compiler uses.
// These link the compiler and compare the two sides.
//
//===----------------------------------------------------------------------===//

#include "BundleCompiler.h"
#include "CompileKey.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <unistd.h>

using namespace tessera;

namespace {

TEST(KeyAgreement, HostTripleIsLlvmsProcessTriple) {
  llvm::Triple t(llvm::sys::getProcessTriple());
  if (t.getVendor() == llvm::Triple::PC)
    t.setVendor(llvm::Triple::UnknownVendor);
  EXPECT_EQ(hostTriple(), t.str());
}

TEST(KeyAgreement, LlvmVersionIsTheCompilersLlvm) {
  EXPECT_STREQ(compileKeyLlvmVersion(), LLVM_VERSION_STRING);
}

TEST(KeyAgreement, ToolKeyEqualsCompileBundleKey) {
  char tmpl[] = "/tmp/tessera-key-XXXXXX";
  ASSERT_TRUE(mkdtemp(tmpl));
  std::string dir = tmpl;
  CompilerPluginIndex index({TESSERA_PLUGIN_DIR});
  ASSERT_NE(index.find(hostTriple()), nullptr)
      << "no CPU compiler plugin in " << TESSERA_PLUGIN_DIR;
  struct Case {
    std::vector<std::string> targets;
    unsigned opt;
  } cases[] = {
      {{}, 3},
      {{}, 0},
      {{hostTriple()}, 2},
      {{hostTriple() + ":host"}, 2},
  };
  std::string source = TESSERA_EXAMPLES_DIR "/elementwise_add.mlir";
  std::vector<std::string> seen;
  for (const Case &c : cases) {
    std::string toolKey, error;
    ASSERT_TRUE(compileCacheKeyForFile(source, c.targets, int(c.opt), index,
                                       toolKey, error))
        << error;
    mlir::DialectRegistry registry;
    registerTileModuleDialects(registry);
    mlir::MLIRContext ctx(registry);
    CompilerPluginRegistry plugins(index);
    CompileCache cache(dir + "/cache");
    BundleRequest request;
    request.sourcePath = source;
    request.targets = c.targets;
    request.options.optLevel = c.opt;
    BundleResult result;
    ASSERT_TRUE(
        mlir::succeeded(compileBundle(request, ctx, plugins, cache, result)));
    EXPECT_EQ(result.key, toolKey);
    EXPECT_EQ(result.cacheState, "miss");
    std::string payload;
    EXPECT_EQ(cache.get(toolKey, payload), CompileCache::Lookup::Hit);
    EXPECT_EQ(payload, result.bytes);
    seen.push_back(toolKey);
  }
  // Each case above is its own entry...
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end());
  // ...while no target means the host triple: the same compile, one key.
  std::string implicit, explicitHost, error;
  ASSERT_TRUE(compileCacheKeyForFile(source, {}, 3, index, implicit, error));
  ASSERT_TRUE(compileCacheKeyForFile(source, {hostTriple()}, 3, index,
                                     explicitHost, error));
  EXPECT_EQ(implicit, explicitHost);
  (void)std::system(("rm -rf '" + dir + "'").c_str());
}

} // namespace
