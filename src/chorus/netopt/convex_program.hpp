// A small convex program and its solver: a primal log-barrier interior-point method with equality-constrained
// Newton steps (Boyd & Vandenberghe, "Convex Optimization", 2004, §11.3 barrier method, §10.2 Newton with
// equality constraints, §11.4 phase I).
//
// The programs the network optimizer builds are all of one shape:
//   minimise    c^T x
//   subject to  g_i^T x <= h_i                      (linear inequalities, each with a label for messages)
//               a_j^T x  = b_j                      (linear equalities)
//               x[e_r]  >= o_r + k_r / x[d_r]       (reciprocal constraints, k_r > 0, x[d_r] > 0)
// A reciprocal constraint is the epigraph of "time = latency + bytes / bandwidth"; it is convex because 1/x is
// convex for x > 0. So every program here is convex and the barrier method finds its global optimum; the
// result carries the dual variables (a KKT certificate) so that callers and tests can check optimality.
//
//   ConvexProgram p(2);                                     // minimise t subject to t >= 1/x, x <= 4
//   p.objective = {0, 1};
//   p.inequalities.push_back({{{0, 1.0}}, 4.0, "x <= 4"});
//   p.reciprocals.push_back({1, 0, 0.0, 1.0});
//   SolveResult r = solve(p, {1.0, 2.0});                   // r.x ~ {4, 0.25}
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace chorus::netopt {

struct LinearRow {
  std::vector<std::pair<size_t, double>> terms;  // (variable, coefficient)
  double rhs = 0;
  std::string label;  // names the constraint in error messages, e.g. "total-bw=500GB/s"
  double value(const std::vector<double>& x) const;
};

struct ReciprocalConstraint {
  size_t epigraph = 0;     // e: the variable bounded below
  size_t denominator = 0;  // d: must stay > 0
  double offset = 0;       // o
  double coefficient = 0;  // k > 0
};

struct ConvexProgram {
  explicit ConvexProgram(size_t variable_count) : variables(variable_count), objective(variable_count, 0.0) {}
  size_t variables;
  std::vector<double> objective;
  std::vector<LinearRow> inequalities;  // row(x) <= rhs
  std::vector<LinearRow> equalities;    // row(x) == rhs
  std::vector<ReciprocalConstraint> reciprocals;
};

enum class SolveStatus { Optimal, Infeasible, IterationLimit };

struct BarrierOptions {
  double relative_gap = 1e-9;  // stop when (constraints / t) <= relative_gap * max(1, |objective|)
  double growth = 20;          // factor by which the barrier weight grows per outer step
  size_t max_newton_steps = 2000;
};

struct SolveResult {
  SolveStatus status = SolveStatus::IterationLimit;
  std::vector<double> x;
  double objective = 0;
  double duality_gap = 0;  // bound on objective - optimum
  // KKT certificate: c + sum inequality_duals[i] g_i + sum reciprocal_duals[r] grad(o + k/x_d - x_e)
  //                    + sum equality_duals[j] a_j = 0, all inequality and reciprocal duals >= 0.
  std::vector<double> inequality_duals;
  std::vector<double> reciprocal_duals;
  std::vector<double> equality_duals;  // for `equality_rows`, an orthonormal basis of the equalities
  std::vector<LinearRow> equality_rows;
  size_t newton_steps = 0;
  std::vector<std::string> conflicting;  // Infeasible: labels of the constraints that cannot hold together
};

// Minimises from `start`, which must satisfy every constraint strictly (equalities up to rounding).
SolveResult solve(const ConvexProgram& program, std::vector<double> start, const BarrierOptions& options = {});

// Phase I for the linear constraints alone (reciprocals are ignored): a point satisfying every inequality
// strictly and every equality, or Infeasible with the labels of a conflicting set of constraints.
SolveResult find_interior_point(const ConvexProgram& program, const BarrierOptions& options = {});

// Largest violation of the KKT stationarity condition by result's certificate, relative to max(1, |c|).
double stationarity_residual(const ConvexProgram& program, const SolveResult& result);

}  // namespace chorus::netopt
