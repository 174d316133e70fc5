//===- PhaseTimes.h - wall time of the compile's phases ---------*- C++ -*-===//
//
// `tessera compile --time` prints where a compile spent its time: parsing,
// the core passes, distribution, the backend's lowering, LLVM, ptxas. The
// driver and the plugins (which link libtessera_compiler.so, so there is one
// recorder per process) mark phases with a ScopedPhase; the driver clears
// the record before a compile and formats it after.
//
// Recording is always on: a phase costs two clock reads and, at its end, a
// short critical section. Phases may run on several threads at once (a
// backend compiling its kernels in parallel); their times then overlap and
// the report says on which thread each ran.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_CORE_DRIVER_PHASETIMES_H
#define TESSERA_CORE_DRIVER_PHASETIMES_H

#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <string>

namespace tessera {

/// Measures the wall time from its construction to its destruction (or to
/// `stop`) and records it under `name`. Phases nest: a phase started while
/// another is open on the same thread is printed indented below it. A phase
/// on a worker thread names its depth with `depth` (the phases it opens in
/// turn nest below it).
class ScopedPhase {
public:
  explicit ScopedPhase(llvm::StringRef name, int depth = -1);
  ~ScopedPhase() { stop(); }
  ScopedPhase(const ScopedPhase &) = delete;
  ScopedPhase &operator=(const ScopedPhase &) = delete;
  /// Records the phase now (once).
  void stop();
  /// Depth of the phases opened on this thread right now (0: none); pass
  /// it plus one as `depth` to phases of worker threads started here.
  static int currentDepth();

private:
  std::string name;
  int depth = 0;
  int savedDepth;
  unsigned index;
  unsigned generation;
  bool stopped = false;
  std::chrono::steady_clock::time_point start;
};

/// Forgets every recorded phase (a new compile begins).
void clearPhaseTimes();

/// The phases recorded since the last clear, in the order they began, one
/// per line: indentation by depth, the name, the wall time in ms, and
/// "(thread N)" for phases that ran beside others on worker threads.
std::string formatPhaseTimes();

} // namespace tessera

#endif
