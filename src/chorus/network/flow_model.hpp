// The flow-level network model: every transfer is a flow along its route, links are shared max-min fairly.
//
// A transfer that starts at t first spends its route's total latency in flight using no bandwidth (as SimGrid's
// CM02 model does), then transmits its bytes at its max-min fair share of the links it crosses; rates are
// re-solved, incrementally, whenever a flow starts or ends. Shares are equal: unlike CM02, which weights each
// flow by the inverse of its route latency to mimic TCP, chorus models no round-trip unfairness
// (docs/simgrid-crosscheck.md).
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
  uint64_t events = 0;        // flow starts, rate changes and completions processed
  uint64_t rate_updates = 0;  // flows whose rate was recomputed
  LinkStats links;            // per resource
  std::vector<Time> finish;   // per op: when it ended (a transfer: when its last byte arrived)
};

FlowRunResult run_flow(const Schedule& schedule, const ResourceRoutes& routes);

}  // namespace chorus
