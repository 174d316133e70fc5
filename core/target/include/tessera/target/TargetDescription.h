//===- TargetDescription.h - what core passes know about a target -*- C++
//-*-===//
//
// Everything a target-neutral pass may ask about a device: thread/warp sizes,
// memory limits, the shared-memory bank model, the matrix instructions ("MMA
// atoms") with their operand and accumulator layouts, the async-copy
// mechanism and a roofline. Passes choose from this data and never ask "is
// this CUDA?". Read from TOML files; see docs/targets.md for the keys.
//
// Plain C++ (TOML++ header-only), no MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_TARGET_TARGETDESCRIPTION_H
#define TESSERA_TARGET_TARGETDESCRIPTION_H

#include "tessera/layout/LinearLayout.h"
#include "tessera/layout/SharedMemory.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::target {

/// The instruction family of an MMA atom.
enum class MmaKind { MmaSync, Wgmma, Mfma, Wmma, CoopMat, Fma };
const char *toString(MmaKind k); ///< "mma.sync", "wgmma", "mfma", ...
std::optional<MmaKind> parseMmaKind(std::string_view s);

/// How global->shared copies can run asynchronously.
/// How a target overlaps the loads of a pipelined loop's next tiles with
/// compute: not at all (None: one stage), through asynchronous copies into
/// shared memory (cp.async, TMA, LDS DMA), or by loading the next tiles into
/// registers while computing and storing them into the other of two
/// shared-memory stages at the next iteration (Registers: targets without
/// asynchronous copies, e.g. Vulkan and AMD chips here).
enum class AsyncCopyKind { None, CpAsync, Tma, LdsDma, Registers };
/// "none", "cp.async", "tma", "lds_dma", "registers"
const char *toString(AsyncCopyKind k);
std::optional<AsyncCopyKind> parseAsyncCopyKind(std::string_view s);

/// Element types known to targets ("f64", "f32", "tf32", "f16", "bf16",
/// "f8e4m3", "f8e5m2", "i32", "i8", "i4").
const std::vector<std::string> &knownDataTypes();

/// One matrix instruction: C[m x n] += A[m x k] * B[k x n], executed by
/// `warps` warps together.
struct MmaAtom {
  std::string name;
  MmaKind kind = MmaKind::Fma;
  int m = 0, n = 0, k = 0;
  std::string aType, bType, cType;
  /// Layout spec strings (see tessera/layout/LayoutSpec.h), or "shared"
  /// (operand read from shared memory by descriptor, e.g. wgmma B), or
  /// "opaque" (implementation-defined, e.g. Vulkan cooperative matrices).
  std::string aLayoutName, bLayoutName, cLayoutName;
  /// The resolved register layouts; empty for "shared" / "opaque".
  std::optional<layout::LinearLayout> aLayout, bLayout, cLayout;
  int warps = 1;
  /// `c_order = "opaque"`: the accumulator's registers are in an order only
  /// the backend knows (Vulkan cooperative matrices). `cLayout` then only
  /// counts the registers and places the instances; distribution moves the
  /// registers through shared memory (TargetHooks::storeAccumulator /
  /// loadAccumulator) before any op but a gemm with this atom reads them.
  bool cOpaque = false;
  /// `async = true`: the instruction is issued asynchronously and waited
  /// for separately (wgmma), so independent work, another gemm included, may
  /// run while it computes. tessera-pipeline-loops then may issue a loop's
  /// last gemm of one iteration after the first gemm of the next
  /// (docs/passes.md).
  bool async = false;
};

/// How a tile.gemm would use an atom: which operands are stored transposed
/// (A as K x M, B as N x K) and which live in registers. Backends accept or
/// refuse atoms for a use (e.g. fp8 wgmma reads only K-major operands).
struct MmaUse {
  bool transposeA = false, transposeB = false;
  bool aInRegisters = false, bInRegisters = false;
};

struct TargetDescription {
  std::string name;   ///< e.g. "sm_90a"
  std::string triple; ///< e.g. "nvptx64-nvidia-cuda"
  std::string chip;   ///< e.g. "sm_90a", "gfx942", "x86-64-v4"
  int warpSize = 32;  ///< threads per warp / wave / subgroup / SIMD lanes
  int maxThreadsPerBlock = 1024;
  int64_t sharedMemoryPerBlock = 0;      ///< bytes, without opt-in
  int64_t sharedMemoryPerBlockOptin = 0; ///< bytes, the opt-in maximum
  int registersPerThread = 0;            ///< 32-bit registers
  int64_t registersPerBlock = 0;
  layout::BankModel banks;
  std::vector<MmaAtom> mmaAtoms;
  AsyncCopyKind asyncCopy = AsyncCopyKind::None;
  /// Optional: software pipelines shallower than this are deepened to it
  /// where shared memory allows two blocks per multiprocessor (0: never).
  int minPipelineStages = 0;
  /// Optional: pipelined GEMM loops whose operand rows per K step are wider
  /// than this many bytes get shorter K steps (tessera-k-steps) where
  /// each still does at least `minKStepMacs` multiply-adds per block (0:
  /// never for this reason).
  int maxKStepBytes = 0;
  int64_t minKStepMacs = 0;
  /// Optional: blocks of one thread-block cluster that one copy can fill at
  /// once (a multicast bulk copy), or 1: no clusters. tessera-raster-order
  /// pairs GEMM blocks that share an operand into clusters where this is 2.
  int clusterMulticast = 1;
  /// Optional: the columns a GEMM block's tile may be widened to by merging
  /// neighbouring blocks along x (tessera-widen-blocks), or 0: never.
  int widenTileN = 0;
  /// Optional: the rows a GEMM block's tile may be widened to by merging
  /// neighbouring blocks along y, or 0: never.
  int widenTileM = 0;
  /// Optional: the keys per iteration an online-softmax loop's key blocks
  /// may be deepened to (tessera-deepen-keys), or 0: never.
  int softmaxKeyBlock = 0;
  /// Optional: a warp-specialized kernel whose block reads a tile it copies
  /// before its pipelined loop (attention's Q) walks its tiles on
  /// persistent blocks where two copies of that tile fit
  /// (tessera-pipeline-loops).
  bool persistentBlocks = false;
  /// Optional: 32-bit words per thread the largest fragment of a kernel may
  /// take before tessera-split-threads doubles its threads (same tile, more
  /// threads: fewer accumulator words each), or 0: never.
  int maxFragmentWordsPerThread = 0;
  int globalLoadVectorBytes = 16; ///< widest global load per thread
  std::map<std::string, double>
      peakFlops;              ///< per input dtype, FLOP/s (or OP/s)
  double memoryBandwidth = 0; ///< bytes/s
  int64_t l2Bytes = 0;
  int computeUnits = 0;   ///< SMs / CUs / cores
  std::string sourceFile; ///< where it was read from

  /// Atoms whose inputs are `ab` and accumulator is `c` (e.g. "f16","f32").
  std::vector<const MmaAtom *> findMmaAtoms(std::string_view ab,
                                            std::string_view c) const;
  const MmaAtom *findMmaAtom(std::string_view name) const;
};

/// Parses TOML text; `fileName` prefixes every message. On error returns
/// nullopt and sets *error to e.g.
///   "sm_90a.toml: missing key 'shared_memory.per_block'"
///   "sm_90a.toml: key 'warp_size' must be an integer, got string"
///   "sm_90a.toml:3:1: TOML syntax error: ..."
std::optional<TargetDescription>
parseTargetDescription(std::string_view toml, const std::string &fileName,
                       std::string *error);
/// Reads and parses a file.
std::optional<TargetDescription> loadTargetDescription(const std::string &path,
                                                       std::string *error);

/// The target files shipped in the source tree, relative to its root.
const std::vector<std::string> &shippedTargetFiles();

} // namespace tessera::target

#endif
