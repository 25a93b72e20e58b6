// The planner's network tiers (llm::System::networks) as a topology the simulator runs on: one Switch dimension
// per tier the job spans, innermost first, each NPU's link at the tier's bandwidth x efficiency.
//
// The planner charges a tier's latency once per collective; a ring All-Reduce over n members on a switch makes
// 2(n - 1) steps, each paying its links' latency, so each dimension's link latency is the tier latency / 2(n - 1):
// a ring All-Reduce pays the tier's latency once, as in the planner.
//
//   Topology t = planner_topology(sys, 1024);   // h100-80gb: switch:8 x switch:128
#pragma once

#include <cstdint>

#include "chorus/llm/inputs.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

// Throws chorus::Error naming the system's network tier when `npus` does not fill whole domains of its tiers.
Topology planner_topology(const llm::System& sys, int64_t npus, const std::string& system_name);

}  // namespace chorus
