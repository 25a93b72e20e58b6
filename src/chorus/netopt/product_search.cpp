// Branch and bound for min c * T(c) with T convex and nonincreasing (see product_search.hpp for the proof
// of the bound it prunes with).
#include "chorus/netopt/product_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <vector>

namespace chorus::netopt {

namespace {

// An interval [a, b] of the parameter with the smallest value of the tangent bound l on it and where that
// smallest value is attained (the next point to evaluate).
struct Interval {
  FrontPoint a, b;
  double bound = 0;
  double split = 0;
};

struct LargerBound {
  bool operator()(const Interval& x, const Interval& y) const { return x.bound > y.bound; }
};

double tangent(const FrontPoint& p, double x) {
  return p.t + p.slope * (x - p.c);
}

// l(x) = x * max(L_a(x), L_b(x)): a lower bound on x * T(x) for x in [a, b] (T >= each tangent).
double product_bound(const FrontPoint& a, const FrontPoint& b, double x) {
  return x * std::max(tangent(a, x), tangent(b, x));
}

Interval make_interval(const FrontPoint& a, const FrontPoint& b) {
  Interval in{a, b, 0, 0};
  const double width = b.c - a.c;
  // l is concave on each side of the crossing of the tangents, so its minimum is at a, b or the crossing.
  std::vector<double> candidates = {a.c, b.c};
  const double slope_gap = b.slope - a.slope;  // >= 0 for a convex T, up to rounding
  if (slope_gap > 0) {
    const double cross = (b.t - a.t + a.slope * a.c - b.slope * b.c) / (a.slope - b.slope);
    if (cross > a.c && cross < b.c)
      candidates.push_back(cross);
  }
  in.bound = std::numeric_limits<double>::infinity();
  double at = a.c + width / 2;
  for (double x : candidates) {
    const double v = product_bound(a, b, x);
    if (v < in.bound) {
      in.bound = v;
      at = x;
    }
  }
  // Split where the bound is lowest (that is where a better point may hide), but not so close to an end
  // that the interval barely shrinks.
  in.split = std::clamp(at, a.c + width / 8, b.c - width / 8);
  return in;
}

}  // namespace

ProductSearchResult minimise_product(const std::function<std::optional<FrontPoint>(double)>& oracle, double c_lo,
                                     const FrontPoint& top, const ProductSearchOptions& options) {
  ProductSearchResult r;
  auto evaluate = [&](double c) -> std::optional<FrontPoint> {
    std::optional<FrontPoint> p = oracle(c);
    ++r.evaluations;
    if (!p)
      return p;
    p->slope = std::min(0.0, p->slope);  // T is nonincreasing; a positive slope is rounding
    if (p->value() < r.best.value())
      r.best = *p;
    return p;
  };
  const double c_top = top.c;
  r.best = top;
  r.best.slope = std::min(0.0, top.slope);
  const double span = c_top - c_lo;
  if (!(span > 1e-12 * std::max(1.0, std::abs(c_top)))) {
    r.lower_bound = r.best.value();
    r.converged = true;
    return r;
  }
  auto good_enough = [&](double bound) { return bound >= r.best.value() * (1 - options.relative_gap); };

  // Points descending towards c_lo, where T may blow up: on (c_lo, p.c] the value is at least c_lo * T(p.c)
  // (c >= c_lo and T nonincreasing), so stop approaching once that sliver cannot beat the best.
  std::vector<FrontPoint> chain = {r.best};
  for (double fraction = options.left_fraction; fraction >= options.smallest_fraction; fraction *= 1e-3) {
    if (good_enough(c_lo * chain.back().t))
      break;
    const std::optional<FrontPoint> p = evaluate(c_lo + fraction * span);
    if (!p)
      break;
    chain.push_back(*p);
  }
  const double sliver_bound = c_lo * chain.back().t;

  std::priority_queue<Interval, std::vector<Interval>, LargerBound> open;
  for (size_t i = 0; i + 1 < chain.size(); ++i)
    open.push(make_interval(chain[i + 1], chain[i]));
  double stuck_bound = std::numeric_limits<double>::infinity();  // intervals that could not be split
  while (!open.empty() && !good_enough(open.top().bound) && r.evaluations < options.max_evaluations) {
    const Interval in = open.top();
    open.pop();
    const std::optional<FrontPoint> p = in.b.c - in.a.c > 1e-12 * std::abs(c_top) ? evaluate(in.split) : std::nullopt;
    if (!p) {
      stuck_bound = std::min(stuck_bound, in.bound);
      continue;
    }
    open.push(make_interval(in.a, *p));
    open.push(make_interval(*p, in.b));
  }
  r.lower_bound = std::min({r.best.value(), sliver_bound, stuck_bound,
                            open.empty() ? std::numeric_limits<double>::infinity() : open.top().bound});
  r.converged = good_enough(r.lower_bound);
  return r;
}

}  // namespace chorus::netopt
