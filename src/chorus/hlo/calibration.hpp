// Fits the HLO system's matrix, memory and vector efficiencies and its per-op overhead to measured TPU op profiles
// (validation.hpp rebuilds the ops), and scores a fit by the aggregate predicted / measured op time.
//
//   auto v = hlo::validate_profile(hlo::read_op_profile("bert.csv"), hlo::system_by_name("tpuv3"), "bert");
//   hlo::OpTimeFit fit = hlo::fit_op_times({&v});
//   double ratio = hlo::aggregate_ratio(v, fit);  // sum predicted / sum measured over the fitted ops
//   auto held_out = hlo::leave_one_profile_out({&v, &w});  // each profile scored by a fit on the others
#pragma once

#include <string>
#include <vector>

#include "chorus/hlo/system.hpp"
#include "chorus/hlo/validation.hpp"

namespace chorus::hlo {

struct OpTimeFit {
  double matrix = 1;  // efficiencies, fractions of peak
  double memory = 1;
  double vector = 1;
  double op_overhead = 0;  // s
  int ops = 0;             // ops the fit saw
  double error = 0;        // op_time_error at the fit
};

// True for the rows a fit and the aggregate use: rebuilt non-collective ops with a measured time and some work.
// Collectives are left out: the profiles' all-reduces ran inside one host, not on the network a system models.
bool fits_row(const ValidationRow& r);

// The row's time under `fit` (the roofline of analysis.cpp with these efficiencies, plus the overhead).
double fitted_time(const ValidationRow& r, const OpTimeFit& fit);

// The fit's objective: per profile, the squared relative error (predicted / measured - 1) of each fitted row's time,
// weighted by the row's share of the profile's measured time; then the mean over the profiles. The time weights let
// the ops that hold the time set the fit (the floor is on the aggregate time); a relative rather than log
// error keeps the ops no roofline explains (sorts, concatenates at 1-2% of their measured time) from pulling the
// efficiencies far off, as each can cost at most its weight; the mean gives each profile one vote.
double op_time_error(const std::vector<const ProfileValidation*>& profiles, const OpTimeFit& fit);

// Sum of predicted over sum of measured time over the profile's fitted rows.
double aggregate_ratio(const ProfileValidation& profile, const OpTimeFit& fit);

// Coordinate descent with golden-section searches (log scale for the efficiencies, in [0.001, 1]; linear for the
// overhead, in [0, the longest measured op]). A class no fitted op belongs to keeps efficiency 1. Throws
// chorus::Error when the profiles hold no fitted row.
OpTimeFit fit_op_times(const std::vector<const ProfileValidation*>& profiles);

// One profile left out of the fit: the fit on all the other profiles, and this profile's aggregate_ratio under it.
struct LeftOutProfile {
  std::string profile;  // ProfileValidation::name
  OpTimeFit fit;        // fitted on the others
  double ratio = 0;     // aggregate_ratio(profile, fit)
};

// Leave-one-profile-out: for each profile in order, fit_op_times on all the others and score this one. Empty for
// fewer than two profiles (nothing to fit on). Throws chorus::Error when the others hold no fitted row.
std::vector<LeftOutProfile> leave_one_profile_out(const std::vector<const ProfileValidation*>& profiles);

// The efficiencies and overhead `system` already has (1 for a class it does not name): the "before" of a fit.
OpTimeFit fit_of(const System& system);

// `system` with the fitted efficiencies and overhead (its network efficiency kept).
System with_fit(System system, const OpTimeFit& fit);

}  // namespace chorus::hlo
