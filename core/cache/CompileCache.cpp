//===- CompileCache.cpp - on-disk cache of compiled bundles ---------------===//

#include "CompileCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace tessera;

static constexpr char kMagic[8] = {'T', 'S', 'R', 'C', 'A', 'C', 'H', '1'};
static constexpr size_t kHeader = sizeof(kMagic) + 32;

static std::string sha256(llvm::StringRef data) {
  llvm::SHA256 h;
  h.update(data);
  auto digest = h.final();
  return std::string(digest.begin(), digest.end());
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
  llvm::SHA256 h;
  for (const std::string &p : parts) {
    // Length-prefix each part so ("ab","c") and ("a","bc") differ.
    std::string len = std::to_string(p.size()) + ":";
    h.update(len);
    h.update(p);
  }
  auto digest = h.final();
  return llvm::toHex(llvm::ArrayRef<uint8_t>(digest.data(), digest.size()),
                     /*LowerCase=*/true);
}

std::string CompileCache::entryPath(const std::string &key) const {
  return dir + "/" + key + ".tsb";
}

CompileCache::Lookup CompileCache::get(const std::string &key,
                                       std::string &payload) const {
  if (!enabled())
    return Lookup::Miss;
  auto buf = llvm::MemoryBuffer::getFile(entryPath(key), /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf)
    return Lookup::Miss;
  llvm::StringRef data = (*buf)->getBuffer();
  if (data.size() < kHeader || !data.starts_with(llvm::StringRef(kMagic, 8)))
    return Lookup::Corrupt;
  llvm::StringRef body = data.drop_front(kHeader);
  if (sha256(body) != data.substr(8, 32))
    return Lookup::Corrupt;
  payload = body.str();
  return Lookup::Hit;
}

bool CompileCache::put(const std::string &key, const std::string &payload,
                       std::string &error) const {
  if (!enabled())
    return true;
  if (auto ec = llvm::sys::fs::create_directories(dir)) {
    error = "cannot create cache folder '" + dir + "': " + ec.message();
    return false;
  }
  llvm::SmallString<256> tmp;
  int fd;
  if (auto ec = llvm::sys::fs::createUniqueFile(dir + "/" + key + ".%%%%%%.tmp",
                                                fd, tmp)) {
    error = "cannot create a cache file in '" + dir + "': " + ec.message();
    return false;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(kMagic, sizeof(kMagic));
    os << sha256(payload);
    os << payload;
    os.flush();
    if (os.has_error()) {
      error = "cannot write cache file '" + std::string(tmp) +
              "': " + os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(tmp);
      return false;
    }
  }
  if (auto ec = llvm::sys::fs::rename(tmp, entryPath(key))) {
    llvm::sys::fs::remove(tmp);
    error = "cannot publish cache entry: " + ec.message();
    return false;
  }
  return true;
}
