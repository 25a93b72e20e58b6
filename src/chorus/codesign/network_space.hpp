// The networks a template allows: every combination of its dimensions' choices, priced, and each turned into the
// planner's System (the machine's GPUs with the network as its tiers), which is how `chorus codesign` times a
// parallelism on a network.
#pragma once

#include <cstdint>
#include <vector>

#include "chorus/codesign/cost_file.hpp"
#include "chorus/codesign/network_template.hpp"
#include "chorus/llm/inputs.hpp"

namespace chorus::codesign {

class DimensionTables;  // dimension_tables.hpp

struct DimensionSetting {
  double bandwidth_gbps = 0;  // per GPU and direction
  int64_t size = 0;           // GPUs per domain (the job's GPUs for a size: all dimension)
  double oversubscription = 1;
  Algorithm algorithm = Algorithm::kRing;
};

struct NetworkPoint {
  std::vector<DimensionSetting> dims;
  double cost = 0;     // dollars: GPUs plus every dimension
  uint64_t index = 0;  // position in the template's enumeration (the tie-breaker)
  double total_gbps() const;
};

// Every network of the template whose domains nest (each dimension's size at most the next one's and at most the
// job's), in enumeration order (the last dimension's choices vary fastest), priced with the cost file.
std::vector<NetworkPoint> enumerate_networks(const NetworkTemplate& t, const CostFile& prices, int64_t gpus);
// The template's defaults.
NetworkPoint default_network(const NetworkTemplate& t, const CostFile& prices, int64_t gpus);
// GPUs plus the sum of dimension_cost over the dimensions.
double network_cost(const std::vector<DimensionSetting>& dims, const CostFile& prices, int64_t gpus);

// The machine's System with the network as its tiers: dimension 0 takes the machine's tier 0 (scale-up) for what the
// template leaves open (efficiency, latency, processor usage, must_be_filled), the others its last tier. Bandwidth is
// B / oversubscription (every byte is taken to cross the oversubscribed level); switch-reduce sets the All-Reduce
// factor to 1; nccl and synth take their dimension's table from `tables` (an Error when none is given).
llm::System network_system(const llm::System& machine, const NetworkTemplate& t, const NetworkPoint& point,
                           const DimensionTables* tables = nullptr);

}  // namespace chorus::codesign
