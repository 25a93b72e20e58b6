// Default chunk count of `chorus collective` (see default_chunks.hpp).
#include "chorus/sim/default_chunks.hpp"

#include <memory>

#include "chorus/network/message_cost.hpp"

namespace chorus {

std::vector<ChainHop> rooted_chain_hops(const Topology& topology, const Collective& collective,
                                        const Overheads& overheads) {
  const std::unique_ptr<MessageCost> cost = make_message_cost(topology, AstraCompat{});
  const bool reduce = collective.kind == CollectiveKind::Reduce;
  std::vector<ChainHop> hops;
  const uint32_t p = topology.npu_count();
  for (uint32_t m = 0; m + 1 < p; ++m) {
    const NodeId from{reduce ? m + 1 : m};
    const NodeId to{reduce ? m : m + 1};
    const Time latency = cost->delay(from, to, Bytes(0));
    ChainHop hop{latency + overheads.endpoint_delay, cost->delay(from, to, collective.size) - latency};
    if (reduce)
      hop.beta += overheads.reduction(collective.size);
    hops.push_back(hop);
  }
  return hops;
}

uint32_t default_splits(const Topology& topology, const Collective& collective, const CollectivePlanConfig& config) {
  const bool rooted = collective.kind == CollectiveKind::Broadcast || collective.kind == CollectiveKind::Reduce;
  if (!rooted || config.algorithms.empty() || config.algorithms.front().kind != AlgorithmKind::Ring)
    return 1;
  return optimal_chain_chunks(rooted_chain_hops(topology, collective, config.overheads), collective.size);
}

}  // namespace chorus
