//===- CompileCache.cpp - on-disk cache of compiled bundles ---------------===//
//
// No LLVM here: the `tessera` tool reads the cache without loading it.
//
//===----------------------------------------------------------------------===//

#include "CompileCache.h"

#include "tessera/bundle/Sha256.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

using namespace tessera;

static constexpr char kMagic[8] = {'T', 'S', 'R', 'C', 'A', 'C', 'H', '1'};
static constexpr size_t kHeader = sizeof(kMagic) + 32;

static std::string rawDigest(std::string_view data) {
  Sha256::Digest d = Sha256::hash(data);
  return std::string(d.begin(), d.end());
}

/// Reads a whole file; false when it cannot be opened or read.
static bool readWholeFile(const std::string &path, std::string &out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  out.clear();
  struct stat st;
  if (::fstat(fd, &st) == 0 && st.st_size > 0)
    out.reserve(size_t(st.st_size));
  char chunk[1 << 16];
  bool ok = true;
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      ok = false;
    if (n <= 0)
      break;
    out.append(chunk, size_t(n));
  }
  ::close(fd);
  return ok;
}

/// Writes all of `data` to `fd`; false with errno set on failure.
static bool writeAll(int fd, const char *data, size_t size) {
  while (size) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data += n;
    size -= size_t(n);
  }
  return true;
}

CompileCache::CompileCache() {
  if (std::getenv("TESSERA_NO_CACHE"))
    return;
  if (const char *d = std::getenv("TESSERA_CACHE_DIR"); d && *d) {
    dir = d;
  } else if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    dir = std::string(x) + "/tessera";
  } else if (const char *home = std::getenv("HOME"); home && *home) {
    dir = std::string(home) + "/.cache/tessera";
  }
}

CompileCache::CompileCache(std::string directory) : dir(std::move(directory)) {}

std::string CompileCache::key(const std::vector<std::string> &parts) {
  Sha256 h;
  for (const std::string &p : parts) {
    // Length-prefix each part so ("ab","c") and ("a","bc") differ.
    h.update(std::to_string(p.size()) + ":");
    h.update(p);
  }
  return Sha256::hex(h.final());
}

std::string CompileCache::entryPath(const std::string &key) const {
  return dir + "/" + key + ".tsb";
}

CompileCache::Lookup CompileCache::get(const std::string &key,
                                       std::string &payload) const {
  if (!enabled())
    return Lookup::Miss;
  std::string data;
  if (!readWholeFile(entryPath(key), data))
    return Lookup::Miss;
  if (data.size() < kHeader ||
      data.compare(0, sizeof(kMagic), kMagic, sizeof(kMagic)) != 0)
    return Lookup::Corrupt;
  std::string_view body = std::string_view(data).substr(kHeader);
  if (rawDigest(body) != std::string_view(data).substr(sizeof(kMagic), 32))
    return Lookup::Corrupt;
  payload.assign(body.data(), body.size());
  return Lookup::Hit;
}

bool CompileCache::put(const std::string &key, const std::string &payload,
                       std::string &error) const {
  if (!enabled())
    return true;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    error = "cannot create cache folder '" + dir + "': " + ec.message();
    return false;
  }
  // A unique name per writer: mkstemps fills the X's and opens O_EXCL.
  std::string tmp = dir + "/" + key + ".XXXXXX.tmp";
  int fd = ::mkstemps(tmp.data(), 4);
  if (fd < 0) {
    error =
        "cannot create a cache file in '" + dir + "': " + std::strerror(errno);
    return false;
  }
  ::fchmod(fd, 0644);
  std::string header(kMagic, sizeof(kMagic));
  header += rawDigest(payload);
  bool ok = writeAll(fd, header.data(), header.size()) &&
            writeAll(fd, payload.data(), payload.size());
  int writeErrno = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    writeErrno = errno;
  }
  if (!ok) {
    error =
        "cannot write cache file '" + tmp + "': " + std::strerror(writeErrno);
    ::unlink(tmp.c_str());
    return false;
  }
  if (::rename(tmp.c_str(), entryPath(key).c_str()) != 0) {
    error = std::string("cannot publish cache entry: ") + std::strerror(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}
