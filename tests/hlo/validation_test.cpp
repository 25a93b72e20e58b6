// Tests of the cost model against XLA's TPU v3 op profiles (FLOPs = measured GFLOP/s x self time).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "chorus/hlo/validation.hpp"

namespace chorus::hlo {
namespace {

std::string data(const std::string& name) {
  return (std::filesystem::path(CHORUS_SOURCE_DIR) / "tests/data/hlo" / name).string();
}

// The floor of issue #11: FLOPs within 2% of the profiler's on at least 90% of the rebuilt non-collective ops.
TEST(HloValidation, BertProfileFlopsMatchOnNinetyPercent) {
  const auto ops = read_op_profile(data("bert_tpuv3_op_profile.csv"));
  ASSERT_EQ(ops.size(), 1863u);  // data rows of the CSV
  const ProfileValidation v = validate_profile(ops, system_by_name("tpuv3"), "bert");
  EXPECT_EQ(v.fusions, 1620);  // rows whose op is "... fusion(" (grep -c ' fusion(' minus the header: none)
  ASSERT_GT(v.flop_checked, 200);
  EXPECT_GE(v.flop_within_2pct, 0.9 * v.flop_checked);
  EXPECT_GE(v.flop_nonzero_within_2pct, 0.9 * v.flop_nonzero);
}

TEST(HloValidation, ResnetProfileFlopsMatch) {
  const ProfileValidation v =
      validate_profile(read_op_profile(data("resnet_tpuv3_op_profile.csv")), system_by_name("tpuv3"), "resnet");
  EXPECT_EQ(v.ops, 550);
  EXPECT_EQ(v.fusions, 542);
  EXPECT_GE(v.flop_within_2pct, 0.9 * v.flop_checked);
}

TEST(HloValidation, BertStandaloneConvolutionIsAMatmul) {
  // %convolution.2577: [2432,1024] x [1024,1024], 2 x 2432 x 1024 x 1024 FLOPs; the profile's 5.1e9.
  const ProfileValidation v =
      validate_profile(read_op_profile(data("bert_tpuv3_op_profile.csv")), system_by_name("tpuv3"), "bert");
  bool seen = false;
  for (const ValidationRow& r : v.rows)
    if (r.name == "convolution.2577") {
      seen = true;
      EXPECT_DOUBLE_EQ(r.predicted_flops, 2.0 * 2432 * 1024 * 1024);
      EXPECT_NEAR(r.measured_flops / r.predicted_flops, 1.0, 0.02);
      EXPECT_EQ(r.predicted_bound, "compute");
    }
  EXPECT_TRUE(seen);
}

// validation/hlo's DLRM profile, line 14 (rank 13): %convolution.372 = f32[128,857] convolution(bf16[128,1024],
// f32[857,1024]), dim_labels=bf_oi->bf: a [128,1024] x [1024,857] matmul, 2 x 128 x 1024 x 857 = 224,657,408
// FLOPs; the profile's 16,133.77 GFLOP/s x 13.9247 us = 224.66 MFLOP.
TEST(HloValidation, DlrmValidationProfileConvolutionFlopsByHand) {
  const std::string path =
      (std::filesystem::path(CHORUS_SOURCE_DIR) / "validation/hlo/hlo_after_optimizations_dlrm_32_tpuv3_stats.csv")
          .string();
  const ProfileValidation v = validate_profile(read_op_profile(path), system_by_name("tpuv3"), "dlrm");
  bool seen = false;
  for (const ValidationRow& r : v.rows)
    if (r.name == "convolution.372") {
      seen = true;
      EXPECT_EQ(r.row, 14);
      EXPECT_EQ(r.op_class, "matrix");
      EXPECT_DOUBLE_EQ(r.predicted_flops, 224657408.0);
      EXPECT_NEAR(r.measured_flops, 16133.770293271866e9 * 13.924668810593335e-6, 1.0);
      EXPECT_NEAR(r.measured_flops / r.predicted_flops, 1.0, 0.001);
    }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace chorus::hlo
