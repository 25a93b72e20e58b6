// The step function of efficiency_curve.hpp.
#include "chorus/machine/efficiency_curve.hpp"

#include <algorithm>

namespace chorus::machine {

EfficiencyCurve::EfficiencyCurve(std::vector<std::pair<double, double>> steps) {
  // Sorting makes the lookup independent of the file's order; Calculon's files are already descending.
  std::sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  count_ = static_cast<int>(std::min<size_t>(steps.size(), kMaxSteps));
  for (int i = 0; i < count_; ++i) {
    thresholds_[i] = steps[i].first;
    efficiencies_[i] = steps[i].second;
  }
}

std::vector<std::pair<double, double>> EfficiencyCurve::steps() const {
  std::vector<std::pair<double, double>> out;
  for (int i = 0; i < count_; ++i)
    out.emplace_back(thresholds_[i], efficiencies_[i]);
  return out;
}

EfficiencyCurve EfficiencyCurve::scaled(double k) const {
  std::vector<std::pair<double, double>> out = steps();
  for (auto& step : out)
    step.second = std::min(1.0, step.second * k);
  return EfficiencyCurve(std::move(out));
}

}  // namespace chorus::machine
