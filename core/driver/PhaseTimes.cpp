//===- PhaseTimes.cpp - wall time of the compile's phases -----------------===//

#include "PhaseTimes.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <thread>
#include <vector>

using namespace tessera;

namespace {

struct Phase {
  std::string name;
  int depth = 0;
  unsigned thread = 0;
  double ms = -1; // still open
};

struct Record {
  std::mutex mutex;
  std::vector<Phase> phases;
  std::vector<std::thread::id> threads;
  unsigned generation = 0;

  unsigned threadNumber(std::thread::id id) {
    for (unsigned i = 0; i < threads.size(); ++i)
      if (threads[i] == id)
        return i;
    threads.push_back(id);
    return threads.size() - 1;
  }
};

Record &record() {
  static Record r;
  return r;
}

thread_local int openPhases = 0;

} // namespace

ScopedPhase::ScopedPhase(llvm::StringRef name, int depth)
    : name(name.str()), savedDepth(openPhases) {
  if (depth >= 0)
    openPhases = depth;
  this->depth = openPhases;
  Record &r = record();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    index = r.phases.size();
    generation = r.generation;
    Phase p;
    p.name = this->name;
    p.depth = this->depth;
    p.thread = r.threadNumber(std::this_thread::get_id());
    r.phases.push_back(std::move(p));
  }
  ++openPhases;
  start = std::chrono::steady_clock::now();
}

void ScopedPhase::stop() {
  if (stopped)
    return;
  stopped = true;
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  openPhases = savedDepth;
  Record &r = record();
  std::lock_guard<std::mutex> lock(r.mutex);
  // A clear since the phase began (nothing of this compile to add to).
  if (generation != r.generation || index >= r.phases.size())
    return;
  r.phases[index].ms = ms;
}

int ScopedPhase::currentDepth() { return openPhases; }

void tessera::clearPhaseTimes() {
  Record &r = record();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.phases.clear();
  r.threads.clear();
  ++r.generation;
}

std::string tessera::formatPhaseTimes() {
  Record &r = record();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::string out;
  llvm::raw_string_ostream os(out);
  for (const Phase &p : r.phases) {
    if (p.ms < 0)
      continue;
    std::string label = std::string(2 * p.depth, ' ') + p.name;
    os << "  " << llvm::left_justify(label, 44) << " "
       << llvm::format("%8.1f ms", p.ms);
    if (p.thread != 0)
      os << " (thread " << p.thread << ")";
    os << "\n";
  }
  return out;
}
