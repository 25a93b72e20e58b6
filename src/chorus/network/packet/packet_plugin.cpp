// The plugin libchorus_packet.so's entry: simulate_packets() on ns-3 (packet_network.cpp) as the table of
// packet_plugin.hpp. Built with packet_network.cpp into its own shared library, linked with ns-3; not part of
// libchorus.
#include "chorus/network/packet/packet_plugin.hpp"

namespace chorus {
namespace {

constexpr PacketPlugin kTable{{kPacketPlugin.interface_version, CHORUS_PLUGIN_VERSION}, &simulate_packets};

}  // namespace
}  // namespace chorus

CHORUS_PLUGIN_EXPORT const chorus::PluginHeader* chorus_plugin_packet() {
  return &chorus::kTable.header;
}
