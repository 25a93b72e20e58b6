// The networks of a template, their prices and their planner systems (see network_space.hpp).
#include "chorus/codesign/network_space.hpp"

#include <fmt/format.h>

#include "chorus/codesign/dimension_tables.hpp"
#include "chorus/core/error.hpp"

namespace chorus::codesign {

double NetworkPoint::total_gbps() const {
  double sum = 0;
  for (const DimensionSetting& d : dims)
    sum += d.bandwidth_gbps;
  return sum;
}

double network_cost(const std::vector<DimensionSetting>& dims, const CostFile& prices, int64_t gpus) {
  double cost = static_cast<double>(gpus) * prices.gpu_dollars;
  for (size_t i = 0; i < dims.size(); ++i) {
    const DimensionSetting& d = dims[i];
    // Priced by what the switches must do: nccl on the first dimension as switch-reduce (NVLS), synth as ring.
    const Algorithm priced = reduces_in_switch(d.algorithm, i) ? Algorithm::kSwitchReduce : Algorithm::kRing;
    cost += dimension_cost(prices.dimensions[i], gpus, d.bandwidth_gbps, d.size, d.oversubscription, priced);
  }
  return cost;
}

namespace {

// The settings of one dimension, in enumeration order: bandwidth, then size, oversubscription, algorithm.
std::vector<DimensionSetting> dimension_settings(const DimensionTemplate& d, int64_t gpus) {
  std::vector<DimensionSetting> out;
  for (double bw : d.bandwidth_gbps.values) {
    for (double size : d.size.values) {
      for (double o : d.oversubscription.values) {
        for (Algorithm a : d.algorithms)
          out.push_back({bw, d.size_all ? gpus : static_cast<int64_t>(size), o, a});
      }
    }
  }
  return out;
}

bool nested(const std::vector<DimensionSetting>& dims, int64_t gpus) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i].size > gpus || (i + 1 < dims.size() && dims[i].size > dims[i + 1].size))
      return false;
  }
  return true;
}

}  // namespace

std::vector<NetworkPoint> enumerate_networks(const NetworkTemplate& t, const CostFile& prices, int64_t gpus) {
  std::vector<std::vector<DimensionSetting>> per_dim;
  for (const DimensionTemplate& d : t.dimensions)
    per_dim.push_back(dimension_settings(d, gpus));
  std::vector<NetworkPoint> points;
  std::vector<size_t> at(per_dim.size(), 0);
  for (uint64_t index = 0;; ++index) {
    NetworkPoint p;
    p.index = index;
    for (size_t i = 0; i < per_dim.size(); ++i)
      p.dims.push_back(per_dim[i][at[i]]);
    if (nested(p.dims, gpus)) {
      p.cost = network_cost(p.dims, prices, gpus);
      points.push_back(std::move(p));
    }
    size_t i = per_dim.size();
    while (i > 0) {
      --i;
      if (++at[i] < per_dim[i].size())
        break;
      at[i] = 0;
      if (i == 0)
        return points;
    }
  }
}

NetworkPoint default_network(const NetworkTemplate& t, const CostFile& prices, int64_t gpus) {
  NetworkPoint p;
  for (const DimensionTemplate& d : t.dimensions) {
    p.dims.push_back({d.bandwidth_gbps.default_value(),
                      d.size_all ? gpus : static_cast<int64_t>(d.size.default_value()),
                      d.oversubscription.default_value(), d.algorithms.front()});
  }
  if (!nested(p.dims, gpus))
    throw Error(t.file, "dimensions", "the default network's domains do not nest (a size above the next one's)");
  p.cost = network_cost(p.dims, prices, gpus);
  return p;
}

llm::System network_system(const llm::System& machine, const NetworkTemplate& t, const NetworkPoint& point,
                           const DimensionTables* tables) {
  if (machine.networks.empty())
    throw Error("", Argument{"machine"}, "has no network tiers");
  llm::System sys = machine;
  sys.networks.clear();
  for (size_t i = 0; i < point.dims.size(); ++i) {
    const DimensionTemplate& dt = t.dimensions[i];
    const DimensionSetting& d = point.dims[i];
    llm::NetworkTier tier = i == 0 ? machine.networks.front() : machine.networks.back();
    tier.bytes_per_second = d.bandwidth_gbps * 1e9 / d.oversubscription;
    tier.size = d.size;
    if (dt.latency_s)
      tier.latency_s = *dt.latency_s;
    if (dt.efficiency)
      tier.efficiency = *dt.efficiency;
    if (d.algorithm == Algorithm::kSwitchReduce) {
      tier.scale[static_cast<size_t>(llm::Collective::kAllReduce)] = 1;
      tier.offset[static_cast<size_t>(llm::Collective::kAllReduce)] = 0;
    }
    if (d.algorithm == Algorithm::kNccl || d.algorithm == Algorithm::kSynth) {
      if (tables == nullptr)
        throw Error(t.file, fmt::format("dimensions[{}].algorithms", i), "nccl and synth need the cost tables");
      tier.table = tables->find(i, d);
    }
    sys.networks.push_back(tier);
  }
  return sys;
}

}  // namespace chorus::codesign
