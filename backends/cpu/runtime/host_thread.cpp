//===- host_thread.cpp - threads with a chosen stack size ----------------===//

#include "host_thread.h"

#include <memory>

namespace tessera::cpu {

static void *threadMain(void *arg) {
  std::unique_ptr<std::function<void()>> body(
      static_cast<std::function<void()> *>(arg));
  (*body)();
  return nullptr;
}

bool startHostThread(std::function<void()> body, pthread_t *thread) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0)
    return false;
  pthread_attr_setstacksize(&attr, kWorkerStackBytes);
  auto *heapBody = new std::function<void()>(std::move(body));
  int rc = pthread_create(thread, &attr, threadMain, heapBody);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    delete heapBody;
    return false;
  }
  return true;
}

} // namespace tessera::cpu
