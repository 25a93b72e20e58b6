// chorus.netopt.optimize: the per-dimension bandwidth that minimises a workload's step time (or time x cost, or
// cost under a time target) on LIBRA's input files; the record has the keys of `chorus netopt --json`.
#include <sstream>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/netopt/budget_text.hpp"
#include "chorus/netopt/cost_model.hpp"
#include "chorus/netopt/cross_check.hpp"
#include "chorus/netopt/libra_inputs.hpp"

namespace chorus::python {

namespace {

using namespace chorus::netopt;

struct NetoptArgs {
  std::string network, cost, workload, comm;
  std::vector<std::string> budgets, constraints;
  std::string objective, time_target, min_bw, max_bw, latency, loop;
  bool block_factors = false;
  bool cross_check = false;
  uint32_t splits = 16;
};

// One value for every dimension, or a comma list with one per dimension.
std::vector<double> per_dimension(const std::string& text, size_t dims, const std::string& field, bool is_time) {
  std::vector<double> values;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    values.push_back(is_time ? parse_time(item, field).nanoseconds() : parse_bandwidth(item, field).gb_per_second());
  if (values.size() == 1)
    values.assign(dims, values.front());
  if (values.size() != dims)
    throw Error("", field, fmt::format("has {} values; give one, or one per dimension ({})", values.size(), dims));
  return values;
}

Objective parse_objective(const std::string& text) {
  if (text == "time")
    return Objective::Time;
  if (text == "time-x-cost")
    return Objective::TimeTimesCost;
  if (text == "cost")
    return Objective::Cost;
  throw Error("", "objective", fmt::format("unknown objective '{}'; expected time, time-x-cost or cost", text));
}

nlohmann::json design_json(const Design& d) {
  return {
      {"bandwidth_GBps", d.bandwidth_gbps}, {"time_ms", d.time_ms}, {"comm_ms", d.communication_ms}, {"cost", d.cost}};
}

nlohmann::json optimize_network(const NetoptArgs& a) {
  const NetworkShape network = load_libra_network(a.network);
  const Workload workload = load_workload(a.workload);
  const Communicator comm = load_communicator(a.comm, network);
  const std::vector<double> costs = cost_coefficients(network, load_cost_model(a.cost), a.cost);
  const size_t dims = network.dimension_count();
  ModelOptions options;
  options.block_factors = a.block_factors;
  if (!a.latency.empty())
    options.latency_ns = per_dimension(a.latency, dims, "latency", true);
  if (a.loop == "overlap") {
    options.loop = TrainingLoop::Overlap;
  } else if (a.loop != "no-overlap") {
    throw Error("", "loop", fmt::format("unknown training loop '{}'; expected no-overlap or overlap", a.loop));
  }
  Budget budget;
  for (const std::string& text : a.budgets)
    apply_budget(text, budget);
  for (const std::string& text : a.constraints)
    budget.extra.push_back(parse_constraint(text, dims));
  if (!a.min_bw.empty())
    budget.min_gbps = per_dimension(a.min_bw, dims, "min_bw", false);
  if (!a.max_bw.empty())
    budget.max_gbps = per_dimension(a.max_bw, dims, "max_bw", false);
  if (!a.time_target.empty())
    budget.time_target_ms = parse_time(a.time_target, "time_target").seconds() * 1e3;
  const TrainingStep step = build_training_step(network, workload, comm, options);
  const OptimizationResult r = optimize(step, costs, parse_objective(a.objective), budget);
  const Design equal = equal_split(step, costs, budget, dims);
  nlohmann::json j = design_json(r.design);
  j["objective"] = a.objective;
  j["objective_value"] = r.objective;
  j["objective_lower_bound"] = r.objective_lower_bound;
  j["search_converged"] = r.search_converged;
  j["compute_ms"] = step.compute_ms();
  j["cost_coefficients"] = costs;
  j["solve_s"] = r.solve_s;
  j["newton_steps"] = r.newton_steps;
  j["duality_gap"] = r.certificate.duality_gap;
  j["equal_split"] = design_json(equal);
  if (a.cross_check) {
    const CrossCheck optimized = cross_check(network, step, r.design.bandwidth_gbps, options, a.splits);
    j["cross_check"] = {{"splits", a.splits},
                        {"optimized", {{"model_ms", optimized.model_ms}, {"simulated_ms", optimized.simulated_ms}}}};
    if (!equal.bandwidth_gbps.empty() && equal.bandwidth_gbps.front() > 0) {
      const CrossCheck even = cross_check(network, step, equal.bandwidth_gbps, options, a.splits);
      j["cross_check"]["equal_split"] = {{"model_ms", even.model_ms}, {"simulated_ms", even.simulated_ms}};
    }
  }
  return j;
}

}  // namespace

void register_netopt(py::module_& m) {
  m.def(
      "_netopt",
      [](const std::string& network, const std::string& cost, const std::string& workload, const std::string& comm,
         const std::vector<std::string>& budgets, const std::vector<std::string>& constraints,
         const std::string& objective, const std::string& time_target, const std::string& min_bw,
         const std::string& max_bw, const std::string& latency, const std::string& loop, bool block_factors,
         bool cross_check, uint32_t splits) {
        const NetoptArgs a{network, cost,   workload, comm, budgets,       constraints, objective, time_target,
                           min_bw,  max_bw, latency,  loop, block_factors, cross_check, splits};
        nlohmann::json j;
        {
          py::gil_scoped_release release;
          j = optimize_network(a);
        }
        return to_python(j);
      },
      "Optimise bandwidths (use chorus.netopt.optimize).");
}

}  // namespace chorus::python
