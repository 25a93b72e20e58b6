// Finding and loading plugins with dlopen (see plugin.hpp). CMake defines, on this file only:
// CHORUS_PLUGIN_VERSION (the project version), CHORUS_PLUGIN_RELATIVE_DIR (the installed plugin folder relative to
// the installed program's, "../lib/chorus"), CHORUS_PLUGIN_BUILD_DIR and CHORUS_PLUGIN_INSTALL_DIR (absolute).
#include "chorus/plugin/plugin.hpp"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "chorus/core/error.hpp"

#ifndef CHORUS_PLUGIN_VERSION
#error "CMake defines CHORUS_PLUGIN_VERSION and the plugin folders on plugin.cpp"
#endif

namespace chorus {
namespace {

std::mutex& plugin_mutex() {
  static std::mutex mutex;
  return mutex;
}

// name -> loaded table; entries are never removed (plugins stay loaded).
std::map<std::string, const PluginHeader*, std::less<>>& loaded_plugins() {
  static std::map<std::string, const PluginHeader*, std::less<>> loaded;
  return loaded;
}

std::string parent_directory(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The real path of the file (program or shared library) that holds this function.
std::string own_file() {
  Dl_info info{};
  link_map* map = nullptr;
  if (dladdr1(reinterpret_cast<void*>(&own_file), &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0)
    return {};
  std::string path;
  if (map != nullptr && map->l_name != nullptr && map->l_name[0] != '\0') {
    path = map->l_name;  // a shared library (the Python module)
  } else {
    char exe[PATH_MAX];  // the main program: glibc names it by argv[0], which may be relative or found on PATH
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
      return {};
    path.assign(exe, static_cast<size_t>(n));
  }
  char real[PATH_MAX];
  return ::realpath(path.c_str(), real) != nullptr ? std::string(real) : path;
}

bool is_file(const std::string& path) {
  return ::access(path.c_str(), R_OK) == 0;
}

}  // namespace

std::string plugin_file_name(std::string_view name) {
  return fmt::format("libchorus_{}.so", name);
}

std::vector<std::string> plugin_directories() {
  std::vector<std::string> dirs;
  auto add = [&dirs](std::string dir) {
    if (dir.empty())
      return;
    if (char real[PATH_MAX]; ::realpath(dir.c_str(), real) != nullptr)
      dir = real;  // bin/../lib/chorus as lib/chorus
    for (const std::string& d : dirs) {
      if (d == dir)
        return;
    }
    dirs.push_back(std::move(dir));
  };
  if (const char* env = std::getenv("CHORUS_PLUGIN_DIR"); env != nullptr)
    add(env);
  if (const std::string self = own_file(); !self.empty()) {
    const std::string dir = parent_directory(self);
    add(dir);
    add(dir + "/" CHORUS_PLUGIN_RELATIVE_DIR);
  }
  add(CHORUS_PLUGIN_BUILD_DIR);
  add(CHORUS_PLUGIN_INSTALL_DIR);
  return dirs;
}

bool plugin_loaded(const PluginSpec& spec) {
  const std::lock_guard<std::mutex> lock(plugin_mutex());
  return loaded_plugins().contains(spec.name);
}

const PluginHeader& load_plugin_header(const PluginSpec& spec) {
  const std::lock_guard<std::mutex> lock(plugin_mutex());
  auto& loaded = loaded_plugins();
  if (const auto it = loaded.find(spec.name); it != loaded.end())
    return *it->second;
  const std::string file = plugin_file_name(spec.name);
  const std::vector<std::string> dirs = plugin_directories();
  std::string path;
  for (const std::string& dir : dirs) {
    if (is_file(dir + "/" + file)) {
      path = dir + "/" + file;
      break;
    }
  }
  if (path.empty()) {
    std::string searched;
    for (const std::string& dir : dirs)
      searched += (searched.empty() ? "" : ", ") + dir;
    throw Error(file, "",
                fmt::format("{} needs this plugin of chorus, and it is not installed (searched {}); reinstall "
                            "chorus, or set CHORUS_PLUGIN_DIR to the folder that holds it",
                            spec.purpose, searched));
  }
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | (spec.global ? RTLD_GLOBAL : RTLD_LOCAL));
  if (handle == nullptr) {
    const char* why = ::dlerror();
    throw Error(path, "",
                fmt::format("{} needs this plugin, and it cannot be loaded: {}", spec.purpose,
                            why != nullptr ? why : "unknown dlopen error"));
  }
  const std::string entry = fmt::format("chorus_plugin_{}", spec.name);
  using Entry = const PluginHeader* (*)();
  auto* function = reinterpret_cast<Entry>(::dlsym(handle, entry.c_str()));
  const PluginHeader* header = function != nullptr ? function() : nullptr;
  if (header == nullptr || header->interface_version != spec.interface_version || header->chorus_version == nullptr ||
      std::strcmp(header->chorus_version, CHORUS_PLUGIN_VERSION) != 0) {
    // Left loaded: unloading a library whose static constructors ran (ns-3's) is not safe.
    throw Error(path, "",
                fmt::format("is not the plugin this chorus {} needs for {} (interface {}, found {} of chorus {}); "
                            "reinstall chorus",
                            CHORUS_PLUGIN_VERSION, spec.purpose, spec.interface_version,
                            header != nullptr ? fmt::to_string(header->interface_version) : "no entry " + entry,
                            header != nullptr && header->chorus_version != nullptr ? header->chorus_version : "?"));
  }
  loaded.emplace(spec.name, header);
  return *header;
}

}  // namespace chorus
