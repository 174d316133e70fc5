//===- tessera/plugin/compiler_plugin.h - compiler plugin interface -*- C++
//-*-===//
//
// The compile side of a backend: a shared library built against libMLIR.so
// and libtessera_compiler.so of the same LLVM major version. The host loads
// it with dlopen(RTLD_NOW | RTLD_LOCAL), checks the LLVM major it was built
// with and the interface version, then asks it to lower tile modules.
//
// A plugin exports:
//   extern "C" const char *tessera_compiler_plugin_llvm_version(void);
//   extern "C" unsigned tessera_compiler_plugin_abi_version(void);
//   extern "C" tessera::CompilerPlugin *tessera_compiler_plugin_create(void);
// TESSERA_DEFINE_COMPILER_PLUGIN(Class) defines all three.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_PLUGIN_COMPILER_PLUGIN_H
#define TESSERA_PLUGIN_COMPILER_PLUGIN_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace tessera {

/// Bumped whenever CompilerPlugin's virtual interface or the structs it
/// passes change. 4: CompiledImage::onDemandBytes. 5: TargetHooks::
/// persistentBlocks / persistentTwin / mmaStartsFromZero, emitPartialBarrier's
/// untilReads. 6: TargetHooks::consumerTurns / emitTurnWait / emitTurnPass,
/// commitMma / waitMma. 7: TargetHooks::canBulkStore / emitBulkStore /
/// emitBulkStoreBarrier / emitBulkStoreWait / canStoreMatrices /
/// emitStoreMatrices. 8: TargetHooks::compactCopies. 9: TargetHooks::
/// loadGlobalKept.
constexpr unsigned kCompilerPluginAbiVersion = 9;

/// What to compile for: a triple and a chip ("sm_90a", "gfx942", "host").
struct CompileTarget {
  std::string triple;
  std::string chip;
  /// Path of the TargetDescription TOML for the chip, if the manifest has one.
  std::string descriptionPath;
};

struct CompileOptions {
  /// 0..3, like -O.
  unsigned optLevel = 3;
  /// Print the IR after every pass to stderr (tessera compile
  /// --print-ir-after-all).
  bool printIRAfterAll = false;
  /// Keep intermediate files (LLVM IR, PTX, objects) in this folder if set.
  std::string dumpDir;
};

/// One compiled image: the bytes a runtime plugin loads, plus what the
/// bundle records about them.
struct CompiledImage {
  std::vector<char> bytes;
  /// OffloadBinary image kind name: "object", "cubin", "ptx", "spirv", "hsaco".
  std::string imageKind;
  /// Per-kernel dynamic shared memory the lowering chose, by tile.func name.
  std::vector<std::pair<std::string, unsigned>> sharedBytes;
  /// Threads per block the lowering chose, by tile.func name, where it
  /// differs from the kernel's `threads` (e.g. an extra producer warpgroup).
  std::vector<std::pair<std::string, unsigned>> threads;
  /// Grid formulas (x, y, z, as in the kernel metadata) by tile.func name,
  /// where the lowering changed the kernel's grid (e.g. rounded up to whole
  /// thread-block clusters).
  std::vector<std::pair<std::string, std::array<std::string, 3>>> grids;
  /// A second image for the same target, empty when there is none, holding
  /// kernels that a launch may need only in rare cases (the cuda backend's
  /// twins of TMA kernels, for tensors a tensor map cannot describe). The
  /// bundle stores it after `bytes`, marked `tessera.on_demand`; the runtime
  /// hands it to its plugin, which loads it only when a launch needs one of
  /// its kernels. Its kind is one of imageKind's.
  std::vector<char> onDemandBytes;
  std::string onDemandKind;
};

class CompilerPlugin {
public:
  virtual ~CompilerPlugin() = default;
  virtual llvm::StringRef name() const = 0;
  /// Lowers a verified tile module for `target`. Reports problems through the
  /// module's MLIRContext diagnostics (with the location of the offending op)
  /// and returns failure; never aborts on bad input.
  virtual mlir::LogicalResult compile(mlir::ModuleOp module,
                                      const CompileTarget &target,
                                      const CompileOptions &options,
                                      CompiledImage &image) = 0;
};

using CompilerPluginCreateFn = CompilerPlugin *(*)();
using CompilerPluginVersionFn = const char *(*)();
using CompilerPluginAbiFn = unsigned (*)();

} // namespace tessera

/// Defines the three entry points of a compiler plugin whose plugin class,
/// default-constructible, is `Class`. Use it once, at global scope, in the
/// plugin library: the LLVM version it reports is the one it was built with.
#define TESSERA_DEFINE_COMPILER_PLUGIN(Class)                                  \
  extern "C" __attribute__((visibility("default"))) const char *               \
  tessera_compiler_plugin_llvm_version() {                                     \
    return LLVM_VERSION_STRING;                                                \
  }                                                                            \
  extern "C" __attribute__((visibility("default"))) unsigned                   \
  tessera_compiler_plugin_abi_version() {                                      \
    return tessera::kCompilerPluginAbiVersion;                                 \
  }                                                                            \
  extern "C" __attribute__((visibility("default"))) tessera::CompilerPlugin *  \
  tessera_compiler_plugin_create() {                                           \
    return new Class();                                                        \
  }

#endif // TESSERA_PLUGIN_COMPILER_PLUGIN_H
