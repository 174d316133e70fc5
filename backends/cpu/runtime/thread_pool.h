//===- thread_pool.h - persistent pool that runs a grid of blocks -*- C++
//-*-===//
//
// One pool per plugin. A launch is a "job": the grid's blocks numbered
// 0..total-1 and handed out in chunks through one atomic counter, so a fast
// thread simply takes more chunks (no per-thread queues to balance). The
// launching thread takes chunks too, which makes a one-thread pool run every
// block on the caller, in order. Concurrent launches (from several streams)
// queue their jobs; idle workers help the oldest job that still has blocks.
//
// Thread-safety: run() may be called from any number of threads at once.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_CPU_RUNTIME_THREAD_POOL_H
#define TESSERA_BACKENDS_CPU_RUNTIME_THREAD_POOL_H

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <vector>

namespace tessera::cpu {

/// The CPU kernel ABI: called once per block with the launch's 8-byte slots
/// and the block's coordinates.
using BlockFn = void (*)(const uint64_t *slots, int64_t bx, int64_t by,
                         int64_t bz);

class ThreadPool {
public:
  /// `threads` counts every thread that executes blocks, the caller included;
  /// the pool starts threads - 1 workers. Fewer start if the OS refuses.
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  /// Threads that execute blocks, the caller included.
  unsigned size() const { return unsigned(workers_.size()) + 1; }

  /// Runs fn for each block of the gx*gy*gz grid (x fastest) and returns when
  /// all blocks have finished. `slots` must stay valid until then.
  void run(BlockFn fn, const uint64_t *slots, uint32_t gx, uint32_t gy,
           uint32_t gz);

private:
  struct Job;
  void workerLoop();
  static void execute(Job &job);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> jobs_;
  bool stopping_ = false;
  std::vector<pthread_t> workers_;
};

/// Threads a new pool should use: $TESSERA_CPU_THREADS when it is a positive
/// integer, else the hardware thread count (at least 1).
unsigned defaultPoolThreads();

} // namespace tessera::cpu

#endif
