// The packet-level network model `packet`: every transfer packet by packet on ns-3 (packet_network.hpp), switch
// queues as PacketOptions say (drop-tail or RED/ECN). Registered only when CMake found ns-3 (CHORUS_HAVE_NS3) and
// built the plugin libchorus_packet.so, which the first run loads (packet_plugin.hpp); otherwise `--model packet`
// answers packet_model_missing_message().
//
// ns-3 has one simulator per process: runs are serialised (a second thread waits for the first run to end).
//
//   registry.add(make_packet_model());
#pragma once

#include <memory>

#include "chorus/network/network_model.hpp"

namespace chorus {

std::unique_ptr<NetworkModel> make_packet_model();

}  // namespace chorus
