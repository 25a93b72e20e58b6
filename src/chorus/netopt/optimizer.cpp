// Network optimizer (see optimizer.hpp): builds the convex programs and runs the one-variable search for
// time x cost.
#include "chorus/netopt/optimizer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "chorus/core/assert.hpp"
#include "chorus/core/error.hpp"
#include "chorus/netopt/cost_model.hpp"
#include "chorus/netopt/product_search.hpp"

namespace chorus::netopt {

Design evaluate_design(const TrainingStep& step, const std::vector<double>& cost_coefficients,
                       std::vector<double> bandwidth_gbps) {
  Design d;
  d.time_ms = step.time_ms(bandwidth_gbps);
  d.communication_ms = d.time_ms - step.compute_ms();
  d.cost = network_cost(cost_coefficients, bandwidth_gbps);
  d.bandwidth_gbps = std::move(bandwidth_gbps);
  return d;
}

namespace {

// Variable layout: B_0..B_{D-1}, then t_k per distinct collective, then (overlap loop) F_j per streamed
// collective and the step end E.
class ProgramBuilder {
 public:
  ProgramBuilder(const TrainingStep& step, const std::vector<double>& costs, const Budget& budget)
      : step_(step), costs_(costs), budget_(budget), dims_(costs.size()), k_(step.collectives.size()) {
    for (const LoopItem& item : step.items)
      streamed_ += item.kind == LoopItem::Kind::Stream ? 1 : 0;
    overlap_ = step.loop == TrainingLoop::Overlap;
  }

  size_t variables() const { return dims_ + k_ + (overlap_ ? streamed_ + 1 : 0); }

  // The constraints on B alone (phase I works on these).
  ConvexProgram bandwidth_program(std::optional<double> dollars) const {
    ConvexProgram p(dims_);
    add_bandwidth_rows(p, dollars);
    return p;
  }

  // minimise time (no target) or cost (with a target) over every constraint.
  ConvexProgram full_program(Objective objective, std::optional<double> dollars) const {
    ConvexProgram p(variables());
    add_bandwidth_rows(p, dollars);
    for (size_t k = 0; k < k_; ++k) {
      const CollectiveTerms& c = step_.collectives[k];
      for (size_t d = 0; d < dims_; ++d) {
        if (c.dims[d].coefficient > 0)
          p.reciprocals.push_back({dims_ + k, d, c.dims[d].latency_ms, c.dims[d].coefficient});
      }
    }
    const LinearRow time = overlap_ ? add_overlap_chain(p) : no_overlap_time();
    if (objective == Objective::Cost) {
      for (size_t d = 0; d < dims_; ++d)
        p.objective[d] = costs_[d];
      LinearRow bound = time;
      bound.rhs = *budget_.time_target_ms - step_.compute_ms() * (overlap_ ? 0 : 1);
      bound.label = fmt::format("time-target={}ms", *budget_.time_target_ms);
      p.inequalities.push_back(bound);
    } else {
      for (const auto& [v, a] : time.terms)
        p.objective[v] += a;
    }
    return p;
  }

  // A strictly feasible point of full_program from bandwidths strictly inside the B constraints: every
  // epigraph variable sits `margin` above its bound.
  std::vector<double> lift(const std::vector<double>& bandwidth, double margin) const {
    std::vector<double> x(variables(), 0.0);
    std::copy(bandwidth.begin(), bandwidth.end(), x.begin());
    std::vector<double> t(k_);
    for (size_t k = 0; k < k_; ++k)
      t[k] = x[dims_ + k] = step_.collectives[k].time_ms(bandwidth) + margin;
    if (!overlap_)
      return x;
    double compute = 0, stream = 0;
    size_t j = 0;
    for (const LoopItem& item : step_.items) {
      if (item.kind == LoopItem::Kind::Compute)
        compute += item.compute_ms;
      if (item.kind == LoopItem::Kind::Blocking)
        compute += t[item.collective];
      if (item.kind == LoopItem::Kind::Stream)
        stream = x[dims_ + k_ + j++] = std::max(stream, compute) + t[item.collective] + margin;
    }
    x[dims_ + k_ + streamed_] = std::max(stream, compute) + margin;
    return x;
  }

  // Index of the Cost <= dollars row among the inequalities (after the per-dimension bounds).
  size_t dollars_row() const { return dims_ * (budget_.max_gbps.empty() ? 1 : 2); }

  size_t epigraph_terms() const { return k_ + (overlap_ ? streamed_ + 1 : 0); }

 private:
  void add_bandwidth_rows(ConvexProgram& p, std::optional<double> dollars) const {
    for (size_t d = 0; d < dims_; ++d) {
      const double lo = budget_.min_gbps.empty() ? 0.0 : budget_.min_gbps[d];
      p.inequalities.push_back({{{d, -1.0}}, -lo, fmt::format("min-bw[{}]={}GB/s", d, lo)});
      if (!budget_.max_gbps.empty()) {
        p.inequalities.push_back(
            {{{d, 1.0}}, budget_.max_gbps[d], fmt::format("max-bw[{}]={}GB/s", d, budget_.max_gbps[d])});
      }
    }
    if (budget_.total_bandwidth_gbps) {
      LinearRow row{{}, *budget_.total_bandwidth_gbps, fmt::format("total-bw={}GB/s", *budget_.total_bandwidth_gbps)};
      for (size_t d = 0; d < dims_; ++d)
        row.terms.emplace_back(d, 1.0);
      p.equalities.push_back(std::move(row));
    }
    if (dollars) {
      LinearRow row{{}, *dollars, fmt::format("dollars={:g}", *dollars)};
      for (size_t d = 0; d < dims_; ++d)
        row.terms.emplace_back(d, costs_[d]);
      p.inequalities.push_back(std::move(row));
    }
    for (const LinearConstraint& c : budget_.extra) {
      LinearRow row{{}, c.rhs, c.label};
      for (size_t d = 0; d < dims_; ++d) {
        if (c.coefficients[d] != 0)
          row.terms.emplace_back(d, c.coefficients[d]);
      }
      (c.equality ? p.equalities : p.inequalities).push_back(std::move(row));
    }
  }

  // No-overlap: the step's communication is sum over occurrences of t_k.
  LinearRow no_overlap_time() const {
    std::map<size_t, double> count;
    for (const LoopItem& item : step_.items) {
      if (item.kind != LoopItem::Kind::Compute)
        count[dims_ + item.collective] += 1;
    }
    LinearRow row;
    for (const auto& [v, n] : count)
      row.terms.emplace_back(v, n);
    return row;
  }

  // Overlap: F_j >= F_{j-1} + t, F_j >= (compute stream so far) + t, E >= F_last, E >= compute stream end.
  LinearRow add_overlap_chain(ConvexProgram& p) const {
    double compute = 0;
    std::map<size_t, double> blocking;  // t-variable -> occurrences on the compute stream so far
    std::optional<size_t> previous;
    size_t j = 0;
    auto stream_row = [&](size_t f, size_t t) {
      LinearRow row{{}, -compute, "overlap chain"};
      for (const auto& [v, n] : blocking)
        row.terms.emplace_back(v, n);
      row.terms.emplace_back(t, 1.0);
      row.terms.emplace_back(f, -1.0);
      return row;
    };
    for (const LoopItem& item : step_.items) {
      if (item.kind == LoopItem::Kind::Compute)
        compute += item.compute_ms;
      if (item.kind == LoopItem::Kind::Blocking)
        blocking[dims_ + item.collective] += 1;
      if (item.kind != LoopItem::Kind::Stream)
        continue;
      const size_t f = dims_ + k_ + j++, t = dims_ + item.collective;
      p.inequalities.push_back(stream_row(f, t));
      if (previous)
        p.inequalities.push_back({{{*previous, 1.0}, {t, 1.0}, {f, -1.0}}, 0.0, "overlap chain"});
      previous = f;
    }
    const size_t end = dims_ + k_ + streamed_;
    LinearRow last = stream_row(end, end);  // E >= compute stream end (the t term cancels the -E below)
    last.terms.pop_back();
    last.terms.pop_back();
    last.terms.emplace_back(end, -1.0);
    p.inequalities.push_back(last);
    if (previous)
      p.inequalities.push_back({{{*previous, 1.0}, {end, -1.0}}, 0.0, "overlap chain"});
    return LinearRow{{{end, 1.0}}, 0.0, "time"};
  }

  const TrainingStep& step_;
  const std::vector<double>& costs_;
  const Budget& budget_;
  size_t dims_, k_, streamed_ = 0;
  bool overlap_ = false;
};

std::string join(const std::vector<std::string>& labels) {
  std::string s;
  for (const std::string& l : labels)
    s += (s.empty() ? "" : ", ") + l;
  return s;
}

std::vector<double> interior_bandwidths(const ProgramBuilder& builder, std::optional<double> dollars) {
  const ConvexProgram p = builder.bandwidth_program(dollars);
  const SolveResult r = find_interior_point(p);
  if (r.status != SolveStatus::Optimal) {
    throw Error("", Argument{"budget"},
                join(r.conflicting) + ": these constraints cannot all hold (no design satisfies them); relax one");
  }
  return r.x;
}

struct TimeSolve {
  SolveResult result;
  ConvexProgram program{0};
};

TimeSolve minimise_time(const ProgramBuilder& builder, std::optional<double> dollars) {
  const std::vector<double> b0 = interior_bandwidths(builder, dollars);
  TimeSolve s{{}, builder.full_program(Objective::Time, dollars)};
  s.result = solve(s.program, builder.lift(b0, 1.0));
  CHORUS_ASSERT(s.result.status == SolveStatus::Optimal, "time minimisation did not converge in {} Newton steps",
                s.result.newton_steps);
  return s;
}

// minimise_time, or nullopt when the constraints leave no interior (a cost bound at the cheapest design) or
// the solve does not converge there.
std::optional<TimeSolve> try_minimise_time(const ProgramBuilder& builder, double dollars) {
  const SolveResult interior = find_interior_point(builder.bandwidth_program(dollars));
  if (interior.status != SolveStatus::Optimal)
    return std::nullopt;
  TimeSolve s{{}, builder.full_program(Objective::Time, dollars)};
  s.result = solve(s.program, builder.lift(interior.x, 1.0));
  if (s.result.status != SolveStatus::Optimal)
    return std::nullopt;
  return s;
}

std::vector<double> bandwidths_of(const SolveResult& r, size_t dims) {
  return std::vector<double>(r.x.begin(), r.x.begin() + static_cast<std::ptrdiff_t>(dims));
}

OptimizationResult minimise_cost(const TrainingStep& step, const std::vector<double>& costs, const Budget& budget,
                                 const ProgramBuilder& builder) {
  if (!budget.time_target_ms)
    throw Error("", Argument{"time_target"}, "the cost objective needs the step time to meet");
  const size_t dims = costs.size();
  const TimeSolve fastest = minimise_time(builder, budget.dollars);
  const std::vector<double> best = bandwidths_of(fastest.result, dims);
  const double best_ms = step.time_ms(best);
  const double target = *budget.time_target_ms;
  if (best_ms >= target * (1 - 1e-9)) {
    throw Error("", Argument{"time_target"},
                fmt::format("{}ms: is below the fastest step the other constraints allow, {:.4f} ms", target, best_ms));
  }
  // Start between the fastest design and the phase-I centre: convexity of the time keeps it under target.
  const std::vector<double> centre = interior_bandwidths(builder, budget.dollars);
  const double centre_ms = step.time_ms(centre);
  const double theta = centre_ms <= best_ms ? 0.5 : std::min(0.5, (target - best_ms) / (2 * (centre_ms - best_ms)));
  std::vector<double> start(dims);
  for (size_t d = 0; d < dims; ++d)
    start[d] = (1 - theta) * best[d] + theta * centre[d];
  const double slack = target - step.time_ms(start);
  OptimizationResult out;
  out.program = builder.full_program(Objective::Cost, budget.dollars);
  out.certificate = solve(out.program, builder.lift(start, slack / (4.0 * double(builder.epigraph_terms() + 2))));
  out.newton_steps = fastest.result.newton_steps + out.certificate.newton_steps;
  out.design = evaluate_design(step, costs, bandwidths_of(out.certificate, dims));
  out.objective = out.design.cost;
  return out;
}

// Cost range the time x cost search scans: [cheapest, dearest] design satisfying the B constraints.
std::pair<double, double> cost_range(const ProgramBuilder& builder, const std::vector<double>& costs,
                                     std::optional<double> dollars) {
  const std::vector<double> b0 = interior_bandwidths(builder, dollars);
  double range[2] = {0, 0};
  for (int sign : {1, -1}) {
    ConvexProgram p = builder.bandwidth_program(dollars);
    for (size_t d = 0; d < costs.size(); ++d)
      p.objective[d] = sign * costs[d];
    const SolveResult r = solve(p, b0);
    range[sign > 0 ? 0 : 1] = network_cost(costs, r.x);
  }
  return {range[0], range[1]};
}

// time x cost = min over c of c * T*(c), T*(c) the best time at Cost <= c: for the optimal design B*,
// c = Cost(B*) gives c * T*(c) <= Cost(B*) T(B*); for any c, the design achieving T*(c) has product
// <= c * T*(c). T* is convex (the value of a convex program as its constraint's right-hand side moves) and
// nonincreasing, and the dual of the cost row is a subgradient, which is what minimise_product needs.
// Above the cost of the time optimum T* is constant, so c * T*(c) only grows there: the search runs over
// (cheapest cost, cost of the time optimum].
OptimizationResult minimise_time_times_cost(const TrainingStep& step, const std::vector<double>& costs,
                                            const Budget& budget, const ProgramBuilder& builder) {
  const auto [cheapest, dearest] = cost_range(builder, costs, budget.dollars);
  if (!(dearest < 1e300) || dearest > 1e18) {
    throw Error("", Argument{"objective"},
                "time-x-cost: needs a bounded design space: give a budget total-bw=... or dollars=...");
  }
  OptimizationResult best;
  best.objective = std::numeric_limits<double>::infinity();
  auto keep_if_better = [&](TimeSolve& s) {
    const Design d = evaluate_design(step, costs, bandwidths_of(s.result, costs.size()));
    best.newton_steps += s.result.newton_steps;
    if (d.time_ms * d.cost < best.objective) {
      best.objective = d.time_ms * d.cost;
      best.design = d;
      best.program = std::move(s.program);
      best.certificate = std::move(s.result);
    }
  };
  TimeSolve fastest = minimise_time(builder, budget.dollars);
  const SolveResult fastest_result = fastest.result;
  const double top = network_cost(costs, bandwidths_of(fastest_result, costs.size()));
  // When bandwidth may shrink to zero cost, shrinking keeps lowering time x cost: under LIBRA's model B/s
  // costs C/s and communicates s times longer, so the product C P / s + C comm falls as s grows (P the
  // compute time). There is an infimum but no minimum.
  if (cheapest <= 1e-9 * top) {
    throw Error("", Argument{"objective"},
                "time-x-cost: has no minimum when every bandwidth may go to 0 (time x cost keeps falling); give a "
                "budget total-bw=... or a minimum bandwidth (min_bw)");
  }
  keep_if_better(fastest);
  const size_t cost_row = builder.dollars_row();
  auto front_point = [&](double c) -> std::optional<FrontPoint> {
    std::optional<TimeSolve> s = try_minimise_time(builder, c);
    if (!s)
      return std::nullopt;
    CHORUS_ASSERT(s->program.inequalities[cost_row].label.rfind("dollars=", 0) == 0, "row {} is '{}', not the cost",
                  cost_row, s->program.inequalities[cost_row].label);
    const FrontPoint p{c, step.time_ms(bandwidths_of(s->result, costs.size())), -s->result.inequality_duals[cost_row]};
    keep_if_better(*s);
    return p;
  };
  // At the top T* is the fastest time and constant above it: slope 0 is a subgradient there.
  const ProductSearchResult search =
      minimise_product(front_point, cheapest, {top, step.time_ms(bandwidths_of(fastest_result, costs.size())), 0});
  best.objective_lower_bound = search.lower_bound;
  best.search_converged = search.converged;
  return best;
}

}  // namespace

OptimizationResult optimize(const TrainingStep& step, const std::vector<double>& cost_coefficients, Objective objective,
                            const Budget& budget) {
  const auto started = std::chrono::steady_clock::now();
  const ProgramBuilder builder(step, cost_coefficients, budget);
  OptimizationResult out;
  switch (objective) {
    case Objective::Time: {
      if (!budget.total_bandwidth_gbps && !budget.dollars && budget.max_gbps.empty() && budget.extra.empty()) {
        throw Error("", Argument{"budget"},
                    "minimising time needs a budget: total-bw=..., dollars=... or a maximum bandwidth (max_bw)");
      }
      TimeSolve s = minimise_time(builder, budget.dollars);
      out.newton_steps = s.result.newton_steps;
      out.design = evaluate_design(step, cost_coefficients, bandwidths_of(s.result, cost_coefficients.size()));
      out.objective = out.design.time_ms;
      out.program = std::move(s.program);
      out.certificate = std::move(s.result);
      out.objective_lower_bound = out.objective - out.certificate.duality_gap;
      break;
    }
    case Objective::Cost:
      out = minimise_cost(step, cost_coefficients, budget, builder);
      out.objective_lower_bound = out.objective - out.certificate.duality_gap;
      break;
    case Objective::TimeTimesCost:
      out = minimise_time_times_cost(step, cost_coefficients, budget, builder);
      break;
  }
  out.solve_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

Design equal_split(const TrainingStep& step, const std::vector<double>& cost_coefficients, const Budget& budget,
                   size_t dimensions) {
  double each = 0;
  if (budget.total_bandwidth_gbps) {
    each = *budget.total_bandwidth_gbps / double(dimensions);
  } else if (budget.dollars) {
    double per_unit = 0;
    for (double c : cost_coefficients)
      per_unit += c;
    each = *budget.dollars / per_unit;
  } else if (!budget.max_gbps.empty()) {
    each = *std::min_element(budget.max_gbps.begin(), budget.max_gbps.end());
  }
  return evaluate_design(step, cost_coefficients, std::vector<double>(dimensions, each));
}

}  // namespace chorus::netopt
