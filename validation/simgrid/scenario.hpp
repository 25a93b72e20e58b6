// Scenarios of the SimGrid cross-check: a chorus topology plus a set of independent flows to run on it.
//
// A flow goes from one NPU to another, carries `bytes`, and is injected at `start`. Both simulators route it
// along chorus's RouteTable route, so they see exactly the same links.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chorus/core/units.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus::validation {

struct Flow {
  uint32_t src = 0;
  uint32_t dst = 0;
  int64_t bytes = 0;
  Time start;
};

struct Scenario {
  std::string name;
  Topology topology;
  std::vector<Flow> flows;
};

// The fixed scenario set: incast, outcast, rings, chains, switch hot spots, tori, staggered arrivals, ...
std::vector<Scenario> make_scenarios();

}  // namespace chorus::validation
