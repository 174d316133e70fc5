//===- shared_object_image.h - dlopen a .so from bytes in memory -*- C++
//-*-===//
//
// A CPU module image is the bytes of a shared object. dlopen needs a path, so
// the bytes go into an anonymous memory file (memfd_create) opened as
// /proc/self/fd/N; where memfd is missing, into a temporary file under
// $TMPDIR (or /tmp) that is unlinked right after dlopen.
//
// glibc recognises an already-loaded library by its path string, so the memfd
// stays open while the library is loaded: the number N, and with it the path,
// cannot be reused for another image until then.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_CPU_RUNTIME_SHARED_OBJECT_IMAGE_H
#define TESSERA_BACKENDS_CPU_RUNTIME_SHARED_OBJECT_IMAGE_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace tessera::cpu {

class SharedObjectImage {
public:
  SharedObjectImage() = default;
  ~SharedObjectImage();
  SharedObjectImage(const SharedObjectImage &) = delete;
  SharedObjectImage &operator=(const SharedObjectImage &) = delete;

  /// Checks that `image` is an ELF shared object and dlopens it. On failure
  /// returns false and sets `error` to a sentence naming the cause.
  bool load(const void *image, uint64_t size, std::string &error);
  /// dlsym in this image only; nullptr when absent.
  void *symbol(const char *name) const;

private:
  void *handle_ = nullptr;
  int fd_ = -1; // the memfd behind handle_, kept open while it is loaded
};

} // namespace tessera::cpu

#endif
