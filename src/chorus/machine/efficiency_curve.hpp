// A step function from an operation's size to the fraction of peak it reaches: the form in which Calculon's system
// files, and so every chorus machine, state how a matrix unit, a vector unit or a memory tier falls short of its
// datasheet peak on small operations.
//
//   EfficiencyCurve c({{128, 0.95}, {16, 0.9}, {1, 0.6}, {0, 0.1}});   // thresholds in 1e9 FLOP
//   c.at(20.0) == 0.9
#pragma once

#include <array>
#include <utility>
#include <vector>

namespace chorus::machine {

// The first (threshold, efficiency) pair whose threshold the size reaches wins. Curves are sorted by descending
// threshold and end with a 0 threshold (parse_system checks files; presets are written so).
class EfficiencyCurve {
 public:
  static constexpr int kMaxSteps = 8;

  EfficiencyCurve() = default;
  explicit EfficiencyCurve(std::vector<std::pair<double, double>> steps);
  double at(double size) const {
    for (int i = 0; i < count_; ++i) {
      if (size >= thresholds_[i])
        return efficiencies_[i];
    }
    return efficiencies_[count_ - 1];
  }
  // The steps, descending threshold first.
  std::vector<std::pair<double, double>> steps() const;
  // The same curve with every efficiency multiplied by k and capped at 1 (a calibration's multiplier).
  EfficiencyCurve scaled(double k) const;

 private:
  std::array<double, kMaxSteps> thresholds_{};
  std::array<double, kMaxSteps> efficiencies_{};
  int count_ = 0;
};

}  // namespace chorus::machine
