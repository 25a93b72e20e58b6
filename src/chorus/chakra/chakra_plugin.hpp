// The seam between the library and protobuf: the table of the plugin libchorus_chakra.so (chakra_plugin.cpp), which
// holds the Chakra reader and writer (trace.cpp, with the generated et_def.pb.cc) and links libprotobuf. The library's
// trace.hpp functions (trace_forward.cpp) load it on first use (plugin/plugin.hpp), so a job that reads or writes
// no Chakra trace never loads libprotobuf or registers its descriptors.
//
// The plugin is built from the same sources as the library it is loaded into (the loader checks the version), so
// the table passes chorus's own types; the plugin carries private copies of the library code it uses.
//
//   ChakraTrace t = load_plugin<ChakraPlugin>(kChakraPlugin).read(path);
#pragma once

#include <functional>
#include <string>

#include "chorus/chakra/trace.hpp"
#include "chorus/plugin/plugin.hpp"

namespace chorus::chakra {

// trace.hpp's functions, as trace.cpp defines them.
struct ChakraPlugin {
  PluginHeader header;
  ChakraTrace (*read)(const std::string& path);
  std::string (*for_each_node)(const std::string& path, const std::function<void(const TraceNode&)>& visit);
  void (*write)(const std::string& path, const ChakraTrace& trace, bool gzip);
  std::string (*to_json)(const std::string& path);
};

inline constexpr PluginSpec kChakraPlugin{"chakra", "reading and writing Chakra execution traces (protobuf)", 1};

}  // namespace chorus::chakra
