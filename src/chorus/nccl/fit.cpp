// Least-squares fit of the NCCL scales (fit.hpp).
#include "chorus/nccl/fit.hpp"

#include <algorithm>
#include <cmath>

#include "chorus/core/golden_section.hpp"

namespace chorus::nccl {
namespace {

constexpr double kLogLimit = 1.6094379124341003;  // ln 5
constexpr double kMaxOverheadUs = 100;
constexpr int kGridPoints = 9;    // coarse scan of a coordinate's range before the golden-section search
constexpr int kGoldenSteps = 18;  // within the two grid cells around the best point
constexpr int kMaxRounds = 100;
constexpr double kConverged = 1e-9;  // relative change of the objective over one round

double squared_log_error(const std::vector<MeasuredRun>& runs, const Scales& scales) {
  double sum = 0;
  for (const MeasuredRun& run : runs) {
    for (const RowError& r : compare(run, scales)) {
      const double e = std::log(r.predicted_time_us / r.measured_time_us);
      sum += e * e;
    }
  }
  return sum;
}

// One scale with the others fixed: a multiplier in log space over [1/5, 5], the overhead in linear space over
// [0, kMaxOverheadUs]. The cost is not unimodal in a scale (a bandwidth scale moves a cap-bound algorithm only once
// it drops below the cap, and the choice switches algorithms), so a coarse scan of the range picks the basin and a
// golden-section search narrows the two grid cells around the scan's best point. The scan also lets coordinate
// descent cross a long valley (latency against overhead) in a few rounds rather than crawl along it.
void fit_one(const std::vector<MeasuredRun>& runs, Scales& scales, double Scales::*member) {
  const bool additive = member == &Scales::overhead_us;
  auto value = [&](double x) { return additive ? x : std::exp(x); };
  auto cost = [&](double x) {
    Scales s = scales;
    s.*member = value(x);
    return squared_log_error(runs, s);
  };
  const double lo = additive ? 0 : -kLogLimit;
  const double hi = additive ? kMaxOverheadUs : kLogLimit;
  const double step = (hi - lo) / (kGridPoints - 1);
  double centre = lo;
  double best_cost = cost(lo);
  for (int i = 1; i < kGridPoints; ++i) {
    const double c = cost(lo + i * step);
    if (c < best_cost) {
      best_cost = c;
      centre = lo + i * step;
    }
  }
  scales.*member =
      value(golden_section_minimum(cost, std::max(lo, centre - step), std::min(hi, centre + step), kGoldenSteps));
}

}  // namespace

Scales fit_scales(const std::vector<MeasuredRun>& runs) {
  Scales scales;
  bool several_nodes = false;
  for (const MeasuredRun& r : runs)
    several_nodes = several_nodes || r.nodes > 1;
  // The latency multiplier and the overhead both move small sizes, so coordinate descent needs several rounds.
  double previous = squared_log_error(runs, scales);
  for (int round = 0; round < kMaxRounds; ++round) {
    fit_one(runs, scales, &Scales::intra_bandwidth);
    if (several_nodes)
      fit_one(runs, scales, &Scales::inter_bandwidth);
    fit_one(runs, scales, &Scales::latency);
    fit_one(runs, scales, &Scales::overhead_us);
    const double now = squared_log_error(runs, scales);
    if (previous - now <= kConverged * previous)
      break;
    previous = now;
  }
  return scales;
}

std::vector<MeasuredRun> filter_rows(const std::vector<MeasuredRun>& runs,
                                     const std::function<bool(const MeasuredRun&, const NcclTestsRow&)>& keep) {
  std::vector<MeasuredRun> out;
  for (const MeasuredRun& run : runs) {
    MeasuredRun copy = run;
    copy.log.rows.clear();
    for (const NcclTestsRow& row : run.log.rows) {
      if (keep(run, row))
        copy.log.rows.push_back(row);
    }
    if (!copy.log.rows.empty())
      out.push_back(std::move(copy));
  }
  return out;
}

double mean_abs_error(const std::vector<MeasuredRun>& runs, const Scales& scales) {
  double sum = 0;
  int n = 0;
  for (const MeasuredRun& run : runs) {
    for (const RowError& r : compare(run, scales)) {
      sum += std::abs(r.relative());
      ++n;
    }
  }
  return n > 0 ? sum / n : 0;
}

}  // namespace chorus::nccl
