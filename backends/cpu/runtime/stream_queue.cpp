//===- stream_queue.cpp - an in-order queue run by one worker ------------===//

#include "stream_queue.h"
#include "host_thread.h"

namespace tessera::cpu {

bool StreamQueue::start() {
  started_ = startHostThread([this] { workerLoop(); }, &worker_);
  return started_;
}

StreamQueue::~StreamQueue() {
  if (!started_)
    return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  pthread_join(worker_, nullptr);
}

void StreamQueue::enqueue(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks_.push_back(std::move(task));
    ++enqueued_;
  }
  changed_.notify_all();
}

void StreamQueue::synchronize() {
  std::unique_lock<std::mutex> lock(mutex_);
  uint64_t target = enqueued_;
  changed_.wait(lock, [&] { return completed_ >= target; });
}

void StreamQueue::workerLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
    if (tasks_.empty())
      return; // stopping and drained
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task();
    task = nullptr; // release captures before reporting completion
    lock.lock();
    ++completed_;
    changed_.notify_all();
  }
}

} // namespace tessera::cpu
