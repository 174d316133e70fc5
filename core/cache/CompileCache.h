//===- CompileCache.h - on-disk cache of compiled bundles ------*- C++ -*-===//
//
// Entries live in $TESSERA_CACHE_DIR, else $XDG_CACHE_HOME/tessera, else
// ~/.cache/tessera. An entry is named by the SHA-256 of everything that
// decides its bytes (source text, targets, options, compiler and plugin
// versions) and holds a header with the SHA-256 of its payload, so a torn or
// corrupted entry is detected on read and compiled again. Writes go to a
// unique temporary file that is renamed into place, so concurrent writers
// never leave a partial entry.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_CORE_CACHE_COMPILECACHE_H
#define TESSERA_CORE_CACHE_COMPILECACHE_H

#include <optional>
#include <string>
#include <vector>

namespace tessera {

class CompileCache {
public:
  /// Uses the default folder; disabled when TESSERA_NO_CACHE is set.
  CompileCache();
  explicit CompileCache(std::string directory);

  bool enabled() const { return !dir.empty(); }
  const std::string &directory() const { return dir; }

  /// A key from the parts that determine the output.
  static std::string key(const std::vector<std::string> &parts);

  enum class Lookup { Hit, Miss, Corrupt };
  /// Reads a verified entry into `payload`.
  Lookup get(const std::string &key, std::string &payload) const;
  /// Stores an entry atomically. Returns false (with `error`) on I/O failure;
  /// a failed store never damages an existing entry.
  bool put(const std::string &key, const std::string &payload,
           std::string &error) const;
  std::string entryPath(const std::string &key) const;

private:
  std::string dir;
};

} // namespace tessera

#endif
