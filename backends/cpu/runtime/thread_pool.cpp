//===- thread_pool.cpp - persistent pool that runs a grid of blocks ------===//

#include "thread_pool.h"
#include "host_thread.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

namespace tessera::cpu {

struct ThreadPool::Job {
  BlockFn fn;
  const uint64_t *slots;
  uint64_t gx, gy;
  uint64_t total;
  uint64_t chunk;
  std::atomic<uint64_t> next{0};
  std::atomic<uint64_t> done{0};
  std::mutex mutex;
  std::condition_variable finished;
  bool isFinished = false;
};

ThreadPool::ThreadPool(unsigned threads) {
  for (unsigned i = 1; i < threads; ++i) {
    pthread_t thread;
    if (!startHostThread([this] { workerLoop(); }, &thread))
      break;
    workers_.push_back(thread);
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (pthread_t thread : workers_)
    pthread_join(thread, nullptr);
}

void ThreadPool::execute(Job &job) {
  uint64_t ran = 0;
  for (;;) {
    uint64_t begin = job.next.fetch_add(job.chunk, std::memory_order_relaxed);
    if (begin >= job.total)
      break;
    uint64_t end = std::min(job.total, begin + job.chunk);
    for (uint64_t i = begin; i < end; ++i) {
      uint64_t bx = i % job.gx;
      uint64_t rest = i / job.gx;
      job.fn(job.slots, int64_t(bx), int64_t(rest % job.gy),
             int64_t(rest / job.gy));
    }
    ran += end - begin;
  }
  if (ran == 0)
    return;
  // acq_rel: the last finisher sees every other thread's block writes, and
  // publishes them to the waiting caller through the mutex below.
  if (job.done.fetch_add(ran, std::memory_order_acq_rel) + ran == job.total) {
    std::lock_guard<std::mutex> lock(job.mutex);
    job.isFinished = true;
    job.finished.notify_all();
  }
}

void ThreadPool::workerLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty())
      return; // stopping, nothing left to help with
    std::shared_ptr<Job> job = jobs_.front();
    if (job->next.load(std::memory_order_relaxed) >= job->total) {
      jobs_.pop_front(); // every block handed out; nothing left to take
      continue;
    }
    lock.unlock();
    execute(*job);
    lock.lock();
  }
}

void ThreadPool::run(BlockFn fn, const uint64_t *slots, uint32_t gx,
                     uint32_t gy, uint32_t gz) {
  auto job = std::make_shared<Job>();
  job->fn = fn;
  job->slots = slots;
  job->gx = gx;
  job->gy = gy;
  job->total = uint64_t(gx) * gy * gz;
  if (job->total == 0)
    return;
  // About four chunks per thread: few enough atomics, enough to rebalance
  // when blocks take different times.
  job->chunk = std::max<uint64_t>(1, job->total / (uint64_t(size()) * 4));

  bool shared = !workers_.empty() && job->total > job->chunk;
  if (shared) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      jobs_.push_back(job);
    }
    wake_.notify_all();
  }
  execute(*job);
  if (!shared)
    return;
  {
    std::unique_lock<std::mutex> lock(job->mutex);
    job->finished.wait(lock, [&] { return job->isFinished; });
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = std::find(jobs_.begin(), jobs_.end(), job);
  if (it != jobs_.end())
    jobs_.erase(it);
}

unsigned defaultPoolThreads() {
  if (const char *env = std::getenv("TESSERA_CPU_THREADS")) {
    char *end = nullptr;
    long value = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && value > 0 && value <= 4096)
      return unsigned(value);
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? hw : 1;
}

} // namespace tessera::cpu
