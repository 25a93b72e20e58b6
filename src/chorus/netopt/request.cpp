// The network optimizer's request, run and record (see request.hpp).
#include "chorus/netopt/request.hpp"

#include <sstream>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/netopt/budget_text.hpp"
#include "chorus/netopt/cost_model.hpp"

namespace chorus::netopt {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    items.push_back(item);
  return items;
}

std::vector<double> per_dimension(const std::string& text, size_t dims, const std::string& keyword, bool is_time) {
  std::vector<double> values;
  for (const std::string& item : split_list(text)) {
    values.push_back(is_time ? parse_time(item, Argument{keyword}).nanoseconds()
                             : parse_bandwidth(item, Argument{keyword}).gb_per_second());
  }
  if (values.size() == 1)
    values.assign(dims, values.front());
  if (values.size() != dims) {
    throw Error("", Argument{keyword},
                fmt::format("{}: has {} values; give one, or one per dimension ({})", text, values.size(), dims));
  }
  return values;
}

Objective parse_objective(const std::string& text) {
  if (text == "time")
    return Objective::Time;
  if (text == "time-x-cost")
    return Objective::TimeTimesCost;
  if (text == "cost")
    return Objective::Cost;
  throw Error("", Argument{"objective"}, text + ": unknown objective; expected time, time-x-cost or cost");
}

ModelOptions model_options(const NetoptRequest& q, size_t dims) {
  ModelOptions m;
  m.block_factors = q.block_factors;
  if (!q.latency.empty())
    m.latency_ns = per_dimension(q.latency, dims, "latency", true);
  if (q.loop == "overlap") {
    m.loop = TrainingLoop::Overlap;
  } else if (q.loop != "no-overlap") {
    throw Error("", Argument{"loop"}, q.loop + ": unknown training loop; expected no-overlap or overlap");
  }
  return m;
}

Budget make_budget(const NetoptRequest& q, size_t dims) {
  Budget b;
  for (const std::string& text : q.budgets)
    apply_budget(text, b);
  for (const std::string& text : q.constraints)
    b.extra.push_back(parse_constraint(text, dims));
  if (!q.min_bw.empty())
    b.min_gbps = per_dimension(q.min_bw, dims, "min_bw", false);
  if (!q.max_bw.empty())
    b.max_gbps = per_dimension(q.max_bw, dims, "max_bw", false);
  if (!q.time_target.empty())
    b.time_target_ms = parse_time(q.time_target, Argument{"time_target"}).seconds() * 1e3;
  return b;
}

NetoptOutcome run_netopt(const NetoptRequest& q) {
  if (q.network.empty() || q.comm.empty())
    throw Error("netopt", Argument{"network"}, "a network and a communicator file are required without a sweep");
  NetoptOutcome out{load_libra_network(q.network), {}, {}, {}, {}, std::nullopt, std::nullopt};
  const Workload workload = load_workload(q.workload);
  const Communicator comm = load_communicator(q.comm, out.network);
  out.costs = cost_coefficients(out.network, load_cost_model(q.cost), q.cost);
  const size_t dims = out.network.dimension_count();
  const ModelOptions options = model_options(q, dims);
  out.step = build_training_step(out.network, workload, comm, options);
  const Budget budget = make_budget(q, dims);
  out.result = optimize(out.step, out.costs, parse_objective(q.objective), budget);
  out.equal = equal_split(out.step, out.costs, budget, dims);
  if (q.cross_check) {
    out.optimized_sim = cross_check(out.network, out.step, out.result.design.bandwidth_gbps, options, q.splits);
    if (!out.equal.bandwidth_gbps.empty() && out.equal.bandwidth_gbps.front() > 0)
      out.equal_sim = cross_check(out.network, out.step, out.equal.bandwidth_gbps, options, q.splits);
  }
  return out;
}

nlohmann::json design_json(const Design& d) {
  return {
      {"bandwidth_GBps", d.bandwidth_gbps}, {"time_ms", d.time_ms}, {"comm_ms", d.communication_ms}, {"cost", d.cost}};
}

nlohmann::json netopt_record(const NetoptRequest& q, const NetoptOutcome& o) {
  const OptimizationResult& r = o.result;
  nlohmann::json j = design_json(r.design);
  j["objective"] = q.objective;
  j["objective_value"] = r.objective;
  j["objective_lower_bound"] = r.objective_lower_bound;
  j["search_converged"] = r.search_converged;
  j["compute_ms"] = o.step.compute_ms();
  j["cost_coefficients"] = o.costs;
  j["solve_s"] = r.solve_s;
  j["newton_steps"] = r.newton_steps;
  j["duality_gap"] = r.certificate.duality_gap;
  j["equal_split"] = design_json(o.equal);
  if (o.optimized_sim) {
    j["cross_check"] = {
        {"splits", q.splits},
        {"optimized", {{"model_ms", o.optimized_sim->model_ms}, {"simulated_ms", o.optimized_sim->simulated_ms}}}};
    if (o.equal_sim)
      j["cross_check"]["equal_split"] = {{"model_ms", o.equal_sim->model_ms},
                                         {"simulated_ms", o.equal_sim->simulated_ms}};
  }
  return j;
}

}  // namespace chorus::netopt
