// What-if runs (`chorus sim --what-if`): the same workload re-simulated by the same engine on a changed input, one
// run per change, in parallel on a pool of threads. Each run equals a separate run on the changed input exactly:
// a dimension change is the network rebuilt from its dimensions with one value changed (what an edited network
// file gives); the other changes are RuntimeOptions (runtime.hpp) that the engine reads where it prices the work.
//
// The standard changes: communication free, collectives at their lower bound, compute 2x faster, and for each
// network dimension D its bandwidth x2 and its latency /2 (dimensional topologies only).
//
//   const std::vector<WhatIfResult> r = run_what_ifs(workload, topology, options, standard_what_ifs(topology), 2);
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "chorus/runtime/runtime.hpp"

namespace chorus {

enum class WhatIfKind : uint8_t {
  FreeCommunication,   // collectives, broadcasts and messages take no time
  CollectivesAtBound,  // every simulated collective lasts its physical lower bound (group_bound.hpp)
  ComputeTwiceFaster,  // GPU compute times halved (roofline: peak-perf and local-mem-bw doubled)
  DimensionBandwidth,  // dimension `dimension`'s bandwidth doubled
  DimensionLatency,    // dimension `dimension`'s latency halved
};

struct WhatIf {
  WhatIfKind kind = WhatIfKind::FreeCommunication;
  size_t dimension = 0;      // the Dimension* kinds
  std::string name() const;  // "communication free", "dimension 1 bandwidth x2", ...
};

std::vector<WhatIf> standard_what_ifs(const Topology& topology);

// The changed input of one what-if: the options of its run and, for a dimension change, its network.
struct ChangedInput {
  RuntimeOptions options;
  std::optional<Topology> network;
};
// `base` are the options of the run being explained; outputs (timeline, link statistics, critical path,
// progress) are switched off, as they do not change the finish time.
ChangedInput change_input(const WhatIf& change, const Topology& topology, const RuntimeOptions& base);

// The topology rebuilt from its dimensions with dimension `dim`'s bandwidth multiplied by `bandwidth_factor` and
// its latency divided by `latency_divisor` (rounded to the nearest picosecond).
Topology with_dimension_changed(const Topology& topology, size_t dim, double bandwidth_factor, int64_t latency_divisor);

struct WhatIfResult {
  std::string change;
  Time finish;
};

// Runs every change on up to `threads` threads (at least one); results in the order of `changes`. The first
// exception of any run (a DeadlockError, an input error) is rethrown once every thread has stopped.
std::vector<WhatIfResult> run_what_ifs(const Workload& workload, const Topology& topology, const RuntimeOptions& base,
                                       const std::vector<WhatIf>& changes, unsigned threads);

}  // namespace chorus
