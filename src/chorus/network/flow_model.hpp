// The flow-level network model: every transfer is a flow along its route, links are shared max-min fairly.
//
// A transfer that starts at t first spends its route's total latency in flight (no bandwidth used, as in
// SimGrid's CM02 model without correction factors), then transmits its bytes at the max-min fair rate of the
// flows that cross its links at that moment; rates are re-solved, incrementally, whenever a flow starts or ends.
// Unlike ASTRA-sim's congestion-aware backend it runs on any topology: multi-dimensional, switched, heterogeneous.
//
//   RouteTable table(topology);
//   FlowRunResult r = run_flow(schedule, PhysicalRoutes(schedule, table));
#pragma once

#include <cstdint>
#include <vector>

#include "chorus/collective/schedule.hpp"
#include "chorus/network/link_stats.hpp"
#include "chorus/network/resource_routes.hpp"

namespace chorus {

struct FlowRunResult {
  Time makespan;
  uint64_t events = 0;      // flow starts, rate changes and completions processed
  uint64_t rate_updates = 0;  // flows whose rate was recomputed
  LinkStats links;  // per resource
  std::vector<Time> finish;  // per op: when it ended (a transfer: when its last byte arrived)
};

FlowRunResult run_flow(const Schedule& schedule, const ResourceRoutes& routes);

}  // namespace chorus
