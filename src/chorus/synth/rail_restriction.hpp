// The rail restriction (spanning-tree packing by tier, as ForestColl's trees on a DGX: each rail carries its own
// GPU's chunks): a chunk may cross a slow link only inside the slow-tier component of its origin, so the rails split
// the inter-node traffic evenly instead of all carrying whatever is scarce.
//
// Tiers: links slower than the fastest link form the slow tier (a DGX's NIC rails, next to NVLink). The restriction
// applies only where the graph has two tiers, the fast tier consists of one-hop domains, and every member still
// reaches every other over fast links and its own component's slow links (so no chunk is left undeliverable).
//
//   if (std::optional<RailTiers> tiers = rail_tiers(graph))
//     problem.link_allowed = rail_rows(graph, *tiers, problem.origin, problem.chunks);
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "chorus/synth/synth_graph.hpp"

namespace chorus {

struct RailTiers {
  std::vector<uint32_t> component;  // per node: its slow-tier component (a representative node)
  std::vector<char> slow;           // per link: in the slow tier
};

// The tiers where the restriction applies; none otherwise.
std::optional<RailTiers> rail_tiers(const SynthGraph& g);

// Per link, a bit row of (chunks + 63) / 64 words (SpreadProblem::link_allowed): the chunks it may carry, chunk c
// starting at node origin[c].
std::vector<uint64_t> rail_rows(const SynthGraph& g, const RailTiers& tiers, const std::vector<uint32_t>& origin,
                                uint32_t chunks);

}  // namespace chorus
