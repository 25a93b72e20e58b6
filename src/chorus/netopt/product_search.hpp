// The global minimum of g(c) = c * T(c) over c in (c_lo, c_top], where T is convex and nonincreasing: the
// outer problem of time x cost, with T(c) the best step time at cost <= c (a convex program per c).
//
// g is NOT unimodal in general: on a segment where T is linear, g is a concave quadratic, so a piecewise
// linear front such as T(1..5) = 10, 4, 3, 2.2, 1.5 gives g = 10, 8, 9, 8.8, 7.5 with two local minima.
// Golden section or a grid scan can therefore stop at the wrong one. This search is a branch and bound
// that cannot: each evaluation returns T(c) and a subgradient s <= 0, and convexity gives
//   T(x) >= T(a) + s_a (x - a)   for every x,
// so on an interval [a, b] g(x) >= x * max(L_a(x), L_b(x)) =: l(x). Each piece x * L(x) is concave (s <= 0),
// so min l over [a, b] is attained at a, b or the point where the two lines cross. Intervals whose bound is
// above the best value found are discarded; the others are split where their bound is attained. The result
// carries the smallest bound left, so best - lower_bound is a proven gap (up to the oracle's accuracy).
//
//   ProductSearchResult r = minimise_product([&](double c) { return front_point(c); }, lo, front_point(hi));
//   // r.best.c, r.best.t, r.lower_bound <= r.best.c * r.best.t
#pragma once

#include <cstddef>
#include <functional>
#include <optional>

namespace chorus::netopt {

struct FrontPoint {
  double c = 0;      // the parameter (cost bound)
  double t = 0;      // T(c)
  double slope = 0;  // a subgradient of T at c (<= 0)
  double value() const { return c * t; }
};

struct ProductSearchOptions {
  double relative_gap = 1e-9;       // stop when best - lower_bound <= relative_gap * best
  size_t max_evaluations = 500;     // then return the best found with converged = false
  double left_fraction = 1e-3;      // first point left of c_top: c_lo + left_fraction * (c_top - c_lo)
  double smallest_fraction = 1e-9;  // closest approach to c_lo (T may be unbounded there)
};

struct ProductSearchResult {
  FrontPoint best;
  double lower_bound = 0;  // no c in (c_lo, c_top] has c * T(c) below this
  size_t evaluations = 0;
  bool converged = false;
};

// `oracle(c)` returns T(c) with a subgradient, or nullopt where it cannot solve (expected only next to c_lo,
// where the feasible set may have no interior; elsewhere the interval is kept unsplit and its bound stays in
// lower_bound).
// `top` is T at the top of the range, c_top (with slope 0 when T is constant above it).
ProductSearchResult minimise_product(const std::function<std::optional<FrontPoint>(double)>& oracle, double c_lo,
                                     const FrontPoint& top, const ProductSearchOptions& options = {});

}  // namespace chorus::netopt
