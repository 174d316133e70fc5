//===- stream_queue.h - an in-order queue run by one worker -----*- C++ -*-===//
//
// A CPU stream: tasks (launches, copies, event records) run one after another
// on the stream's own thread, in the order they were enqueued, so work on one
// stream is ordered and work on different streams overlaps. A launch's task
// itself fans out over the shared ThreadPool.
//
// Thread-safety: enqueue() and synchronize() may be called from any thread.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_CPU_RUNTIME_STREAM_QUEUE_H
#define TESSERA_BACKENDS_CPU_RUNTIME_STREAM_QUEUE_H

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <pthread.h>

namespace tessera::cpu {

class StreamQueue {
public:
  StreamQueue() = default;
  /// Finishes every queued task, then stops the worker.
  ~StreamQueue();
  StreamQueue(const StreamQueue &) = delete;
  StreamQueue &operator=(const StreamQueue &) = delete;

  /// Starts the worker thread; false if the OS refused.
  bool start();
  void enqueue(std::function<void()> task);
  /// Returns once every task enqueued before the call has finished.
  void synchronize();

private:
  void workerLoop();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> tasks_;
  uint64_t enqueued_ = 0;
  uint64_t completed_ = 0;
  bool stopping_ = false;
  bool started_ = false;
  pthread_t worker_{};
};

} // namespace tessera::cpu

#endif
