// The congestion-unaware network model: every message takes its MessageCost delay, whatever else is in flight.
//
// Runs a Schedule in one forward pass (ops are in topological order):
//   start(op)  = max(finish(dep) for dep in deps(op)) + pre_delay(op)
//   finish(op) = start(op) + delay(src, dst, bytes) for a transfer, start(op) for a local step.
// The collective's time is the latest finish. Cost: O(ops + deps) time, 8 bytes per op.
#pragma once

#include <vector>

#include "chorus/collective/schedule.hpp"
#include "chorus/network/message_cost.hpp"

namespace chorus {

struct ScheduleTiming {
  Time makespan;
  std::vector<Time> finish;  // per op
};

ScheduleTiming run_unaware(const Schedule& schedule, const MessageCost& cost);

}  // namespace chorus
