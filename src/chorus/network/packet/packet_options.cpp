// Reading the packet model's queue settings (see packet_options.hpp).
#include "chorus/network/packet/packet_options.hpp"

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"

namespace chorus {

PacketOptions packet_options_argument(std::string_view queue, bool ecn, bool packet_model) {
  if (!packet_model && (!queue.empty() || ecn)) {
    throw Error("", Argument{queue.empty() ? "ecn" : "queue"},
                "applies only with --model packet (the other models have no switch queues)");
  }
  PacketOptions options;
  options.ecn = ecn;
  if (queue.empty())
    return options;
  const Bytes size = parse_size(queue, Argument{"queue"});
  if (size < kMaxWirePacket) {
    throw Error("", Argument{"queue"},
                fmt::format("is {}; an output port must hold at least one full packet ({} B: {} B payload + {} B "
                            "headers)",
                            to_string(size), kMaxWirePacket.count(), kPacketPayload.count(), kPacketHeader.count()));
  }
  if (size > kMaxPacketQueue)
    throw Error("", Argument{"queue"},
                fmt::format("is {}; at most {} per output port", to_string(size), to_string(kMaxPacketQueue)));
  options.queue = size;
  return options;
}

std::string packet_model_missing_message() {
  return "the packet model needs ns-3, and this chorus was built without it: install it (apt-get install "
         "libns3-dev) and rebuild (scripts/build.sh)";
}

}  // namespace chorus
