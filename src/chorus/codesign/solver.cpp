// The co-design search (see solver.hpp).
#include "chorus/codesign/solver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/llm/iteration.hpp"

namespace chorus::codesign {

Objective parse_objective(const std::string& text) {
  if (text == "time")
    return Objective::kTime;
  if (text == "cost")
    return Objective::kCost;
  if (text == "time-x-cost")
    return Objective::kTimeXCost;
  if (text == "tokens-per-dollar")
    return Objective::kTokensPerDollar;
  throw Error("", Argument{"objective"},
              fmt::format("is '{}'; expected time, cost, time-x-cost or tokens-per-dollar", text));
}

const char* to_string(Objective o) {
  switch (o) {
    case Objective::kTime:
      return "time";
    case Objective::kCost:
      return "cost";
    case Objective::kTimeXCost:
      return "time-x-cost";
    case Objective::kTokensPerDollar:
      return "tokens-per-dollar";
  }
  return "time";
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The order of the top list: the objective, then the other of time and cost, then the network's and the planner's
// enumeration order (so the list does not depend on threads).
struct Key {
  double primary = 0;
  double secondary = 0;
  uint64_t network = 0;
  size_t rank = 0;
  bool operator<(const Key& o) const {
    return std::tie(primary, secondary, network, rank) < std::tie(o.primary, o.secondary, o.network, o.rank);
  }
};

Key key_of(Objective objective, double time_s, double cost, uint64_t network, size_t rank) {
  switch (objective) {
    case Objective::kTime:
      return {time_s, cost, network, rank};
    case Objective::kCost:
      return {cost, time_s, network, rank};
    case Objective::kTimeXCost:
    case Objective::kTokensPerDollar:
      break;
  }
  return {time_s * cost, time_s, network, rank};
}

struct Ranked {
  Key key;
  Design design;
};

bool same_execution(const llm::Execution& x, const llm::Execution& y) {
  const llm::Execution a = llm::canonical_execution(x), b = llm::canonical_execution(y);
  auto fields = [](const llm::Execution& e) {
    return std::tie(e.num_procs, e.tensor_par, e.pipeline_par, e.data_par, e.tensor_par_net, e.pipeline_par_net,
                    e.data_par_net, e.batch_size, e.microbatch_size, e.datatype, e.fused_activation, e.multiquery,
                    e.recompute, e.pipeline_interleaving, e.optimizer_sharding, e.tp_comm, e.tp_overlap,
                    e.seq_par_ag_redo, e.data_par_overlap, e.weight_offload, e.activations_offload, e.optimizer_offload,
                    e.training, e.context_par, e.expert_par, e.context_par_net, e.expert_par_net, e.fsdp,
                    e.tp_gemm_overlap, e.fused_attention);
  };
  return fields(a) == fields(b);
}

// True when the list holds the same parallelism at the same time and cost already: a network choice that changes
// neither (switch-reduce on a dimension where nothing all-reduces, say) does not make another design.
bool listed_already(const std::vector<Ranked>& top, const Key& key, const Design& d) {
  for (const Ranked& r : top) {
    if (r.key.primary == key.primary && r.key.secondary == key.secondary && r.design.time_s == d.time_s &&
        r.design.cost == d.cost && same_execution(r.design.execution, d.execution))
      return true;
  }
  return false;
}

// The longest iteration a design on a network of `cost` may take and still enter the top list (kInf while the list
// is not full; a negative value when nothing on this network can enter).
double top_bar(const std::vector<Ranked>& top, size_t n, const CodesignSpec& spec, double cost) {
  double bar = spec.objective == Objective::kCost ? spec.time_target_s : kInf;
  if (top.size() < n)
    return bar;
  const Key& worst = top.back().key;
  switch (spec.objective) {
    case Objective::kTime:
      return std::min(bar, worst.primary);
    case Objective::kCost:
      return cost < worst.primary ? bar : cost == worst.primary ? std::min(bar, worst.secondary) : -1.0;
    case Objective::kTimeXCost:
    case Objective::kTokensPerDollar:
      return std::min(bar, worst.primary / cost);
  }
  return bar;
}

// The given parallelism on one network, as a search result of one candidate (none when it does not fit).
llm::SearchResult evaluate_one(const llm::IterationModel& model, const llm::Execution& e) {
  llm::SearchResult r;
  r.enumerated = 1;
  const llm::Stats st = model.evaluate(e);
  if (st.outcome == llm::Outcome::kOk)
    r.top.push_back(llm::Candidate{st.sample_rate, 0, e, st});
  return r;
}

}  // namespace

llm::SearchSpec network_search_spec(const CodesignSpec& spec, int top_n) {
  llm::SearchSpec s;
  s.dims = spec.dims;
  s.dims.exact_batch = true;
  s.num_procs = spec.gpus;
  s.max_batch = spec.batch;
  s.datatype = spec.datatype;
  s.top_n = top_n;
  s.threads = spec.threads;
  return s;
}

CodesignResult run_codesign(const llm::Application& app, const llm::System& machine, const NetworkTemplate& t,
                            const CostFile& prices, const CodesignSpec& spec) {
  const auto started = std::chrono::steady_clock::now();
  if (spec.objective == Objective::kCost && !(spec.time_target_s > 0))
    throw Error("", Argument{"time_target"}, "is missing; --objective cost needs it (the iteration time to meet)");
  check_template_holds(t, spec.gpus);
  if (spec.execution && (spec.execution->num_procs != spec.gpus || spec.execution->batch_size != spec.batch)) {
    throw Error("", Argument{"exec"},
                fmt::format("has num_procs {} and batch_size {}; --gpus and --max-batch are {} and {}",
                            spec.execution->num_procs, spec.execution->batch_size, spec.gpus, spec.batch));
  }
  CodesignResult result;
  std::vector<NetworkPoint> all = enumerate_networks(t, prices, spec.gpus);
  result.networks = all.size();
  if (all.empty())
    throw Error(t.file, "dimensions", "no network of the template has domains that nest within --gpus");
  result.cheapest_cost = std::min_element(all.begin(), all.end(), [](const NetworkPoint& a, const NetworkPoint& b) {
                           return a.cost < b.cost;
                         })->cost;
  std::vector<NetworkPoint> points;
  for (NetworkPoint& p : all) {
    if (p.cost <= spec.budget_dollars && p.total_gbps() <= spec.budget_total_gbps * (1 + 1e-12))
      points.push_back(std::move(p));
  }
  result.over_budget = result.networks - points.size();
  if (points.empty()) {
    std::string given;
    if (std::isfinite(spec.budget_dollars))
      given += fmt::format("dollars={:.4g}", spec.budget_dollars);
    if (std::isfinite(spec.budget_total_gbps))
      given += fmt::format("{}total-bw={:g}GB/s", given.empty() ? "" : ", ", spec.budget_total_gbps);
    throw Error(
        "", Argument{"budget"},
        fmt::format("{}: no network of {} fits: the cheapest costs ${:.4g}{}", given, t.file, result.cheapest_cost,
                    std::isfinite(spec.budget_total_gbps) ? " (or every one exceeds total-bw)" : ""));
  }
  // Cheapest first, so that the Pareto front's bar (faster than every cheaper network) is known when a network is
  // searched.
  std::stable_sort(points.begin(), points.end(),
                   [](const NetworkPoint& a, const NetworkPoint& b) { return a.cost < b.cost; });
  result.tables = std::make_shared<const DimensionTables>(machine, spec.nccl_machine, t, points, spec.threads);

  const size_t n = static_cast<size_t>(std::max(1, spec.top_n));
  std::vector<Ranked> top;
  std::vector<ParetoPoint> front_candidates;
  double fastest = kInf;  // the shortest iteration of the networks searched so far (all cheaper or as cheap)
  const double batch = static_cast<double>(spec.batch);
  const double tokens = batch * static_cast<double>(app.seq_size);
  for (const NetworkPoint& point : points) {
    // A design matters if it enters the top list or is faster than every cheaper network (the front).
    const double bar = spec.prune ? std::max(top_bar(top, n, spec, point.cost), fastest) : kInf;
    const llm::System sys = network_system(machine, t, point, result.tables.get());
    const llm::IterationModel model(app, sys);
    llm::SearchSpec s = network_search_spec(spec, static_cast<int>(n));
    s.prune = spec.prune;
    s.min_rate = std::isfinite(bar) ? batch / bar : 0.0;
    s.rank = spec.rank;
    s.ranks = spec.ranks;
    // Each rank's bar comes from what it has seen (on ranks other than 0, its own share only): a looser bar prunes
    // less, never something that matters, so rank 0's merged list is exact.
    const llm::SearchResult r = spec.execution ? evaluate_one(model, *spec.execution)
                                : spec.merge   ? spec.merge(llm::run_search(model, s), model)
                                               : llm::run_search(model, s);
    ++result.searched;
    result.evaluated += r.enumerated;
    result.pruned += r.pruned;
    if (r.top.empty())
      continue;
    const double best_time = r.top.front().stats.total_time;
    if (best_time < fastest) {
      fastest = best_time;
      front_candidates.push_back({point.cost, best_time});
    }
    for (size_t rank = 0; rank < r.top.size(); ++rank) {
      const llm::Candidate& c = r.top[rank];
      const double time_s = c.stats.total_time;
      if (spec.objective == Objective::kCost && time_s > spec.time_target_s)
        continue;
      Ranked entry{key_of(spec.objective, time_s, point.cost, point.index, rank), {}};
      if (top.size() == n && !(entry.key < top.back().key))
        break;  // the planner's list is best first: nothing after this one enters either
      entry.design =
          Design{point, c.execution, c.stats, time_s, point.cost, tokens / time_s / point.cost, entry.key.primary};
      if (spec.objective == Objective::kTokensPerDollar)
        entry.design.objective = entry.design.tokens_per_s_per_dollar;
      if (listed_already(top, entry.key, entry.design))
        continue;
      top.insert(std::upper_bound(top.begin(), top.end(), entry,
                                  [](const Ranked& a, const Ranked& b) { return a.key < b.key; }),
                 std::move(entry));
      if (top.size() > n)
        top.pop_back();
    }
  }
  result.fastest_s = fastest;
  for (const ParetoPoint& p : front_candidates) {
    if (!result.pareto.empty() && result.pareto.back().cost == p.cost)
      result.pareto.back() = p;  // as cheap and faster
    else
      result.pareto.push_back(p);
  }
  for (Ranked& r : top)
    result.top.push_back(std::move(r.design));
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace chorus::codesign
