//===- host_thread.h - threads with a chosen stack size ---------*- C++ -*-===//
//
// Kernel blocks run on pool workers and stream workers. A CPU kernel keeps its
// "shared memory" tiles on the stack, so these threads get a larger stack than
// std::thread's platform default.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_CPU_RUNTIME_HOST_THREAD_H
#define TESSERA_BACKENDS_CPU_RUNTIME_HOST_THREAD_H

#include <cstddef>
#include <functional>
#include <pthread.h>

namespace tessera::cpu {

/// Stack size of every thread the plugin starts.
constexpr size_t kWorkerStackBytes = size_t(16) << 20;

/// A joinable thread running `body`. Returns false if the OS refused.
bool startHostThread(std::function<void()> body, pthread_t *thread);

} // namespace tessera::cpu

#endif
