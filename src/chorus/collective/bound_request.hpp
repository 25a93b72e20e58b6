// The lower bounds of one collective as a user asks for them (the options of `chorus bound`, as text) and their
// record, the object `chorus bound --json` prints. The CLI and chorus.bound() in Python both come through here.
//
//   BoundOptions o = bound_options("auto", 0, "auto", topology.npu_count());
//   nlohmann::json record = bound_record(lower_bound(topology, collective, o), topology.name());
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "chorus/collective/lower_bound.hpp"

namespace chorus {

// `sinks`: auto | all | one | brute | symmetric; `information_bound`: auto (only up to 1024 NPUs: it costs 2(N-1)
// max-flows) | on | off. Throws chorus::Error naming Argument{"sinks"} or Argument{"information_bound"} on another
// value.
BoundOptions bound_options(std::string_view sinks, uint32_t root, std::string_view information_bound, uint32_t npus);

// collective, topology, size_bytes, npus, method, bound_ns, bandwidth_bound_ns, latency_bound_ns, worst_cut_npus,
// worst_cut_nodes, all_gather_/reduce_scatter_bandwidth_bound_ns (All-Reduce), information_bound_ns, max_flows.
nlohmann::json bound_record(const LowerBound& bound, const std::string& topology);

}  // namespace chorus
