// All-to-All synthesis (personalized exchange, any demand matrix): route, then schedule.
//
// Routing is multi-commodity flow by iterative rerouting (Garg-Koenemann style): the chunks of every source are
// routed, one chunk per destination at a time, on a shortest-path tree whose link costs grow steeply with the
// link's load so far (cost = tau * (1 + 4 (load / max load)^8): nearly hop count while links are below the
// busiest, prohibitive at it), so the k chunks of a pair spread over several paths and the busiest links shed
// traffic. Later rounds take each source's tree out, re-route it under everybody else's load and put it back.
// Scheduling is list scheduling on the time-expanded network in the synthesizer's model (one chunk per link at a
// time, latency + c / bandwidth, store-and-forward): every link, when free, takes the chunk that has waited
// longest, the one with the longest remaining path on ties, so no link idles while a chunk waits for it
// (all_to_all_schedule.hpp).
// The concurrent-flow bound (concurrent_flow.hpp) is the yardstick: routing moves the busiest link's load to
// that bound, scheduling adds the pipeline fill.
#pragma once

#include <cstdint>
#include <vector>

#include "chorus/core/units.hpp"
#include "chorus/synth/all_to_all_schedule.hpp"
#include "chorus/synth/synth_graph.hpp"

namespace chorus {

struct AllToAllProblem {
  const SynthGraph* graph = nullptr;
  std::vector<int64_t> pair_bytes;  // member_count^2 bytes, row-major by local rank (source, destination)
  uint32_t chunks_per_pair = 1;     // k: a pair's bytes travel as k chunks of ceil(bytes / k)
  uint64_t seed = 1;
  uint32_t rounds = 3;  // rerouting rounds after the first routing
};

struct AllToAllResult {
  std::vector<AllToAllHop> hops;  // in a topological order
  Time makespan;
  Time max_link_load;  // the busiest link's total busy time after routing (makespan >= it)
};

// Bytes of one chunk of a pair carrying `bytes` in k chunks (0 when the pair sends nothing).
int64_t all_to_all_chunk_bytes(int64_t bytes, uint32_t k);

AllToAllResult synthesize_all_to_all(const AllToAllProblem& problem);

}  // namespace chorus
