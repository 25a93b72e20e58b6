// Lower bound of an All-to-All with any demand matrix on the graph a synthesis may use, in the synthesizer's
// model: max of
//   - the concurrent-flow bound (concurrent_flow.hpp; with its primal routing as the certificate of how exact
//     it is: flow_upper / flow_lower, 1.00 on tori and hypercubes, within 1% on small graphs, and the exact
//     optimum of the LP, certified, on graphs of at most ConcurrentFlowOptions::exact_variables);
//   - the single-NPU cuts with the demand: NPU v must send sum_d D(v, d) through its out-links and receive
//     sum_s D(s, v) through its in-links;
//   - latency: the pair with traffic farthest apart (a chunk needs at least the latencies of its path).
// Times round down to whole picoseconds, so each stays a valid bound.
//
//   AllToAllBound b = all_to_all_bound(graph, pair_bytes, {});
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chorus/core/units.hpp"
#include "chorus/synth/concurrent_flow.hpp"
#include "chorus/synth/synth_graph.hpp"

namespace chorus {

struct AllToAllBound {
  Time bound;
  Time flow_lower;  // concurrent-flow dual (valid bound)
  Time flow_upper;  // a fractional routing reaches this (zero when the solver did not finish a phase)
  Time cut;         // single-NPU cuts
  Time latency;
  uint32_t phases = 0;
  bool exact = false;   // flow_lower and flow_upper are the LP optimum (ConcurrentFlow::exact), rounded to ps
  std::string binding;  // "flow (hops)", "flow (flow)", "single-npu cut", "latency"
};

AllToAllBound all_to_all_bound(const SynthGraph& graph, const std::vector<int64_t>& pair_bytes,
                               const ConcurrentFlowOptions& options);

// The uniform demand of an All-to-All of `size` (NCCL convention: every NPU sends size / N to every NPU).
std::vector<int64_t> uniform_demand(uint32_t members, Bytes size);

}  // namespace chorus
