// The seam between the packet model (packet_model.hpp, in the library) and ns-3: the table of the plugin
// libchorus_packet.so (packet_plugin.cpp), which holds simulate_packets() (packet_network.cpp, the one translation
// unit that includes ns-3's headers) and links ns-3. The model loads it on its first run (plugin/plugin.hpp), so no
// other job maps ns-3.
//
// The plugin is built from the same sources as the library it is loaded into (the loader checks the version), so
// the table passes chorus's own types; the plugin carries private copies of the library code it uses.
//
//   PacketRunResult r = load_plugin<PacketPlugin>(kPacketPlugin).simulate(schedule, topology, routes, options);
#pragma once

#include "chorus/network/packet/packet_network.hpp"
#include "chorus/plugin/plugin.hpp"

namespace chorus {

struct PacketPlugin {
  PluginHeader header;
  PacketRunResult (*simulate)(const Schedule& schedule, const Topology& topology, const ResourceRoutes& routes,
                              const PacketOptions& options);  // simulate_packets()
};

inline constexpr PluginSpec kPacketPlugin{"packet", "the packet model (--model packet, on ns-3)", 1};

}  // namespace chorus
