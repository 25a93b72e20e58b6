// `chorus collective --algorithm synth`: synthesize the collective for the topology, then simulate the synthesized
// Schedule under the chosen network model, and print the synthesizer's estimate beside the simulated time.
#pragma once

#include <string>

#include "chorus/collective/collective.hpp"
#include "chorus/sim/collective_run.hpp"
#include "synth_options.hpp"

namespace chorus::cli {

void run_synth_collective(const Topology& topology, CollectiveKind kind, Bytes size, NetworkModelKind model,
                          const SynthFlags& flags, bool json);

}  // namespace chorus::cli
