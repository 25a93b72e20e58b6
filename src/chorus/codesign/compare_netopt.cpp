// netopt's bandwidths for the default parallelism, timed by the planner (see compare_netopt.hpp).
#include "chorus/codesign/compare_netopt.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/netopt/optimizer.hpp"

namespace chorus::codesign {

LinearPrices linear_prices(const CostFile& prices, const NetworkPoint& point, int64_t gpus) {
  LinearPrices out;
  std::vector<DimensionSetting> none = point.dims;
  for (DimensionSetting& d : none)
    d.bandwidth_gbps = 0;
  out.fixed = network_cost(none, prices, gpus);  // zero bandwidth buys no port: the GPUs alone
  for (size_t i = 0; i < point.dims.size(); ++i) {
    // The dimension's price at one port's bandwidth, per GB/s: the linear term plus one port's fabric, spread
    // over its bandwidth (dimension_cost is linear between whole ports only through this slope).
    std::vector<DimensionSetting> one = none;
    one[i].bandwidth_gbps = prices.dimensions[i].port_gbps;
    out.coefficients.push_back((network_cost(one, prices, gpus) - out.fixed) / prices.dimensions[i].port_gbps);
  }
  return out;
}

llm::Execution default_parallelism(const llm::Application& app, const llm::System& machine, const NetworkTemplate& t,
                                   const CostFile& prices, const DimensionTables* tables, const CodesignSpec& spec) {
  if (spec.execution)
    return *spec.execution;
  const NetworkPoint def = default_network(t, prices, spec.gpus);
  const llm::IterationModel model(app, network_system(machine, t, def, tables));
  const llm::SearchResult r = llm::run_search(model, network_search_spec(spec, 1));
  if (r.top.empty())
    throw Error(t.file, "dimensions", "no parallelism fits on the default network (--compare-netopt needs one)");
  return r.top.front().execution;
}

namespace {

// A switched dimension (domains beyond the server) uses whole ports: B rounded down to one, where the linear price
// equals the cost file's. Never below the template's smallest bandwidth.
std::vector<double> whole_ports(const std::vector<double>& gbps, const CostFile& prices, const NetworkPoint& point,
                                const std::vector<double>& lo) {
  std::vector<double> out = gbps;
  for (size_t d = 0; d < out.size(); ++d) {
    const DimensionPrices& p = prices.dimensions[d];
    if (point.dims[d].size > p.node_gpus)
      out[d] = std::max(lo[d], std::floor(out[d] / p.port_gbps * (1 + 1e-12)) * p.port_gbps);
  }
  return out;
}

bool fits(const std::vector<double>& gbps, const CostFile& prices, NetworkPoint& point, const CodesignSpec& spec) {
  double total = 0;
  for (size_t d = 0; d < gbps.size(); ++d) {
    point.dims[d].bandwidth_gbps = gbps[d];
    total += gbps[d];
  }
  point.cost = network_cost(point.dims, prices, spec.gpus);
  return point.cost <= spec.budget_dollars && total <= spec.budget_total_gbps * (1 + 1e-12);
}

// Whole ports within the budget: netopt's bandwidths rounded down, or, where a dimension's smallest bandwidth costs
// a whole port more than its linear price, every bandwidth moved toward its smallest by the least step that fits
// (whole_ports is nondecreasing along the way, so the price is, and a bisection finds the step). False (point at the
// smallest bandwidths) when even those exceed the budget.
bool fit_whole_ports(const std::vector<double>& gbps, const std::vector<double>& lo, const CostFile& prices,
                     NetworkPoint& point, const CodesignSpec& spec) {
  auto at = [&](double s) {
    std::vector<double> b = gbps;
    for (size_t d = 0; d < b.size(); ++d)
      b[d] = lo[d] + s * (gbps[d] - lo[d]);
    return whole_ports(b, prices, point, lo);
  };
  if (fits(at(1), prices, point, spec))
    return true;
  if (!fits(at(0), prices, point, spec))
    return false;
  double fit = 0, over = 1;
  for (int k = 0; k < 48; ++k) {
    const double mid = (fit + over) / 2;
    (fits(at(mid), prices, point, spec) ? fit : over) = mid;
  }
  return fits(at(fit), prices, point, spec);
}

// netopt's time optimum of the step within the template's ranges and the budget (dollars less the fixed part as
// netopt's dollar budget; total-bw as a sum at most, since codesign's is a ceiling).
std::vector<double> solve(const PlannerStep& p, const LinearPrices& lp, const std::vector<double>& lo,
                          const std::vector<double>& hi, const CodesignSpec& spec) {
  const size_t dims = lo.size();
  netopt::Budget budget;
  for (size_t d = 0; d < dims; ++d) {
    // A fixed bandwidth gets a sliver of room: the barrier method needs an interior.
    const double slack = hi[d] > lo[d] ? 0.0 : 1e-6 * lo[d];
    budget.min_gbps.push_back(lo[d] - slack);
    budget.max_gbps.push_back(hi[d] + slack);
  }
  if (std::isfinite(spec.budget_dollars))
    budget.dollars = spec.budget_dollars - lp.fixed;
  if (std::isfinite(spec.budget_total_gbps))
    budget.extra.push_back({std::vector<double>(dims, 1.0), false, spec.budget_total_gbps, "total-bw"});
  std::vector<double> b =
      netopt::optimize(p.step, lp.coefficients, netopt::Objective::Time, budget).design.bandwidth_gbps;
  for (size_t d = 0; d < dims; ++d) {
    bool used = false;
    for (const netopt::CollectiveTerms& c : p.step.collectives)
      used = used || c.dims[d].coefficient > 0;
    // Nothing runs on it: any bandwidth is as fast, the smallest the cheapest. The barrier method stops just inside
    // its bounds: within 1e-6 of one, the bound (the template's grid value) is meant.
    b[d] = used ? std::clamp(b[d], lo[d], hi[d]) : lo[d];
    if (b[d] >= hi[d] * (1 - 1e-6))
      b[d] = hi[d];
    if (b[d] <= lo[d] * (1 + 1e-6))
      b[d] = lo[d];
  }
  return b;
}

}  // namespace

NetoptComparison compare_netopt(const llm::Application& app, const llm::System& machine, const NetworkTemplate& t,
                                const CostFile& prices, const CodesignSpec& spec, const CodesignResult& result) {
  if (spec.objective != Objective::kTime) {
    throw Error(
        "", Argument{"compare_netopt"},
        fmt::format("compares netopt's time objective; --objective is {} (use time)", to_string(spec.objective)));
  }
  const DimensionTables* tables = result.tables.get();
  NetoptComparison c;
  c.execution = default_parallelism(app, machine, t, prices, tables, spec);
  NetworkPoint point = default_network(t, prices, spec.gpus);
  const PlannerStep step = planner_step(app, machine, t, point, tables, c.execution);
  std::vector<double> lo, hi;
  for (const DimensionTemplate& d : t.dimensions) {
    lo.push_back(*std::min_element(d.bandwidth_gbps.values.begin(), d.bandwidth_gbps.values.end()));
    hi.push_back(*std::max_element(d.bandwidth_gbps.values.begin(), d.bandwidth_gbps.values.end()));
  }
  const LinearPrices lp = linear_prices(prices, point, spec.gpus);
  try {
    c.netopt_gbps = solve(step, lp, lo, hi, spec);
  } catch (const Error& e) {
    // The template's smallest bandwidths exceed the budget on the default network's sizes: netopt has no design.
    throw Error("", Argument{"compare_netopt"}, fmt::format("netopt finds no design: {}", e.message()));
  }
  c.netopt_model_s = step.step.time_ms(c.netopt_gbps) * 1e-3;
  const double tokens = static_cast<double>(spec.batch) * static_cast<double>(app.seq_size);
  auto timed = [&](const NetworkPoint& p) {
    const llm::Stats st = llm::IterationModel(app, network_system(machine, t, p, tables)).evaluate(c.execution);
    return Design{p, c.execution, st, st.total_time, p.cost, tokens / st.total_time / p.cost, st.total_time};
  };
  // The cost file charges a switched dimension ceil(B / port) ports, so netopt's B costs what the whole port above it
  // does: each such dimension is tried at the whole port above and below, and the fastest within the budget kept.
  std::vector<std::vector<double>> roundings = {c.netopt_gbps};
  for (size_t d = 0; d < lo.size(); ++d) {
    const double port = prices.dimensions[d].port_gbps;
    if (point.dims[d].size <= prices.dimensions[d].node_gpus || roundings.size() >= 256)
      continue;
    std::vector<std::vector<double>> next;
    for (const std::vector<double>& r : roundings) {
      for (const double b :
           {std::floor(r[d] / port * (1 + 1e-12)) * port, std::ceil(r[d] / port * (1 - 1e-12)) * port}) {
        next.push_back(r);
        next.back()[d] = std::clamp(b, lo[d], hi[d]);
      }
    }
    roundings = std::move(next);
  }
  for (const std::vector<double>& r : roundings) {
    NetworkPoint p = point;
    if (!fits(r, prices, p, spec))
      continue;
    const Design d = timed(p);
    if (d.stats.outcome == llm::Outcome::kOk &&
        (!c.within_budget || d.time_s < c.design.time_s || (d.time_s == c.design.time_s && d.cost < c.design.cost))) {
      c.design = d;
      c.within_budget = true;
    }
  }
  if (!c.within_budget) {
    // No rounding fits (a dimension's smallest bandwidth costs a whole port more than its linear price): toward the
    // smallest bandwidths until it does.
    c.within_budget = fit_whole_ports(c.netopt_gbps, lo, prices, point, spec);
    c.design = timed(point);
    c.within_budget = c.within_budget && c.design.stats.outcome == llm::Outcome::kOk;
  }
  return c;
}

void admit_netopt_design(CodesignResult& result, NetoptComparison& c, const CodesignSpec& spec) {
  c.top_rank.reset();
  if (!c.within_budget)
    return;
  const auto before = [](const Design& a, const Design& b) {
    return a.time_s < b.time_s || (a.time_s == b.time_s && a.cost < b.cost);
  };
  // The grid may hold the very design (netopt's bandwidths rounded onto a grid point): it is listed once. The search
  // and this evaluation may round differently in the last bits.
  for (const Design& d : result.top) {
    bool same_network = d.network.dims.size() == c.design.network.dims.size();
    for (size_t i = 0; same_network && i < d.network.dims.size(); ++i) {
      const DimensionSetting &x = d.network.dims[i], &y = c.design.network.dims[i];
      same_network = x.bandwidth_gbps == y.bandwidth_gbps && x.size == y.size &&
                     x.oversubscription == y.oversubscription && x.algorithm == y.algorithm;
    }
    const llm::Execution &x = d.execution, &y = c.execution;
    if (same_network && std::abs(d.time_s - c.design.time_s) <= 1e-12 * c.design.time_s &&
        x.tensor_par == y.tensor_par && x.pipeline_par == y.pipeline_par && x.data_par == y.data_par &&
        x.context_par == y.context_par && x.expert_par == y.expert_par && x.microbatch_size == y.microbatch_size)
      return;
  }
  const size_t n = static_cast<size_t>(std::max(1, spec.top_n));
  if (result.top.size() == n && !before(c.design, result.top.back()))
    return;
  const auto at = std::upper_bound(result.top.begin(), result.top.end(), c.design, before);
  c.top_rank = static_cast<size_t>(at - result.top.begin());
  result.top.insert(at, c.design);
  if (result.top.size() > n)
    result.top.pop_back();
}

}  // namespace chorus::codesign
