// The chunk count `chorus collective` uses when --splits is not given: Broadcast and Reduce with the `ring` chain
// are pipelined with the count that minimises the chain's time (collective/pipeline_chunks.hpp), hops costed by the
// congestion-unaware model; every other collective and algorithm keeps one chunk.
#pragma once

#include <vector>

#include "chorus/collective/hierarchical.hpp"
#include "chorus/collective/pipeline_chunks.hpp"

namespace chorus {

// The hops of the chain `ring` runs for a Broadcast (member m -> m + 1) or Reduce (m + 1 -> m) over all NPUs.
std::vector<ChainHop> rooted_chain_hops(const Topology& topology, const Collective& collective,
                                        const Overheads& overheads);

// `config.splits` is ignored; returns the default for this collective and the config's algorithm.
uint32_t default_splits(const Topology& topology, const Collective& collective, const CollectivePlanConfig& config);

}  // namespace chorus
