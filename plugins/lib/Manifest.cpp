//===- Manifest.cpp - parse plugin manifests ------------------------------===//

#include "tessera/plugin/Manifest.h"

#include "tessera/Toml.h"

#include <fstream>
#include <sstream>

namespace tessera::plugin {
namespace {

class ManifestReader {
public:
  ManifestReader(const std::string &path, std::string &error)
      : path(path), error(error) {}

  bool read(const toml::table &root, Manifest &out);

private:
  bool fail(const toml::node &at, const std::string &what) {
    error = "plugin manifest '" + path + "' line " +
            std::to_string(at.source().begin.line) + ": " + what;
    return false;
  }
  bool missing(const char *key) {
    error = "plugin manifest '" + path + "' is incomplete: missing key '" +
            std::string(key) + "'";
    return false;
  }
  bool string(const toml::table &root, const char *key, std::string &out,
              bool required);

  const std::string &path;
  std::string &error;
};

bool ManifestReader::string(const toml::table &root, const char *key,
                            std::string &out, bool required) {
  const toml::node *node = root.get(key);
  if (!node)
    return !required || missing(key);
  if (!node->is_string())
    return fail(*node, std::string("key '") + key + "' must be a string");
  out = node->as_string()->get();
  if (out.empty())
    return fail(*node, std::string("key '") + key + "' is empty");
  return true;
}

bool parseVersion(const std::string &text, uint32_t &major, uint32_t &minor) {
  size_t dot = text.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == text.size() ||
      dot > 6 || text.size() - dot > 7)
    return false;
  for (size_t i = 0; i < text.size(); ++i)
    if (i != dot && (text[i] < '0' || text[i] > '9'))
      return false;
  major = static_cast<uint32_t>(std::stoul(text.substr(0, dot)));
  minor = static_cast<uint32_t>(std::stoul(text.substr(dot + 1)));
  return true;
}

bool ManifestReader::read(const toml::table &root, Manifest &out) {
  std::string abi, runtimeLibrary, compilerLibrary;
  if (!string(root, "name", out.name, true) ||
      !string(root, "version", out.version, true) ||
      !string(root, "abi_version", abi, true) ||
      !string(root, "runtime_library", runtimeLibrary, true) ||
      !string(root, "compiler_library", compilerLibrary, false))
    return false;
  if (!parseVersion(abi, out.abiMajor, out.abiMinor))
    return fail(*root.get("abi_version"),
                "abi_version '" + abi + "' is not \"<major>.<minor>\"");
  out.runtimeLibrary = resolvePath(out.directory, runtimeLibrary);
  if (!compilerLibrary.empty())
    out.compilerLibrary = resolvePath(out.directory, compilerLibrary);

  const toml::node *triples = root.get("triples");
  if (!triples)
    return missing("triples");
  if (!triples->is_array() || triples->as_array()->empty())
    return fail(*triples, "key 'triples' must be a non-empty array of strings");
  for (const toml::node &triple : *triples->as_array()) {
    if (!triple.is_string() || triple.as_string()->get().empty())
      return fail(triple, "each entry of 'triples' must be a non-empty string");
    out.triples.push_back(triple.as_string()->get());
  }

  if (const toml::node *targets = root.get("targets")) {
    if (!targets->is_table())
      return fail(*targets, "'targets' must be a table of chip = \"file\"");
    for (const auto &[chip, file] : *targets->as_table()) {
      if (!file.is_string())
        return fail(file, "target '" + std::string(chip.str()) +
                              "' must name a file (a string)");
      out.targets.emplace_back(
          std::string(chip.str()),
          resolvePath(out.directory, file.as_string()->get()));
    }
  }
  return true;
}

} // namespace

std::string resolvePath(const std::string &directory, const std::string &file) {
  if (file.empty() || file[0] == '/' || directory.empty())
    return file;
  return directory + "/" + file;
}

bool parseManifest(std::string_view text, const std::string &path,
                   Manifest &out, std::string &error) {
  out = Manifest();
  out.path = path;
  size_t slash = path.rfind('/');
  out.directory = slash == std::string::npos ? "." : path.substr(0, slash);
  if (out.directory.empty())
    out.directory = "/";

  toml::parse_result result = toml::parse(text, path);
  if (!result) {
    error = "plugin manifest '" + path + "' line " +
            std::to_string(result.error().source().begin.line) +
            " is not valid TOML: " + std::string(result.error().description());
    return false;
  }
  return ManifestReader(path, error).read(result.table(), out);
}

bool readManifest(const std::string &path, Manifest &out, std::string &error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    out = Manifest();
    out.path = path;
    error = "cannot open plugin manifest '" + path + "'";
    return false;
  }
  std::ostringstream text;
  text << file.rdbuf();
  return parseManifest(text.str(), path, out, error);
}

} // namespace tessera::plugin
