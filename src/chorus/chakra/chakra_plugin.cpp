// The plugin libchorus_chakra.so's entry: the Chakra reader and writer of trace.cpp as the table of
// chakra_plugin.hpp. Built with trace.cpp and the generated et_def.pb.cc into its own shared library, linked with
// libprotobuf; not part of libchorus.
#include "chorus/chakra/chakra_plugin.hpp"

namespace chorus::chakra {
namespace {

constexpr ChakraPlugin kTable{{kChakraPlugin.interface_version, CHORUS_PLUGIN_VERSION},
                              &read_chakra_trace,
                              &for_each_chakra_node,
                              &write_chakra_trace,
                              &chakra_trace_to_json};

}  // namespace
}  // namespace chorus::chakra

CHORUS_PLUGIN_EXPORT const chorus::PluginHeader* chorus_plugin_chakra() {
  return &chorus::chakra::kTable.header;
}
