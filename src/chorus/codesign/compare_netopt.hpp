// `chorus codesign --compare-netopt`: what `chorus netopt` would buy for the default parallelism, timed by the planner,
// and the floor that the joint optimum is never worse. The default parallelism (--exec, else `llm search`'s best on
// the template's default network) becomes netopt's training step (netopt_step.hpp) on the default network; netopt's
// convex program picks continuous per-dimension bandwidths within the template's ranges and the budget, with the
// cost file as a linear price per GB/s; the planner times the parallelism there, and that design joins the top list
// when it beats the grid's.
//
//   NetoptComparison c = compare_netopt(app, machine, t, prices, spec, result);  // result: run_codesign's
//   c.design.time_s >= result.top[0].time_s once admit_netopt_design(result, c, spec) has run
#pragma once

#include <optional>
#include <vector>

#include "chorus/codesign/netopt_step.hpp"
#include "chorus/codesign/solver.hpp"

namespace chorus::codesign {

// The cost file as netopt's linear model on a network's sizes, oversubscriptions and algorithms: cost(B) = fixed +
// sum_d coefficient_d B_d. A switched dimension buys ceil(B / port) ports; the linear model prices B / port of them
// (exact at whole ports, below the cost file in between).
struct LinearPrices {
  std::vector<double> coefficients;  // $ per GB/s of per-GPU bandwidth, one per dimension
  double fixed = 0;                  // the GPUs
};
LinearPrices linear_prices(const CostFile& prices, const NetworkPoint& point, int64_t gpus);

// The parallelism a user would run without co-design: spec.execution, else the planner's best on the default network
// (as `llm search`: exact batch, spec.dims). Error naming --network when nothing fits on the default network.
llm::Execution default_parallelism(const llm::Application& app, const llm::System& machine, const NetworkTemplate& t,
                                   const CostFile& prices, const DimensionTables* tables, const CodesignSpec& spec);

struct NetoptComparison {
  llm::Execution execution;
  std::vector<double> netopt_gbps;  // netopt's continuous optimum of the converted step
  double netopt_model_s = 0;        // the converted step's time there (netopt's model of the planner)
  Design design;                    // the planner at netopt's bandwidths, switched dimensions at whole ports
  bool within_budget = false;       // design.cost within the dollar and total-bandwidth budgets
  std::optional<size_t> top_rank;   // where admit_netopt_design placed it in the top list
};

// Error naming --compare-netopt for an objective other than time (netopt's time objective is the one compared).
NetoptComparison compare_netopt(const llm::Application& app, const llm::System& machine, const NetworkTemplate& t,
                                const CostFile& prices, const CodesignSpec& spec, const CodesignResult& result);

// Puts the comparison's design into the top list (time order, then cost) when it is within the budget and better
// than the list's last, so the best design is never slower than netopt's; sets top_rank.
void admit_netopt_design(CodesignResult& result, NetoptComparison& c, const CodesignSpec& spec);

}  // namespace chorus::codesign
