// `chorus codesign --refine-bandwidth`: for a design found on the template's grid, the continuous per-dimension
// bandwidths (each within its dimension's [smallest, largest] template value) that improve the design's objective
// for its parallelism, domain sizes, oversubscriptions and algorithms, under the same budget.
//
// The planner's iteration time is not a convex function of the bandwidths (exposed communication is a maximum and
// a difference of overlapped terms; nccl and synth are tables), so netopt's convex program does not apply. The
// search is derivative-free and monotone: coordinate searches over one bandwidth, and, under a budget, searches that
// raise one bandwidth while lowering another to the most the budget allows; each 1-D search samples its interval
// (log-spaced, with the current value among the samples) and narrows around the best sample by golden sections. A
// point replaces the current one only when it is within the budget and strictly better, so the result is never
// worse than the grid design it starts from.
//
//   RefinedBandwidth r = refine_bandwidth(app, machine, t, prices, tables, spec, result.top[0]);
//   r.bandwidth_gbps[0], r.time_s <= result.top[0].time_s (objective time)
#pragma once

#include <vector>

#include "chorus/codesign/dimension_tables.hpp"
#include "chorus/codesign/solver.hpp"

namespace chorus::codesign {

struct RefinedBandwidth {
  std::vector<double> bandwidth_gbps;  // per dimension
  double time_s = 0;
  double cost = 0;
  double objective = 0;  // the value minimised: time, cost (time within the target) or time x cost
  int evaluations = 0;   // planner evaluations spent
};

// The value `refine_bandwidth` minimises for a design of this time and cost: time for time, cost for cost,
// time x cost for time-x-cost and tokens-per-dollar (the batch is fixed).
double minimised_value(Objective objective, double time_s, double cost);

RefinedBandwidth refine_bandwidth(const llm::Application& app, const llm::System& machine, const NetworkTemplate& t,
                                  const CostFile& prices, const DimensionTables* tables, const CodesignSpec& spec,
                                  const Design& design);

}  // namespace chorus::codesign
