// Barrier method for ConvexProgram (see convex_program.hpp). Problems here have tens of variables, so dense
// linear algebra with partial pivoting is both the simplest and the fastest choice.
#include "chorus/netopt/convex_program.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "chorus/core/assert.hpp"

namespace chorus::netopt {

double LinearRow::value(const std::vector<double>& x) const {
  double v = 0;
  for (const auto& [i, a] : terms)
    v += a * x[i];
  return v;
}

namespace {

using Matrix = std::vector<double>;  // row-major, square

// Solves m * z = rhs in place (m is n x n); returns false if m is numerically singular.
bool solve_dense(Matrix m, std::vector<double>& rhs) {
  const size_t n = rhs.size();
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < n; ++r) {
      if (std::abs(m[r * n + col]) > std::abs(m[pivot * n + col]))
        pivot = r;
    }
    if (std::abs(m[pivot * n + col]) < 1e-300)
      return false;
    if (pivot != col) {
      for (size_t c = 0; c < n; ++c)
        std::swap(m[col * n + c], m[pivot * n + c]);
      std::swap(rhs[col], rhs[pivot]);
    }
    const double diag = m[col * n + col];
    for (size_t r = col + 1; r < n; ++r) {
      const double f = m[r * n + col] / diag;
      if (f == 0)
        continue;
      for (size_t c = col; c < n; ++c)
        m[r * n + c] -= f * m[col * n + c];
      rhs[r] -= f * rhs[col];
    }
  }
  for (size_t i = n; i-- > 0;) {
    double v = rhs[i];
    for (size_t c = i + 1; c < n; ++c)
      v -= m[i * n + c] * rhs[c];
    rhs[i] = v / m[i * n + i];
  }
  return true;
}

std::vector<double> dense(const LinearRow& row, size_t n) {
  std::vector<double> v(n, 0.0);
  for (const auto& [i, a] : row.terms)
    v[i] += a;
  return v;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i)
    s += a[i] * b[i];
  return s;
}

struct Orthonormal {
  std::vector<std::vector<double>> rows;
  std::vector<double> rhs;
  bool consistent = true;
};

// Modified Gram-Schmidt on the equality rows: an orthonormal basis of their span with matching right-hand
// sides. Dependent rows are dropped (LIBRA's constraint sets often repeat a total); contradictory ones make
// the system inconsistent.
Orthonormal orthonormalise(const std::vector<LinearRow>& equalities, size_t n) {
  Orthonormal out;
  for (const LinearRow& row : equalities) {
    std::vector<double> q = dense(row, n);
    double r = row.rhs;
    const double scale = std::sqrt(dot(q, q));
    for (size_t j = 0; j < out.rows.size(); ++j) {
      const double p = dot(q, out.rows[j]);
      for (size_t i = 0; i < n; ++i)
        q[i] -= p * out.rows[j][i];
      r -= p * out.rhs[j];
    }
    const double norm = std::sqrt(dot(q, q));
    if (norm <= 1e-10 * std::max(1.0, scale)) {
      if (std::abs(r) > 1e-7 * std::max(1.0, std::abs(row.rhs)))
        out.consistent = false;
      continue;
    }
    for (double& v : q)
      v /= norm;
    out.rows.push_back(std::move(q));
    out.rhs.push_back(r / norm);
  }
  return out;
}

// The barrier function phi(x) = -sum log(slack); nullopt outside its domain.
class Barrier {
 public:
  Barrier(const ConvexProgram& p) : p_(p) {}

  std::optional<double> value(const std::vector<double>& x) const {
    double v = 0;
    for (const LinearRow& row : p_.inequalities) {
      const double s = row.rhs - row.value(x);
      if (!(s > 0))
        return std::nullopt;
      v -= std::log(s);
    }
    for (const ReciprocalConstraint& c : p_.reciprocals) {
      const double s = reciprocal_slack(c, x);
      if (!(s > 0))
        return std::nullopt;
      v -= std::log(s);
    }
    return v;
  }

  // Adds t * c + grad phi to `grad` and hess phi to `hess` (n x n).
  void derivatives(const std::vector<double>& x, double t, std::vector<double>& grad, Matrix& hess) const {
    const size_t n = p_.variables;
    for (size_t i = 0; i < n; ++i)
      grad[i] = t * p_.objective[i];
    std::fill(hess.begin(), hess.end(), 0.0);
    for (const LinearRow& row : p_.inequalities) {
      const double inv = 1.0 / (row.rhs - row.value(x));
      for (const auto& [i, a] : row.terms) {
        grad[i] += a * inv;
        for (const auto& [j, b] : row.terms)
          hess[i * n + j] += a * b * inv * inv;
      }
    }
    for (const ReciprocalConstraint& c : p_.reciprocals) {
      const double s = reciprocal_slack(c, x);
      const double xd = x[c.denominator];
      const size_t e = c.epigraph, d = c.denominator;
      const double ge = 1.0, gd = c.coefficient / (xd * xd);  // gradient of the slack
      grad[e] -= ge / s;
      grad[d] -= gd / s;
      hess[e * n + e] += ge * ge / (s * s);
      hess[e * n + d] += ge * gd / (s * s);
      hess[d * n + e] += ge * gd / (s * s);
      hess[d * n + d] += gd * gd / (s * s) + 2.0 * c.coefficient / (xd * xd * xd * s);
    }
  }

  static double reciprocal_slack(const ReciprocalConstraint& c, const std::vector<double>& x) {
    const double xd = x[c.denominator];
    if (!(xd > 0))
      return -1;
    return x[c.epigraph] - c.offset - c.coefficient / xd;
  }

  size_t constraint_count() const { return p_.inequalities.size() + p_.reciprocals.size(); }

 private:
  const ConvexProgram& p_;
};

// One Newton step for t*c + phi on {Qx = const}; returns the Newton decrement squared and the multipliers.
struct NewtonStep {
  std::vector<double> dx;
  std::vector<double> w;
  double decrement2 = 0;
};

std::optional<NewtonStep> newton_step(const Barrier& barrier, const Orthonormal& eq, const std::vector<double>& x,
                                      double t) {
  const size_t n = x.size(), p = eq.rows.size(), k = n + p;
  std::vector<double> grad(n);
  Matrix hess(n * n);
  barrier.derivatives(x, t, grad, hess);
  Matrix kkt(k * k, 0.0);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j)
      kkt[i * k + j] = hess[i * n + j];
  }
  for (size_t r = 0; r < p; ++r) {
    for (size_t i = 0; i < n; ++i) {
      kkt[(n + r) * k + i] = eq.rows[r][i];
      kkt[i * k + n + r] = eq.rows[r][i];
    }
  }
  std::vector<double> rhs(k, 0.0);
  for (size_t i = 0; i < n; ++i)
    rhs[i] = -grad[i];
  if (!solve_dense(std::move(kkt), rhs))
    return std::nullopt;
  NewtonStep step;
  step.dx.assign(rhs.begin(), rhs.begin() + static_cast<std::ptrdiff_t>(n));
  step.w.assign(rhs.begin() + static_cast<std::ptrdiff_t>(n), rhs.end());
  step.decrement2 = -dot(grad, step.dx);
  return step;
}

double objective_value(const ConvexProgram& p, const std::vector<double>& x) {
  return dot(p.objective, x);
}

SolveResult run_barrier(const ConvexProgram& p, const Orthonormal& eq, std::vector<double> x,
                        const BarrierOptions& options) {
  CHORUS_ASSERT(x.size() == p.variables, "start has {} entries for {} variables", x.size(), p.variables);
  const Barrier barrier(p);
  CHORUS_ASSERT(barrier.value(x).has_value(), "barrier start is not strictly feasible");
  SolveResult result;
  const double m = static_cast<double>(std::max<size_t>(1, barrier.constraint_count()));
  double t = m / std::max(1.0, std::abs(objective_value(p, x)));
  std::vector<double> w(eq.rows.size(), 0.0);
  while (true) {
    // Centering: damped Newton with backtracking, Armijo parameter 0.25.
    // At large t rounding can keep the decrement above its tolerance; a capped centering is still a point
    // near the central path, and the next weight corrects it.
    for (size_t centering = 0; centering < 60 && result.newton_steps < options.max_newton_steps; ++centering) {
      const auto step = newton_step(barrier, eq, x, t);
      if (!step)
        break;
      ++result.newton_steps;
      w = step->w;
      // lambda^2/2 bounds the centering error of t*f; below 1e-9 rounding dominates the Armijo test.
      if (step->decrement2 / 2 <= 1e-9)
        break;
      const double f0 = t * objective_value(p, x) + *barrier.value(x);
      double eta = 1;
      std::vector<double> trial(x.size());
      bool moved = false;
      for (int tries = 0; tries < 50; ++tries, eta *= 0.5) {
        for (size_t i = 0; i < x.size(); ++i)
          trial[i] = x[i] + eta * step->dx[i];
        const auto phi = barrier.value(trial);
        if (phi && t * objective_value(p, trial) + *phi <= f0 - 0.25 * eta * step->decrement2) {
          moved = true;
          break;
        }
      }
      if (!moved)
        break;
      x = trial;
    }
    const double obj = objective_value(p, x);
    if (m / t <= options.relative_gap * std::max(1.0, std::abs(obj))) {
      result.status = SolveStatus::Optimal;
      break;
    }
    if (result.newton_steps >= options.max_newton_steps)
      break;
    t *= options.growth;
  }
  result.objective = objective_value(p, x);
  result.duality_gap = m / t;
  for (const LinearRow& row : p.inequalities)
    result.inequality_duals.push_back(1.0 / (t * (row.rhs - row.value(x))));
  for (const ReciprocalConstraint& c : p.reciprocals) {
    result.reciprocal_duals.push_back(1.0 / (t * Barrier::reciprocal_slack(c, x)));
  }
  for (double v : w)
    result.equality_duals.push_back(v / t);
  for (size_t r = 0; r < eq.rows.size(); ++r) {
    LinearRow row;
    for (size_t i = 0; i < eq.rows[r].size(); ++i) {
      if (eq.rows[r][i] != 0)
        row.terms.emplace_back(i, eq.rows[r][i]);
    }
    row.rhs = eq.rhs[r];
    result.equality_rows.push_back(std::move(row));
  }
  result.x = std::move(x);
  return result;
}

std::vector<std::string> labels_of_equalities(const ConvexProgram& p) {
  std::vector<std::string> labels;
  for (const LinearRow& row : p.equalities)
    labels.push_back(row.label);
  return labels;
}

}  // namespace

SolveResult solve(const ConvexProgram& program, std::vector<double> start, const BarrierOptions& options) {
  const Orthonormal eq = orthonormalise(program.equalities, program.variables);
  CHORUS_ASSERT(eq.consistent, "solve() called with inconsistent equalities");
  return run_barrier(program, eq, std::move(start), options);
}

SolveResult find_interior_point(const ConvexProgram& program, const BarrierOptions& options) {
  const size_t n = program.variables;
  const Orthonormal eq = orthonormalise(program.equalities, n);
  SolveResult infeasible;
  infeasible.status = SolveStatus::Infeasible;
  if (!eq.consistent) {
    infeasible.conflicting = labels_of_equalities(program);
    return infeasible;
  }
  // Least-norm solution of the equalities, then phase I: minimise s subject to (g_i x - h_i)/|g_i| <= s,
  // s >= -1 (a bounded phase I keeps its optimum finite and leaves the point well inside the feasible set).
  std::vector<double> x0(n + 1, 0.0);
  for (size_t r = 0; r < eq.rows.size(); ++r) {
    for (size_t i = 0; i < n; ++i)
      x0[i] += eq.rhs[r] * eq.rows[r][i];
  }
  ConvexProgram phase1(n + 1);
  phase1.objective[n] = 1;
  double worst = -1;
  for (const LinearRow& row : program.inequalities) {
    const double norm = std::sqrt(dot(dense(row, n), dense(row, n)));
    LinearRow scaled{{}, row.rhs / norm, row.label};
    for (const auto& [i, a] : row.terms)
      scaled.terms.emplace_back(i, a / norm);
    scaled.terms.emplace_back(n, -1.0);
    worst = std::max(worst, (row.value(x0) - row.rhs) / norm);
    phase1.inequalities.push_back(std::move(scaled));
  }
  phase1.inequalities.push_back({{{n, -1.0}}, 1.0, "phase I floor"});
  for (const LinearRow& row : program.equalities)
    phase1.equalities.push_back(row);
  x0[n] = worst + 1;
  BarrierOptions phase1_options = options;
  phase1_options.relative_gap = 1e-9;
  SolveResult r = run_barrier(phase1, orthonormalise(phase1.equalities, n + 1), x0, phase1_options);
  if (r.x[n] >= -1e-9) {
    const double largest = *std::max_element(r.inequality_duals.begin(), r.inequality_duals.end() - 1);
    for (size_t i = 0; i < program.inequalities.size(); ++i) {
      if (r.inequality_duals[i] >= 1e-3 * largest)
        infeasible.conflicting.push_back(program.inequalities[i].label);
    }
    double equality_weight = 0;
    for (double v : r.equality_duals)
      equality_weight += std::abs(v);
    if (equality_weight > 1e-6) {
      for (const std::string& label : labels_of_equalities(program))
        infeasible.conflicting.push_back(label);
    }
    return infeasible;
  }
  r.x.resize(n);
  r.status = SolveStatus::Optimal;
  return r;
}

double stationarity_residual(const ConvexProgram& p, const SolveResult& r) {
  std::vector<double> g = p.objective;
  for (size_t i = 0; i < p.inequalities.size(); ++i) {
    for (const auto& [v, a] : p.inequalities[i].terms)
      g[v] += r.inequality_duals[i] * a;
  }
  for (size_t k = 0; k < p.reciprocals.size(); ++k) {
    const ReciprocalConstraint& c = p.reciprocals[k];
    const double xd = r.x[c.denominator];
    g[c.epigraph] -= r.reciprocal_duals[k];
    g[c.denominator] -= r.reciprocal_duals[k] * c.coefficient / (xd * xd);
  }
  for (size_t j = 0; j < r.equality_rows.size(); ++j) {
    for (const auto& [v, a] : r.equality_rows[j].terms)
      g[v] += r.equality_duals[j] * a;
  }
  double scale = 1, worst = 0;
  for (double c : p.objective)
    scale = std::max(scale, std::abs(c));
  for (double v : g)
    worst = std::max(worst, std::abs(v));
  return worst / scale;
}

}  // namespace chorus::netopt
