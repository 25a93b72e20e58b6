// ASTRA-sim system configuration (system JSON), accepted unchanged.
//
// Keys and defaults follow ASTRA-sim 2.0's system layer: scheduling-policy (LIFO|FIFO|EXPLICIT),
// collective-optimization (baseline|localBWAware) and preferred-dataset-splits are required;
// active-chunks-per-dimension defaults to 1, endpoint-delay to 10 ns, local-mem-bw (GB/s, 1e9) to 0
// (free reductions); <collective>-implementation lists name one algorithm per dimension. Keys ASTRA-sim
// itself ignores or that only matter to its workload layer (boost-mode, peak-perf, roofline-enabled, ...)
// are accepted and kept; any other key is an error naming it.
//
//   AstraSystemConfig sys = load_astra_system("ring_1d.json");
//   CollectivePlanConfig plan = sys.plan_config(CollectiveKind::AllReduce);
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "chorus/collective/hierarchical.hpp"

namespace chorus {

enum class SchedulingPolicy : uint8_t { Lifo, Fifo, Explicit };

struct AstraSystemConfig {
  std::string path;
  SchedulingPolicy scheduling_policy = SchedulingPolicy::Lifo;
  Composition composition = Composition::LocalBandwidthAware;
  uint32_t splits = 1;
  uint32_t active_chunks = 1;
  Time endpoint_delay = Time::ns(10);
  double local_mem_bw_gbps = 0;  // GB/s, 1 GB = 1e9 B
  double peak_perf_tflops = 0;
  bool roofline_enabled = false;
  // Per collective: the implementation names as written, one per dimension.
  std::map<CollectiveKind, std::vector<std::string>> implementations;

  // The plan configuration for one collective; throws chorus::Error naming the file and the missing
  // `<collective>-implementation` key if the collective has none.
  CollectivePlanConfig plan_config(CollectiveKind kind) const;
};

AstraSystemConfig load_astra_system(const std::string& path);

}  // namespace chorus
