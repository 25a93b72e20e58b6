// Continuous per-dimension bandwidths for a grid design (see refine_bandwidth.hpp).
#include "chorus/codesign/refine_bandwidth.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "chorus/llm/iteration.hpp"

namespace chorus::codesign {

double minimised_value(Objective objective, double time_s, double cost) {
  switch (objective) {
    case Objective::kTime:
      return time_s;
    case Objective::kCost:
      return cost;
    case Objective::kTimeXCost:
    case Objective::kTokensPerDollar:
      break;
  }
  return time_s * cost;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kSamples = 16;      // log-spaced samples of a 1-D interval, the current value besides
constexpr int kGoldenSteps = 14;  // narrowing around the best sample: (0.618)^14 ~ 1e-3 of the bracket
constexpr int kMaxRounds = 6;     // passes over every coordinate and pair
constexpr int kBisections = 48;   // the largest bandwidth a budget allows, to ~1e-14 of the interval
constexpr double kGolden = 0.6180339887498949;

struct Point {
  std::vector<double> bw;
  double time_s = kInf;
  double cost = kInf;
  double value = kInf;
  bool better_than(const Point& o) const { return value < o.value * (1 - 1e-12); }
};

class Refiner {
 public:
  Refiner(const llm::Application& app, const llm::System& machine, const NetworkTemplate& t, const CostFile& prices,
          const DimensionTables* tables, const CodesignSpec& spec, const Design& design)
      : app_(app), machine_(machine), t_(t), prices_(prices), tables_(tables), spec_(spec), design_(design) {
    for (const DimensionTemplate& d : t.dimensions) {
      const auto [lo, hi] = std::minmax_element(d.bandwidth_gbps.values.begin(), d.bandwidth_gbps.values.end());
      lo_.push_back(*lo);
      hi_.push_back(*hi);
    }
  }

  RefinedBandwidth run() {
    std::vector<double> start;
    for (const DimensionSetting& d : design_.network.dims)
      start.push_back(d.bandwidth_gbps);
    Point best = evaluate(start);
    const bool budgeted = std::isfinite(spec_.budget_dollars) || std::isfinite(spec_.budget_total_gbps);
    for (int round = 0; round < kMaxRounds; ++round) {
      const Point before = best;
      for (size_t i = 0; i < lo_.size(); ++i) {
        if (lo_[i] < hi_[i])
          best = search(best, i, SIZE_MAX);
      }
      for (size_t i = 0; budgeted && i < lo_.size(); ++i) {
        for (size_t j = 0; j < lo_.size(); ++j) {
          if (i != j && lo_[i] < hi_[i] && lo_[j] < hi_[j])
            best = search(best, i, j);
        }
      }
      if (!best.better_than(before))
        break;
    }
    // The start is the grid design itself; should its re-evaluation differ, the design stands.
    if (!(best.value <= minimised_value(spec_.objective, design_.time_s, design_.cost)))
      return {start, design_.time_s, design_.cost, minimised_value(spec_.objective, design_.time_s, design_.cost),
              evaluations_};
    return {best.bw, best.time_s, best.cost, best.value, evaluations_};
  }

 private:
  bool within_budget(const std::vector<double>& bw, double& cost) const {
    std::vector<DimensionSetting> dims = design_.network.dims;
    double total = 0;
    for (size_t i = 0; i < dims.size(); ++i) {
      dims[i].bandwidth_gbps = bw[i];
      total += bw[i];
    }
    cost = network_cost(dims, prices_, spec_.gpus);
    return cost <= spec_.budget_dollars && total <= spec_.budget_total_gbps * (1 + 1e-12);
  }

  Point evaluate(const std::vector<double>& bw) {
    Point p{bw};
    double cost = 0;
    if (!within_budget(bw, cost))
      return p;
    NetworkPoint network = design_.network;
    for (size_t i = 0; i < bw.size(); ++i)
      network.dims[i].bandwidth_gbps = bw[i];
    network.cost = cost;
    ++evaluations_;
    const llm::IterationModel model(app_, network_system(machine_, t_, network, tables_));
    const llm::Stats st = model.evaluate(design_.execution);
    if (st.outcome != llm::Outcome::kOk)
      return p;
    if (spec_.objective == Objective::kCost && st.total_time > spec_.time_target_s)
      return p;
    p.time_s = st.total_time;
    p.cost = cost;
    p.value = minimised_value(spec_.objective, p.time_s, cost);
    return p;
  }

  // The bandwidths with dimension i at s and, when `j` is a dimension, dimension j at the most the budget allows
  // (none: the budget is exceeded at j's smallest value).
  bool place(std::vector<double>& bw, size_t i, size_t j, double s) const {
    bw[i] = s;
    if (j == SIZE_MAX)
      return true;
    double cost = 0;
    bw[j] = hi_[j];
    if (within_budget(bw, cost))
      return true;
    double lo = lo_[j], hi = hi_[j];
    bw[j] = lo;
    if (!within_budget(bw, cost))
      return false;
    for (int k = 0; k < kBisections; ++k) {
      bw[j] = (lo + hi) / 2;
      (within_budget(bw, cost) ? lo : hi) = bw[j];
    }
    bw[j] = lo;
    return true;
  }

  Point at(const Point& from, size_t i, size_t j, double s) {
    std::vector<double> bw = from.bw;
    return place(bw, i, j, s) ? evaluate(bw) : Point{bw};
  }

  // The best of the samples of dimension i's interval, narrowed by golden sections around it; `from` unless
  // something strictly better was found.
  Point search(const Point& from, size_t i, size_t j) {
    std::vector<double> s;
    for (int k = 0; k < kSamples; ++k)
      s.push_back(lo_[i] * std::pow(hi_[i] / lo_[i], static_cast<double>(k) / (kSamples - 1)));
    s.push_back(from.bw[i]);
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    std::vector<Point> pts;
    for (const double x : s)
      pts.push_back(at(from, i, j, x));
    size_t k = 0;
    for (size_t m = 1; m < pts.size(); ++m) {
      if (pts[m].better_than(pts[k]))
        k = m;
    }
    Point best = pts[k];
    if (!std::isfinite(best.value))
      return from;
    double a = s[k > 0 ? k - 1 : 0], b = s[std::min(k + 1, s.size() - 1)];
    double c = b - kGolden * (b - a), d = a + kGolden * (b - a);
    Point pc = at(from, i, j, c), pd = at(from, i, j, d);
    for (int step = 0; step < kGoldenSteps; ++step) {
      if (pc.better_than(best))
        best = pc;
      if (pd.better_than(best))
        best = pd;
      if (pc.value <= pd.value) {
        b = d;
        d = c;
        pd = pc;
        c = b - kGolden * (b - a);
        pc = at(from, i, j, c);
      } else {
        a = c;
        c = d;
        pc = pd;
        d = a + kGolden * (b - a);
        pd = at(from, i, j, d);
      }
    }
    for (const Point& p : {pc, pd}) {
      if (p.better_than(best))
        best = p;
    }
    return best.better_than(from) ? best : from;
  }

  const llm::Application& app_;
  const llm::System& machine_;
  const NetworkTemplate& t_;
  const CostFile& prices_;
  const DimensionTables* tables_;
  const CodesignSpec& spec_;
  const Design& design_;
  std::vector<double> lo_, hi_;
  int evaluations_ = 0;
};

}  // namespace

RefinedBandwidth refine_bandwidth(const llm::Application& app, const llm::System& machine, const NetworkTemplate& t,
                                  const CostFile& prices, const DimensionTables* tables, const CodesignSpec& spec,
                                  const Design& design) {
  return Refiner(app, machine, t, prices, tables, spec, design).run();
}

}  // namespace chorus::codesign
