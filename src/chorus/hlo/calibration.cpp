// Efficiency and per-op overhead fit of the HLO cost model to TPU op profiles, and its leave-one-profile-out
// score (calibration.hpp).
#include "chorus/hlo/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "chorus/core/error.hpp"
#include "chorus/core/golden_section.hpp"

namespace chorus::hlo {

bool fits_row(const ValidationRow& r) {
  return !r.collective && r.measured_time_s > 0 && (r.compute_peak_s > 0 || r.memory_peak_s > 0);
}

double fitted_time(const ValidationRow& r, const OpTimeFit& fit) {
  const double compute_eff = r.op_class == "matrix" ? fit.matrix : fit.vector;
  return std::max(r.compute_peak_s / compute_eff, r.memory_peak_s / fit.memory) + fit.op_overhead;
}

double op_time_error(const std::vector<const ProfileValidation*>& profiles, const OpTimeFit& fit) {
  double sum = 0;
  int counted = 0;
  for (const ProfileValidation* p : profiles) {
    double measured = 0;
    double weighted = 0;
    for (const ValidationRow& r : p->rows)
      if (fits_row(r)) {
        const double e = fitted_time(r, fit) / r.measured_time_s - 1;
        weighted += r.measured_time_s * e * e;
        measured += r.measured_time_s;
      }
    if (measured > 0) {
      sum += weighted / measured;
      ++counted;
    }
  }
  return counted > 0 ? sum / counted : 0;
}

double aggregate_ratio(const ProfileValidation& profile, const OpTimeFit& fit) {
  double predicted = 0;
  double measured = 0;
  for (const ValidationRow& r : profile.rows)
    if (fits_row(r)) {
      predicted += fitted_time(r, fit);
      measured += r.measured_time_s;
    }
  return measured > 0 ? predicted / measured : 0;
}

OpTimeFit fit_op_times(const std::vector<const ProfileValidation*>& profiles) {
  OpTimeFit fit;
  bool has_matrix = false;
  bool has_vector = false;
  bool has_memory = false;
  double longest = 0;
  for (const ProfileValidation* p : profiles)
    for (const ValidationRow& r : p->rows)
      if (fits_row(r)) {
        ++fit.ops;
        has_matrix |= r.op_class == "matrix" && r.compute_peak_s > 0;
        has_vector |= r.op_class == "vector" && r.compute_peak_s > 0;
        has_memory |= r.memory_peak_s > 0;
        longest = std::max(longest, r.measured_time_s);
      }
  if (fit.ops == 0)
    throw Error("", "profiles", "hold no rebuilt non-collective op with a measured time; nothing to fit");
  const auto cost = [&](double OpTimeFit::*field, double value) {
    OpTimeFit trial = fit;
    trial.*field = value;
    return op_time_error(profiles, trial);
  };
  // Efficiencies on a log scale: the error is smooth in log(efficiency) and the range spans three decades.
  const auto fit_efficiency = [&](double OpTimeFit::*field) {
    const double x =
        golden_section_minimum([&](double v) { return cost(field, std::exp(v)); }, std::log(1e-3), 0.0, 60);
    fit.*field = std::exp(x);
  };
  for (int sweep = 0; sweep < 40; ++sweep) {
    const OpTimeFit before = fit;
    if (has_matrix)
      fit_efficiency(&OpTimeFit::matrix);
    if (has_vector)
      fit_efficiency(&OpTimeFit::vector);
    if (has_memory)
      fit_efficiency(&OpTimeFit::memory);
    fit.op_overhead = golden_section_minimum([&](double v) { return cost(&OpTimeFit::op_overhead, v); }, 0.0,
                                             std::min(1.0, longest), 80);
    if (std::abs(before.matrix - fit.matrix) < 1e-9 && std::abs(before.vector - fit.vector) < 1e-9 &&
        std::abs(before.memory - fit.memory) < 1e-9 && std::abs(before.op_overhead - fit.op_overhead) < 1e-15)
      break;
  }
  fit.error = op_time_error(profiles, fit);
  return fit;
}

std::vector<LeftOutProfile> leave_one_profile_out(const std::vector<const ProfileValidation*>& profiles) {
  std::vector<LeftOutProfile> out;
  if (profiles.size() < 2)
    return out;
  for (size_t i = 0; i < profiles.size(); ++i) {
    std::vector<const ProfileValidation*> others = profiles;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
    LeftOutProfile left{.profile = profiles[i]->name, .fit = fit_op_times(others)};
    left.ratio = aggregate_ratio(*profiles[i], left.fit);
    out.push_back(std::move(left));
  }
  return out;
}

OpTimeFit fit_of(const System& system) {
  OpTimeFit fit;
  fit.matrix = system.efficiency_of("matrix");
  fit.memory = system.efficiency_of("memory");
  fit.vector = system.efficiency_of("vector");
  fit.op_overhead = system.op_overhead;
  return fit;
}

System with_fit(System system, const OpTimeFit& fit) {
  system.efficiency["matrix"] = fit.matrix;
  system.efficiency["memory"] = fit.memory;
  system.efficiency["vector"] = fit.vector;
  system.op_overhead = fit.op_overhead;
  return system;
}

}  // namespace chorus::hlo
