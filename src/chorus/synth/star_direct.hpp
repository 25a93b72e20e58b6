// Direct exchange through one switch: on a star (every member's only links go to and come from one relay), when the
// relay does not replicate (MSCCL XML has no multicast: SynthOptions::switches_multicast off, and always in the
// time-reversed spreads of reductions), every member sends each of its chunks to every other member through the
// switch itself. Sends are round-robin over destinations, member o's r-th send of a chunk going to member
// (o + 1 + r) mod n, so in each round the members send to distinct destinations and the downlinks are busy in
// step with the uplinks; each link then serves its transfers in order of arrival (a list schedule in the
// store-and-forward model of spread.hpp, honouring release times and link_free).
//
// Why: the matching engine (spread.hpp) forwards copies through other GPUs, each an extra pass over an uplink, and
// leaves uplinks idle: switch:6 All-Gather at one chunk per GPU took 7 tau where this takes n tau = 6 tau, the
// least any schedule needs (n - 1 chunks leave each uplink, then the last one crosses a downlink).
//
//   if (std::optional<SpreadResult> s = star_direct(problem)) ...
#pragma once

#include <cstdint>
#include <optional>

#include "chorus/synth/spread.hpp"

namespace chorus {

// The direct schedule as a spread, or nullopt where it does not apply: a relay that replicates, a link restriction,
// a graph that is not one star of all members, or chunks not spread evenly over the members (a rooted collective:
// there relaying through the others spreads the root's load, which the matching engine does).
std::optional<SpreadResult> star_direct(const SpreadProblem& problem);

// The switch a star's members all link through (node member_count(), the graph's only relay, with one link to and
// one from every member and no other link), or nullopt when `graph` is not such a star.
std::optional<uint32_t> star_switch(const SynthGraph& graph);

}  // namespace chorus
