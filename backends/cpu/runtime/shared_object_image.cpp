//===- shared_object_image.cpp - dlopen a .so from bytes in memory -------===//

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "shared_object_image.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <sys/mman.h>
#include <unistd.h>

namespace tessera::cpu {

static bool writeAll(int fd, const void *data, uint64_t size) {
  const char *p = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    p += n;
    size -= uint64_t(n);
  }
  return true;
}

/// Rejects what is clearly not a shared object for this process, with a
/// clearer message than dlopen gives.
static bool checkElfHeader(const void *image, uint64_t size,
                           std::string &error) {
  const auto *bytes = static_cast<const unsigned char *>(image);
  if (size < sizeof(Elf64_Ehdr) || std::memcmp(bytes, ELFMAG, SELFMAG) != 0) {
    error = "cpu module image is not an ELF shared object (" +
            std::to_string(size) + " bytes, no ELF header)";
    return false;
  }
  if (bytes[EI_CLASS] != ELFCLASS64) {
    error = "cpu module image is not a 64-bit ELF object";
    return false;
  }
  Elf64_Ehdr header;
  std::memcpy(&header, image, sizeof(header));
  if (header.e_type != ET_DYN) {
    error = "cpu module image is an ELF object of type " +
            std::to_string(header.e_type) +
            ", not a shared object (link it with -shared)";
    return false;
  }
  return true;
}

SharedObjectImage::~SharedObjectImage() {
  if (handle_) {
    dlclose(handle_);
    if (fd_ >= 0) {
      // If the library is still mapped (dlclose may keep it, e.g. for
      // STB_GNU_UNIQUE symbols), glibc still knows it by /proc/self/fd/N;
      // keep N reserved so a later image never matches that stale name.
      char path[64];
      std::snprintf(path, sizeof(path), "/proc/self/fd/%d", fd_);
      void *still = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
      if (still)
        dlclose(still);
      else
        ::close(fd_);
    }
  } else if (fd_ >= 0) {
    ::close(fd_);
  }
}

bool SharedObjectImage::load(const void *image, uint64_t size,
                             std::string &error) {
  if (!image || !checkElfHeader(image, size, error)) {
    if (!image)
      error = "cpu module image is NULL";
    return false;
  }

  int fd = memfd_create("tessera_cpu_module", MFD_CLOEXEC);
  if (fd >= 0) {
    char path[64];
    std::snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    if (!writeAll(fd, image, size)) {
      error = std::string("cannot write the module image to a memfd: ") +
              std::strerror(errno);
      ::close(fd);
      return false;
    }
    dlerror();
    handle_ = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle_) {
      fd_ = fd;
      return true;
    }
    const char *why = dlerror();
    ::close(fd);
    // /proc may be missing (some containers); try a temporary file before
    // blaming the image.
    if (access("/proc/self/fd", F_OK) == 0) {
      error = std::string("dlopen of the cpu module image failed: ") +
              (why ? why : "unknown error");
      return false;
    }
  }

  const char *dir = std::getenv("TMPDIR");
  std::string path =
      std::string(dir && *dir ? dir : "/tmp") + "/tessera_cpu_module_XXXXXX";
  fd = mkstemp(path.data());
  if (fd < 0) {
    error = "cannot create a temporary file for the module image (" + path +
            "): " + std::strerror(errno);
    return false;
  }
  bool written = writeAll(fd, image, size);
  int writeErrno = errno;
  ::close(fd);
  if (!written) {
    ::unlink(path.c_str());
    error = "cannot write the module image to " + path + ": " +
            std::strerror(writeErrno);
    return false;
  }
  dlerror();
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  const char *why = handle_ ? nullptr : dlerror();
  ::unlink(path.c_str()); // the mapping outlives the name
  if (!handle_) {
    error = std::string("dlopen of the cpu module image failed: ") +
            (why ? why : "unknown error");
    return false;
  }
  return true;
}

void *SharedObjectImage::symbol(const char *name) const {
  return handle_ ? dlsym(handle_, name) : nullptr;
}

} // namespace tessera::cpu
