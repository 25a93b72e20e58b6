// The network optimizer: the per-dimension bandwidth B (GB/s per NPU) that minimises a training step's time,
// time x cost, or cost under a time target, subject to bandwidth, dollar and per-dimension bounds.
//
// How each objective is solved (no commercial solver; convex_program.hpp does the work):
// - time: convex. LIBRA's max-over-dimensions time is written in epigraph form, t_k >= o_kd + k_kd / B_d for
//   each collective k and dimension d, and the loop is linear in the t_k (no-overlap: the sum; overlap: a
//   chain of maxima with one variable per streamed collective). The barrier method returns the global
//   optimum with a KKT certificate (SolveResult).
// - cost under a time target: also convex (linear objective, the time bound becomes one linear row).
// - time x cost (LIBRA's PerfPerCostOpt): not convex in B, but exactly min over c of c * T*(c) where T*(c) is
//   the best time with Cost <= c, a convex problem for each c. T* is convex, but c * T*(c) may have several
//   local minima, so a branch and bound over c with tangent lower bounds (product_search.hpp) finds the
//   global one and proves a lower bound; each point is a convex solve.
//
//   Budget budget;
//   budget.total_bandwidth_gbps = 500;
//   OptimizationResult r = optimize(step, coefficients, Objective::Time, budget);
//   // r.design.bandwidth_gbps, r.design.time_ms, r.design.cost
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "chorus/netopt/convex_program.hpp"
#include "chorus/netopt/time_model.hpp"

namespace chorus::netopt {

enum class Objective { Time, TimeTimesCost, Cost };

// sum_d coefficients[d] * B_d  (<= or ==)  rhs, e.g. LIBRA's "B_2 + B_3 = 200".
struct LinearConstraint {
  std::vector<double> coefficients;
  bool equality = false;
  double rhs = 0;
  std::string label;
};

struct Budget {
  std::optional<double> total_bandwidth_gbps;  // sum_d B_d == total (an equality, as LIBRA writes it)
  std::optional<double> dollars;               // Cost(B) <= dollars
  std::vector<double> min_gbps;                // per dimension, or empty: B_d > 0
  std::vector<double> max_gbps;                // per dimension, or empty: unbounded
  std::vector<LinearConstraint> extra;
  std::optional<double> time_target_ms;  // Objective::Cost: time_ms(B) <= target
};

struct Design {
  std::vector<double> bandwidth_gbps;
  double time_ms = 0;
  double communication_ms = 0;
  double cost = 0;
};

Design evaluate_design(const TrainingStep& step, const std::vector<double>& cost_coefficients,
                       std::vector<double> bandwidth_gbps);

struct OptimizationResult {
  Design design;
  double objective = 0;  // time_ms, time_ms * cost, or cost
  double solve_s = 0;
  size_t newton_steps = 0;
  ConvexProgram program{0};  // the last convex program solved, with its certificate
  SolveResult certificate;
  // time x cost: no design has time x cost below this (product_search.hpp proves the bound), and whether
  // the search closed the gap to its tolerance. Other objectives: objective - duality gap, true.
  double objective_lower_bound = 0;
  bool search_converged = true;
};

// Throws chorus::Error naming Argument{"budget"} when the constraints cannot all hold, and Argument{"time_target"}
// when the target is below the fastest feasible step.
OptimizationResult optimize(const TrainingStep& step, const std::vector<double>& cost_coefficients, Objective objective,
                            const Budget& budget);

// The equal split the optimum is compared with: B_d = total / D (or the equal B that spends `dollars`).
Design equal_split(const TrainingStep& step, const std::vector<double>& cost_coefficients, const Budget& budget,
                   size_t dimensions);

}  // namespace chorus::netopt
