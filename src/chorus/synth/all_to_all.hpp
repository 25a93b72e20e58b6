// All-to-All synthesis: every (source, destination) chunk follows a fewest-hop path, links chosen among the
// equally short next hops by least load so far (so parallel paths share the traffic), then the hops are
// list-scheduled in the synthesizer's model (one chunk per link at a time, latency + c / bandwidth,
// store-and-forward), earliest-ready first, longest remaining path first on ties.
// All-to-All has no spreading to exploit (each chunk has one destination), so link-chunk matching reduces to
// routing plus scheduling; TACOS does not synthesize it at all (tacos.md §3).
#pragma once

#include <cstdint>
#include <vector>

#include "chorus/core/units.hpp"
#include "chorus/synth/synth_graph.hpp"

namespace chorus {

struct AllToAllHop {
  uint32_t link = 0;   // local link id
  uint32_t chunk = 0;  // (j * n + source) * n + destination, local ranks
  Time start, end;
  uint32_t previous = UINT32_MAX;  // the hop that brought the chunk to this hop's source
};

struct AllToAllResult {
  std::vector<AllToAllHop> hops;  // in a topological order
  Time makespan;
};

AllToAllResult synthesize_all_to_all(const SynthGraph& graph, uint32_t chunks_per_pair, Bytes chunk_bytes,
                                     uint64_t seed);

}  // namespace chorus
