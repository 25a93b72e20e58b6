// PacketOptions: the switch-queue settings of the packet-level model (`--queue SIZE`, `--ecn`), and its wire
// format constants. Plain data, compiled with or without ns-3, so that every front end can carry them.
//
//   PacketOptions o = packet_options_argument("512KiB", /*ecn=*/true, /*packet_model=*/true);   // RED/ECN queues of
//   512 KiB per port
#pragma once

#include <string>
#include <string_view>

#include "chorus/core/units.hpp"

namespace chorus {

// RoCE's largest MTU: the payload of one packet.
inline constexpr Bytes kPacketPayload = Bytes(4096);
// Bytes each packet adds on the wire, as RoCEv2 does: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4.
inline constexpr Bytes kPacketHeader = Bytes(62);
// The largest packet on the wire.
inline constexpr Bytes kMaxWirePacket = kPacketPayload + kPacketHeader;

struct PacketOptions {
  // The buffer of every output port of every node (switch or forwarding NPU), bytes on the wire.
  Bytes queue = Bytes::mib(1);
  // false: drop-tail FIFO. true: RED marking ECN (no early drops) and DCQCN-style rate control at the senders.
  bool ecn = false;
};

// Output-port buffers above this are refused: no switch has a 1 GiB buffer per port, and the value is a typo.
inline constexpr Bytes kMaxPacketQueue = Bytes::gib(1);

// Reads `--queue` (a size, "" for the default) and `--ecn`; throws chorus::Error naming Argument{"queue"} for a
// size that cannot hold one full packet or is above kMaxPacketQueue, and naming the option given when the model
// is not the packet model (`packet_model` false), which has no queues.
PacketOptions packet_options_argument(std::string_view queue, bool ecn, bool packet_model);

// The one line printed when `--model packet` is asked for and chorus was built without ns-3.
std::string packet_model_missing_message();

}  // namespace chorus
