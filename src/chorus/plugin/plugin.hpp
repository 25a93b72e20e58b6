// Plugins: the optional components that need large libraries (the ns-3 packet model, MPI, GLPK's exact All-to-All
// bound) are small shared libraries, libchorus_<name>.so, loaded with dlopen the first time a job needs them, so
// that a process that does not (`chorus --version`, `collective`, `bound`, `import chorus`) never maps ns-3, MPI or
// GLPK.
//
// A plugin exports one C function, chorus_plugin_<name>(), returning its table of functions; the table starts with
// a PluginHeader that says which interface and which chorus version it was built for, and the loader refuses a
// plugin from another build. The folders searched, in order (plugin_directories()):
//   1. $CHORUS_PLUGIN_DIR, when set;
//   2. the folder of the program or shared library holding this code (build/chorus: build/; a Python wheel's
//      _chorus.so: its package folder);
//   3. that folder's installed plugin folder (bin/chorus: ../lib/chorus);
//   4. the build tree's plugin folder, then the configured install folder (for the Python module in the build tree,
//      and for programs linking the installed static library).
// A plugin is loaded once per process and never unloaded; loading is thread-safe. When it cannot be found or
// loaded, chorus::Error names the plugin file and says what was searched or what dlopen answered.
//
//   const auto& lp = load_plugin<GlpkPlugin>(kGlpkPlugin);   // throws chorus::Error when absent
//   lp.solve(problem, solution);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace chorus {

struct PluginHeader {
  uint32_t interface_version;  // the PluginSpec's interface_version the plugin implements
  const char* chorus_version;  // the chorus version it was built with (CHORUS_PLUGIN_VERSION)
};

struct PluginSpec {
  const char* name;            // "packet": the file libchorus_packet.so, the entry chorus_plugin_packet
  const char* purpose;         // for messages: "the packet model (--model packet)"
  uint32_t interface_version;  // what the table must say (bumped whenever the table changes)
  bool global = false;         // RTLD_GLOBAL: its libraries' symbols visible to what they load in turn (MPI)
};

// The plugin's table of functions (starting with its PluginHeader), loaded on first use; throws chorus::Error.
const PluginHeader& load_plugin_header(const PluginSpec& spec);

template <class Table>
const Table& load_plugin(const PluginSpec& spec) {
  return *reinterpret_cast<const Table*>(&load_plugin_header(spec));
}

// Whether the plugin is loaded in this process (without loading it).
bool plugin_loaded(const PluginSpec& spec);

// The folders searched for plugins, in order, without duplicates.
std::vector<std::string> plugin_directories();

// The file name of a plugin: libchorus_<name>.so.
std::string plugin_file_name(std::string_view name);

}  // namespace chorus

// What a plugin's entry returns; every plugin's table is a standard-layout struct starting with PluginHeader.
#define CHORUS_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))
