// Per-link statistics collected by the congestion-aware models: bytes carried, time busy, peak concurrency.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chorus/core/units.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

struct LinkStats {
  std::vector<double> bytes;         // bytes that crossed each link
  std::vector<Time> busy;            // time with at least one message transmitting on it
  std::vector<uint32_t> peak_flows;  // most messages sharing (flow) or queued on (aware) it at once

  void resize(size_t links) {
    bytes.assign(links, 0);
    busy.assign(links, Time::zero());
    peak_flows.assign(links, 0);
  }
};

// CSV: link,src,dst,bandwidth_GBps,latency_ns,bytes,busy_ns,utilization,peak_flows (utilization = busy / makespan).
void write_link_stats_csv(const std::string& path, const Topology& topology, const LinkStats& stats, Time makespan);

}  // namespace chorus
