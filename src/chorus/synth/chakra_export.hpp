// Writes a synthesized schedule as Chakra per-rank traces, the form ASTRA-sim's custom collectives read
// (`all-gather-implementation-custom: ["<prefix>"]` loads `<prefix>.<rank>.et`).
//
// Each transfer becomes a COMM_SEND_NODE on its sender and a COMM_RECV_NODE on its receiver, matched by a tag
// unique to the transfer; a local step or a transfer's local pre-delay (a reduction) becomes a COMP_NODE with
// that duration. A send depends on the nodes of its own rank that it waits for in the schedule: the receive of a
// chunk it forwards, its rank's earlier steps. Ranks are positions in the synthesized group.
//
//   write_chakra_schedule("ag_custom/all_gather", result, topology);  // ag_custom/all_gather.0.et, ...
#pragma once

#include <string>

#include "chorus/synth/synthesize.hpp"

namespace chorus {

// Throws chorus::Error naming Argument{"chakra"} when a transfer goes through a switch (Chakra messages are NPU to NPU)
// or a file cannot be written.
void write_chakra_schedule(const std::string& prefix, const SynthResult& result, const Topology& topology);

}  // namespace chorus
