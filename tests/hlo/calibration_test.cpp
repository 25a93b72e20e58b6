// Tests of the HLO efficiency and per-op overhead fit (calibration.hpp): a synthetic profile generated from known
// values is recovered, the aggregate ratio of a two-op profile by hand, the fit on the TPU v3 profiles, and
// leave-one-profile-out on synthetic profiles whose answer is known by construction.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "chorus/core/error.hpp"
#include "chorus/hlo/calibration.hpp"

namespace chorus::hlo {
namespace {

std::string data(const std::string& name) {
  return (std::filesystem::path(CHORUS_SOURCE_DIR) / "tests/data/hlo" / name).string();
}

ValidationRow row(const std::string& op_class, double compute_s, double memory_s) {
  ValidationRow r;
  r.op_class = op_class;
  r.compute_peak_s = compute_s;
  r.memory_peak_s = memory_s;
  return r;
}

// A profile of ops that are compute bound, memory bound and tiny (overhead bound), 1 ms down to 1 ns of work, each
// measured at its time under `truth`: it pins all four numbers.
ProfileValidation synthetic_profile(const std::string& name, const OpTimeFit& truth) {
  ProfileValidation p;
  p.name = name;
  for (int i = 0; i < 6; ++i) {
    const double scale = std::pow(10.0, i - 3);
    p.rows.push_back(row("matrix", 5e-3 * scale, 1e-3 * scale));
    p.rows.push_back(row("vector", 2e-3 * scale, 1e-3 * scale));
    p.rows.push_back(row("vector", 1e-4 * scale, 3e-3 * scale));
  }
  for (ValidationRow& r : p.rows)
    r.measured_time_s = fitted_time(r, truth);
  return p;
}

// Measured times generated from matrix 0.6, memory 0.8, vector 0.4 and 2 us per op: the fit finds all four again.
TEST(HloCalibration, RecoversTheEfficienciesAndOverheadASyntheticProfileWasMadeWith) {
  const OpTimeFit truth{.matrix = 0.6, .memory = 0.8, .vector = 0.4, .op_overhead = 2e-6};
  const ProfileValidation p = synthetic_profile("p", truth);
  const OpTimeFit fit = fit_op_times({&p});
  EXPECT_EQ(fit.ops, 18);
  EXPECT_NEAR(fit.matrix, 0.6, 0.006);
  EXPECT_NEAR(fit.memory, 0.8, 0.008);
  EXPECT_NEAR(fit.vector, 0.4, 0.004);
  EXPECT_NEAR(fit.op_overhead, 2e-6, 2e-8);
  EXPECT_LT(fit.error, 1e-6);
  EXPECT_NEAR(aggregate_ratio(p, fit), 1.0, 1e-3);
}

TEST(HloCalibration, CollectivesAndOpsWithoutWorkAreLeftOut) {
  ProfileValidation p;
  p.rows.push_back(row("vector", 1e-6, 2e-6));
  p.rows.back().measured_time_s = 4e-6;
  p.rows.push_back(row("vector", 0, 1e-3));  // an all-reduce: the profile ran it inside one host
  p.rows.back().collective = true;
  p.rows.back().measured_time_s = 1;
  p.rows.push_back(row("vector", 0, 0));  // after-all: no work to time
  p.rows.back().measured_time_s = 1;
  EXPECT_TRUE(fits_row(p.rows[0]));
  EXPECT_FALSE(fits_row(p.rows[1]));
  EXPECT_FALSE(fits_row(p.rows[2]));
  EXPECT_DOUBLE_EQ(aggregate_ratio(p, OpTimeFit{}), 0.5);  // 2 us predicted at peak over 4 us measured
  EXPECT_EQ(fit_op_times({&p}).ops, 1);
}

TEST(HloCalibration, NothingToFitThrows) {
  ProfileValidation p;
  EXPECT_THROW(fit_op_times({&p}), Error);
}

// Two f32[1024] adds (1,024 FLOPs, 12,288 bytes each) measured at 10 us and 30 us. TPU v3 core: 450 GB/s of HBM,
// so each takes 12288 / 450e9 = 27.307 ns at peak; with 1 us of overhead and memory at 50%, 1.054613 us each.
TEST(HloCalibration, AggregateOfATwoOpProfileByHand) {
  const auto path = std::filesystem::temp_directory_path() / "chorus_hlo_two_ops.csv";
  std::ofstream(path) << "Category,HLO op,Avg. self time (us),Measured GFLOP/s,Measured Memory BW (GiB/s),Bound by\n"
                      << "non-fusion elementwise,\"%add.1 = f32[1024]{0} add(f32[1024]{0} %a, f32[1024]{0} %b)\","
                      << "10,0.1024,1.144,HBM\n"
                      << "non-fusion elementwise,\"%add.2 = f32[1024]{0} add(f32[1024]{0} %c, f32[1024]{0} %d)\","
                      << "30,0.0341,0.381,HBM\n";
  System tpu = system_by_name("tpuv3");
  const ProfileValidation v = validate_profile(read_op_profile(path.string()), tpu, "two");
  std::remove(path.string().c_str());
  ASSERT_EQ(v.rows.size(), 2u);
  ASSERT_DOUBLE_EQ(tpu.memory_bandwidth, 450e9);
  EXPECT_NEAR(v.rows[0].memory_peak_s, 12288 / 450e9, 1e-18);
  EXPECT_NEAR(aggregate_ratio(v, OpTimeFit{}), 2 * 12288 / 450e9 / 40e-6, 1e-12);
  const OpTimeFit slow{.matrix = 1, .memory = 0.5, .vector = 1, .op_overhead = 1e-6};
  EXPECT_NEAR(aggregate_ratio(v, slow), 2 * (2 * 12288 / 450e9 + 1e-6) / 40e-6, 1e-12);
}

// fitted_time re-times a rebuilt op exactly as the analysis does under the same efficiencies and overhead.
TEST(HloCalibration, FittedTimeIsTheAnalysisTime) {
  System tpu = system_by_name("tpuv3");
  tpu.efficiency = {{"matrix", 0.7}, {"memory", 0.6}, {"vector", 0.3}};
  tpu.op_overhead = 1.5e-6;
  const ProfileValidation v = validate_profile(read_op_profile(data("bert_tpuv3_op_profile.csv")), tpu, "bert");
  int checked = 0;
  for (const ValidationRow& r : v.rows)
    if (fits_row(r)) {
      EXPECT_NEAR(fitted_time(r, fit_of(tpu)), r.predicted_time_s, 1e-9 * r.predicted_time_s) << r.name;
      ++checked;
    }
  EXPECT_GT(checked, 200);
}

// Profiles a and b were measured on one machine (matrix 0.6, memory 0.8, vector 0.4, 2 us per op); c is one
// memory-bound op (4 ms of bytes at peak, 0.1 ms of vector work) measured on a machine with half the memory
// efficiency, 4e-3 / 0.5 + 2e-6 = 8.002 ms. Left out, c is predicted by the fit on a and b, which is the first
// machine: 4e-3 / 0.8 + 2e-6 = 5.002 ms, a ratio of 5.002 / 8.002. a and b are the same profile, so leaving out
// either one leaves the same two profiles to fit on: the same fit (b's 18 ops and c's one) and the same ratio.
TEST(HloCalibration, LeaveOneProfileOutScoresEachProfileByAFitOnTheOthers) {
  const OpTimeFit first{.matrix = 0.6, .memory = 0.8, .vector = 0.4, .op_overhead = 2e-6};
  const ProfileValidation a = synthetic_profile("a", first);
  const ProfileValidation b = synthetic_profile("b", first);
  ProfileValidation c;
  c.name = "c";
  c.rows.push_back(row("vector", 1e-4, 4e-3));
  c.rows.back().measured_time_s = 4e-3 / 0.5 + 2e-6;
  const std::vector<LeftOutProfile> out = leave_one_profile_out({&a, &b, &c});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].profile, "a");
  EXPECT_EQ(out[1].profile, "b");
  EXPECT_EQ(out[2].profile, "c");
  EXPECT_EQ(out[2].fit.ops, 36);  // a's and b's rows, not c's
  EXPECT_NEAR(out[2].fit.memory, 0.8, 0.008);
  EXPECT_NEAR(out[2].fit.op_overhead, 2e-6, 2e-8);
  EXPECT_NEAR(out[2].ratio, 5.002 / 8.002, 0.005);
  EXPECT_DOUBLE_EQ(out[2].ratio, aggregate_ratio(c, out[2].fit));
  EXPECT_EQ(out[0].fit.ops, 19);
  EXPECT_DOUBLE_EQ(out[0].ratio, aggregate_ratio(a, out[0].fit));
  EXPECT_DOUBLE_EQ(out[0].fit.memory, out[1].fit.memory);
  EXPECT_DOUBLE_EQ(out[0].ratio, out[1].ratio);
}

TEST(HloCalibration, LeaveOneProfileOutNeedsTwoProfiles) {
  const ProfileValidation a = synthetic_profile("a", OpTimeFit{});
  EXPECT_TRUE(leave_one_profile_out({&a}).empty());
  EXPECT_TRUE(leave_one_profile_out({}).empty());
  ProfileValidation empty;  // the other holds nothing to fit
  EXPECT_THROW(leave_one_profile_out({&a, &empty}), Error);
}

// The DLRM profile of validation/hlo (google/paragraph, MLPerf v0.7, TPU v3), counted from the file by hand:
// 240 data rows; 105 hold " fusion(" (not rebuilt); 57 are category "unknown" with an empty HLO op (not an
// instruction); of the 78 left, one all-reduce (a collective) and four after-alls (no work) are not fitted: 73.
TEST(HloCalibration, DlrmValidationProfileFitsTheOpsCountedByHand) {
  const std::string path =
      (std::filesystem::path(CHORUS_SOURCE_DIR) / "validation/hlo/hlo_after_optimizations_dlrm_32_tpuv3_stats.csv")
          .string();
  const ProfileValidation v = validate_profile(read_op_profile(path), system_by_name("tpuv3"), "dlrm");
  EXPECT_EQ(v.ops, 240);
  EXPECT_EQ(v.fusions, 105);
  EXPECT_EQ(v.unparsed, 57);
  EXPECT_EQ(v.collectives, 1);
  EXPECT_EQ(std::count_if(v.rows.begin(), v.rows.end(), fits_row), 73);
  EXPECT_EQ(fit_op_times({&v}).ops, 73);
}

}  // namespace
}  // namespace chorus::hlo
