//===- SplitThreads.cpp - tessera-split-threads ---------------------------===//
//
// Gives a block more threads for the same tile where its largest fragment
// would take more registers per thread than the target wants. A 128x128 f32
// accumulator over 128 threads is 128 words per thread; over 256 threads it
// is 64. On a target whose compiler holds the accumulator beside the matrix
// operands it loads itself, the next tile's staged pieces and addresses
// (NVIDIA's Vulkan driver: 255 registers and spills for gemm.mlir's 4
// subgroups of 64x64), more threads with fewer words each may fit the
// register file without spilling, and more warps per multiprocessor.
//
// When: the target has `max_fragment_words_per_thread = W` (0 or absent:
// never; the shipped GPU targets: 128, so that a 128x256 f32 accumulator
// over 128 threads fits the register file), and the kernel's largest fragment,
// with the layouts tessera-infer-layouts gives it, takes more than W words per
// thread. The threads double while that holds and doubling helps: layouts
// inferred on a copy of the kernel with twice the threads give the largest
// fragment fewer words per thread (an accumulator of atoms spread over twice
// the warps, not replicated), the threads stay at most 256 and the target's
// max_threads_per_block, and the single-buffered shared tiles with the
// scratch distribution places after them (reductions' partials per warp
// group, the reorder regions of opaque accumulators, one per warp) still fit
// the block's shared memory (`shared_memory.per_block`) where they did.
// Nothing else changes: the grid, the tiles and the program's ops are as
// written; layout inference then spreads the fragments over the new warps.
//
// Only where the program cannot tell (threadCountDependence: no local
// tiles, no fragment layouts written by the program, no ops the passes do
// not interpret). A program keeps its threads with `attributes
// {tile.split_threads = 1}` on the tile.kernel; TESSERA_SPLIT_THREADS=<W>
// applies the rule with W words on any target (A/B measurements);
// TESSERA_SPLIT_THREADS=0
// turns the pass off (A/B measurements; in the compile cache key) and
// TESSERA_SPLIT_THREADS=explain puts a remark on each kernel of such a
// target saying what it did or why not. A kernel whose threads changed
// carries `tile.threads_from = N` (the threads the program wrote), visible
// in --print-ir-after-all; its launch threads are what the kernel metadata
// records.
//
//===----------------------------------------------------------------------===//

#include "FragmentLiveness.h"
#include "PassCommon.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;
using namespace tessera;
using namespace tessera::tile;

namespace tessera::passes {
namespace {

/// The most threads the pass gives a block.
constexpr int64_t kMaxThreads = 256;

/// A kernel measured with some number of threads.
struct Measure {
  bool inferred = false;
  /// Words per thread of the largest fragment, and its type.
  int64_t largest = 0;
  TileType largestTile;
  /// Single-buffered shared tiles plus the scratch after them.
  int64_t sharedBytes = 0;
};

/// Infers layouts on a copy of the kernel's function with `threads`
/// threads and measures it; the kernel is untouched.
Measure measure(KernelOp kernel, int64_t threads,
                const target::TargetDescription &tgt,
                const AtomFilter &filter) {
  OwningOpRef<Operation *> copy(kernel->getParentOp()->clone());
  KernelOp k;
  copy->walk([&](KernelOp found) { k = found; });
  Measure m;
  if (!k)
    return m;
  k.setThreads(threads);
  {
    // A kernel layout inference rejects with its own threads is rejected
    // again, with its diagnostic, by tessera-infer-layouts.
    ScopedDiagnosticHandler quiet(kernel.getContext(),
                                  [](Diagnostic &) { return success(); });
    m.inferred = succeeded(inferKernelLayouts(k, tgt, true, filter));
  }
  if (!m.inferred)
    return m;
  k.walk([&](AllocOp a) {
    int64_t w = fragmentTileWords(a.getType());
    if (w > m.largest) {
      m.largest = w;
      m.largestTile = a.getType();
    }
  });
  m.sharedBytes = plannedSharedBytesWithScratch(k, tgt) +
                  reorderRegionsOf(k, tgt).bytes(threads / tgt.warpSize);
  return m;
}

std::string describe(TileType t) {
  return t ? describeTile(withLayout(t, LayoutAttr())) : std::string("none");
}

/// Splits the kernel's threads if it should; returns what it did or why
/// not (for TESSERA_SPLIT_THREADS=explain).
std::string splitThreads(KernelOp kernel, const target::TargetDescription &tgt,
                         const AtomFilter &filter, bool &stillOver) {
  stillOver = false;
  int64_t limit = tgt.maxFragmentWordsPerThread;
  int64_t threads = kernel.getThreads();
  if (std::string why = threadCountDependence(kernel); !why.empty())
    return "threads kept: the program could tell how many run it (" + why + ")";
  Measure now = measure(kernel, threads, tgt, filter);
  if (!now.inferred)
    return "threads kept: layout inference fails";
  std::string out;
  llvm::raw_string_ostream os(out);
  if (now.largest <= limit) {
    os << "threads kept: the largest fragment (" << describe(now.largestTile)
       << ") takes " << now.largest << " words per thread, at most the "
       << limit << " of target '" << tgt.name << "'";
    return out;
  }
  int64_t n = threads;
  Measure at = now;
  std::string stop;
  llvm::raw_string_ostream why(stop);
  while (at.largest > limit) {
    int64_t next = 2 * n;
    if (next > kMaxThreads || next > tgt.maxThreadsPerBlock) {
      why << "more than "
          << std::min<int64_t>(kMaxThreads, tgt.maxThreadsPerBlock)
          << " threads";
      break;
    }
    Measure m = measure(kernel, next, tgt, filter);
    if (!m.inferred) {
      why << "layout inference fails with " << next << " threads";
      break;
    }
    if (m.largest >= at.largest) {
      why << "with " << next << " threads the largest fragment ("
          << describe(m.largestTile) << ") still takes " << m.largest
          << " words per thread";
      break;
    }
    if (m.sharedBytes > std::max(at.sharedBytes, tgt.sharedMemoryPerBlock)) {
      why << "with " << next << " threads the shared tiles and scratch "
          << "would take " << m.sharedBytes << " bytes, more than the "
          << tgt.sharedMemoryPerBlock << " of a block";
      break;
    }
    n = next;
    at = m;
  }
  stillOver = at.largest > limit;
  if (n == threads) {
    os << "threads kept: the largest fragment (" << describe(now.largestTile)
       << ") takes " << now.largest << " words per thread, more than the "
       << limit << " of target '" << tgt.name << "', but " << stop;
    return out;
  }
  kernel.setThreads(n);
  Builder b(kernel.getContext());
  kernel->setAttr("tile.threads_from", b.getI64IntegerAttr(threads));
  os << "threads " << threads << " -> " << n << ": the largest fragment ("
     << describe(now.largestTile) << ") takes " << at.largest
     << " words per thread instead of " << now.largest;
  if (at.largest > limit)
    os << " (more than the " << limit << " of target '" << tgt.name
       << "': " << stop << ")";
  return out;
}

struct SplitThreadsPass : TargetPass<SplitThreadsPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SplitThreadsPass)
  SplitThreadsPass() = default;
  SplitThreadsPass(const SplitThreadsPass &o)
      : TargetPass(o), atomFilter(o.atomFilter) {}
  StringRef getName() const override { return "TesseraSplitThreads"; }
  StringRef getArgument() const override { return "tessera-split-threads"; }
  StringRef getDescription() const override {
    return "Double a block's threads (same tile) where its largest fragment "
           "would take more registers per thread than the target wants";
  }
  /// Atoms the backend can emit (all when empty); set from C++ only.
  AtomFilter atomFilter;

  void runWithTarget(const target::TargetDescription &target) {
    const char *env = std::getenv("TESSERA_SPLIT_THREADS");
    bool explain = env && std::string(env) == "explain";
    // TESSERA_SPLIT_THREADS=<W> (a positive integer): the rule with W words
    // on any target (A/B measurements).
    target::TargetDescription t = target;
    if (env) {
      char *end = nullptr;
      long w = std::strtol(env, &end, 10);
      if (end != env && *end == 0 && w > 0)
        t.maxFragmentWordsPerThread = w;
    }
    if (t.maxFragmentWordsPerThread <= 0 || (env && std::string(env) == "0"))
      return;
    for (KernelOp kernel : kernelsOf(getOperation())) {
      if (auto a = kernel->getAttrOfType<IntegerAttr>("tile.split_threads")) {
        if (a.getInt() < 1) {
          kernel.emitOpError("tile.split_threads must be at least 1, got ")
              << a.getInt();
          return signalPassFailure();
        }
        if (a.getInt() == 1) {
          if (explain)
            kernel.emitRemark() << "threads kept: tile.split_threads = 1";
          continue;
        }
      }
      // Split once: a kernel that records its threads was split before.
      if (kernel->hasAttr("tile.threads_from"))
        continue;
      bool stillOver = false;
      std::string what = splitThreads(kernel, t, atomFilter, stillOver);
      if (explain)
        kernel.emitRemark() << what;
      // Where the largest fragment still takes more words than the target
      // wants, distribution's register error (if it comes) says why the
      // threads stopped there.
      if (stillOver)
        kernel->setAttr("tile.threads_kept",
                        StringAttr::get(kernel.getContext(), what));
    }
  }
};

} // namespace

std::unique_ptr<Pass> createSplitThreadsPass(const std::string &target,
                                             AtomFilter filter) {
  auto p = makeTargetPass<SplitThreadsPass>(target);
  p->atomFilter = std::move(filter);
  return p;
}
void registerSplitThreadsPass() { PassRegistration<SplitThreadsPass>(); }

} // namespace tessera::passes
