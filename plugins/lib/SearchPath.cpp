//===- SearchPath.cpp - where plugins are looked for ----------------------===//

#include "tessera/plugin/Manifest.h"

#include <algorithm>
#include <cstdlib>
#include <dirent.h>

namespace tessera::plugin {

std::vector<std::string>
pluginSearchPath(const std::vector<std::string> &defaultDirs) {
  std::vector<std::string> dirs;
  auto add = [&](std::string dir) {
    while (dir.size() > 1 && dir.back() == '/')
      dir.pop_back();
    if (!dir.empty() && std::find(dirs.begin(), dirs.end(), dir) == dirs.end())
      dirs.push_back(std::move(dir));
  };
  if (const char *env = std::getenv("TESSERA_PLUGIN_PATH")) {
    std::string path = env;
    size_t start = 0;
    while (start <= path.size()) {
      size_t colon = path.find(':', start);
      if (colon == std::string::npos)
        colon = path.size();
      add(path.substr(start, colon - start));
      start = colon + 1;
    }
  }
  for (const std::string &dir : defaultDirs)
    add(dir);
  return dirs;
}

std::vector<std::string> listManifests(const std::string &directory) {
  std::vector<std::string> files;
  DIR *dir = ::opendir(directory.c_str());
  if (!dir)
    return files;
  while (const dirent *entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".toml") == 0 &&
        name[0] != '.')
      files.push_back(directory + "/" + name);
  }
  ::closedir(dir);
  std::sort(files.begin(), files.end());
  return files;
}

} // namespace tessera::plugin
