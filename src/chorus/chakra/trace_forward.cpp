// trace.hpp's functions in the library: each loads the Chakra plugin on first use (chakra_plugin.hpp) and calls
// the reader or writer there (trace.cpp), so that libprotobuf is loaded only by jobs that touch a Chakra trace.
#include "chorus/chakra/chakra_plugin.hpp"
#include "chorus/chakra/trace.hpp"

namespace chorus::chakra {
namespace {

const ChakraPlugin& plugin() {
  return load_plugin<ChakraPlugin>(kChakraPlugin);
}

}  // namespace

ChakraTrace read_chakra_trace(const std::string& path) {
  return plugin().read(path);
}

std::string for_each_chakra_node(const std::string& path, const std::function<void(const TraceNode&)>& visit) {
  return plugin().for_each_node(path, visit);
}

void write_chakra_trace(const std::string& path, const ChakraTrace& trace, bool gzip) {
  plugin().write(path, trace, gzip);
}

std::string chakra_trace_to_json(const std::string& path) {
  return plugin().to_json(path);
}

}  // namespace chorus::chakra
