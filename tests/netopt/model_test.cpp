// Model tests: LIBRA's per-dimension bytes and cost coefficients from their closed forms, the overlap loop,
// block factors, sweeps' enumeration and the constraint parser.
#include <gtest/gtest.h>

#include <filesystem>

#include "chorus/netopt/budget_text.hpp"
#include "chorus/netopt/cost_model.hpp"
#include "chorus/netopt/sweep.hpp"

namespace chorus::netopt {
namespace {

const std::filesystem::path kLibra = std::filesystem::path(CHORUS_REFERENCE_DIR) / "libra-inputs";

TEST(NetoptModel, DimensionBytesFollowLibraDecomposition) {
  // All-Reduce of m over [4, 2]: 2m*3/4 in dim 0, then m/4 over 2: 2 (m/4) (2-1)/2 = m/4.
  const auto ar = dimension_bytes(CollectiveKind::AllReduce, 800, {4, 2});
  EXPECT_DOUBLE_EQ(ar[0], 1200);
  EXPECT_DOUBLE_EQ(ar[1], 200);
  // All-Gather of contribution m visits the dimensions backwards: dim 1 first (m*1), then 2m*3 in dim 0.
  const auto ag = dimension_bytes(CollectiveKind::AllGather, 100, {4, 2});
  EXPECT_DOUBLE_EQ(ag[1], 100);
  EXPECT_DOUBLE_EQ(ag[0], 600);
  const auto rs = dimension_bytes(CollectiveKind::ReduceScatter, 800, {4, 2});
  EXPECT_DOUBLE_EQ(rs[0], 600);
  EXPECT_DOUBLE_EQ(rs[1], 100);
  // All-to-All keeps m in every dimension.
  const auto a2a = dimension_bytes(CollectiveKind::AllToAll, 800, {4, 2});
  EXPECT_DOUBLE_EQ(a2a[0], 600);
  EXPECT_DOUBLE_EQ(a2a[1], 400);
}

TEST(NetoptModel, FourDimensionalCostCoefficients) {
  const NetworkShape net = load_libra_network(kLibra / "network" / "4d_network.yml");
  const auto c = cost_coefficients(net, load_cost_model(kLibra / "cost_model" / "4d_cost_model.yml"), "cost");
  // N * u_d with N = 4096: Link for Ring/FC, Link + Switch + Nic for the Switch (netopt.md test vector).
  const std::vector<double> expected = {8192.04, 16384.08, 16384.12, 235110.89};
  for (size_t d = 0; d < 4; ++d)
    EXPECT_NEAR(c[d], expected[d], 0.006) << d;
  EXPECT_NEAR(c[3], 4096 * (7.80004 + 18.00004 + 31.60004), 1e-6);
}

TrainingStep two_layer_step(TrainingLoop loop) {
  // Layer a: 10 ms forward, 10 ms input grad, 10 ms weight grad, then an All-Reduce of 1e9 B over one
  // ring of 2 (s = 1e9 B, 10 ms at 100 GB/s). Layer b: 5 ms of each compute, no collectives.
  NetworkShape net{{BlockKind::Ring}, {2}, {"X"}};
  Layer a{"a", 10e6, 10e6, 10e6, 0, {}, {}, {CollectiveKind::AllReduce, 1e9}};
  Layer b{"b", 5e6, 5e6, 5e6, 0, {}, {}, {}};
  Communicator comm;
  comm.groups = {std::vector<uint32_t>{1}, std::vector<uint32_t>{1}, std::vector<uint32_t>{2}};
  ModelOptions options;
  options.loop = loop;
  return build_training_step(net, Workload{{a, b}}, comm, options);
}

TEST(NetoptModel, OverlapLoopHidesWeightGradientBehindLaterBackwardCompute) {
  // No overlap: 45 ms of compute + 10 ms. Overlap: the backward pass runs b (10 ms) then a (20 ms); a's
  // All-Reduce starts at 15 + 30 = 45 ms and is the last thing, so still 55 ms...
  EXPECT_NEAR(two_layer_step(TrainingLoop::NoOverlap).time_ms({100}), 55, 1e-9);
  EXPECT_NEAR(two_layer_step(TrainingLoop::Overlap).time_ms({100}), 55, 1e-9);
  // ...but put the collective on layer b (processed first backwards) and it hides under a's 20 ms.
  NetworkShape net{{BlockKind::Ring}, {2}, {"X"}};
  Layer a{"a", 10e6, 10e6, 10e6, 0, {}, {}, {}};
  Layer b{"b", 5e6, 5e6, 5e6, 0, {}, {}, {CollectiveKind::AllReduce, 1e9}};
  Communicator comm;
  comm.groups = {std::vector<uint32_t>{1}, std::vector<uint32_t>{1}, std::vector<uint32_t>{2}};
  ModelOptions overlap;
  overlap.loop = TrainingLoop::Overlap;
  EXPECT_NEAR(build_training_step(net, Workload{{a, b}}, comm, overlap).time_ms({100}), 45, 1e-9);
  EXPECT_NEAR(build_training_step(net, Workload{{a, b}}, comm, ModelOptions{}).time_ms({100}), 55, 1e-9);
}

TEST(NetoptModel, OverlapOptimumMatchesItsOwnModel) {
  // The overlap loop's epigraph program must reach the same time as evaluating the loop directly.
  const NetworkShape net = load_libra_network(kLibra / "network" / "4d_network.yml");
  ModelOptions options;
  options.loop = TrainingLoop::Overlap;
  const TrainingStep step =
      build_training_step(net, load_workload(kLibra / "workload" / "GPT_3.txt"),
                          load_communicator(kLibra / "communicator" / "GPT_3_4d.yml", net), options);
  Budget budget;
  budget.total_bandwidth_gbps = 500;
  const OptimizationResult r = optimize(step, {1, 1, 1, 1}, Objective::Time, budget);
  EXPECT_NEAR(r.objective, step.time_ms(r.design.bandwidth_gbps), 1e-5);
  EXPECT_LT(stationarity_residual(r.program, r.certificate), 1e-4);
}

TEST(NetoptModel, BlockFactorsAndLatency) {
  // All-Reduce of m over a full ring of 4 with B = 100 GB/s and 1 us latency: LIBRA s = 1.5 m; the ring
  // algorithm uses one B/2 link, so 2 * 1.5m / B, plus 2(k-1) = 6 steps of 1 us.
  NetworkShape net{{BlockKind::Ring, BlockKind::FullyConnected, BlockKind::Switch}, {4, 8, 2}, {"a", "b", "c"}};
  ModelOptions options;
  options.block_factors = true;
  options.latency_ns = {1000, 1000, 1000};
  const double m = 4e8;
  const auto ring = collective_terms(CollectiveKind::AllReduce, m, {4, 1, 1}, net, options);
  EXPECT_NEAR(ring.time_ms({100, 1, 1}), (2 * 1.5 * m / 100) / 1e6 + 6e-3, 1e-12);
  // FullyConnected of 8 used by a group of 4: direct sends m/4 over links of B/7: 2 (m/4) 7 / B, 2 steps.
  const auto fc = collective_terms(CollectiveKind::AllReduce, m, {1, 4, 1}, net, options);
  EXPECT_NEAR(fc.time_ms({1, 100, 1}), (2 * (m / 4) * 7 / 100) / 1e6 + 2e-3, 1e-12);
  // Switch of 2: ring, 2 messages of m/2 over B, 2 hops per message.
  const auto sw = collective_terms(CollectiveKind::AllReduce, m, {1, 1, 2}, net, options);
  EXPECT_NEAR(sw.time_ms({1, 1, 100}), (m / 100) / 1e6 + 4e-3, 1e-12);
}

TEST(NetoptSweep, EnumeratesOrderedFactorisationsTimesBlocks) {
  SweepSpec spec;
  spec.npus = 16;
  spec.dimension_counts = {2};
  spec.blocks = {BlockKind::Ring, BlockKind::Switch};
  spec.cost_dimensions = {"a", "b"};
  // 16 = 2x8, 4x4, 8x2: three factorisations, 2^2 block choices each.
  EXPECT_EQ(enumerate_shapes(spec).size(), 12u);
  NetworkShape net{{BlockKind::Ring, BlockKind::Ring, BlockKind::Ring}, {6, 4, 8}, {}};
  const auto comm = tensor_data_parallel(net, 12);
  ASSERT_TRUE(comm);
  EXPECT_EQ(comm->of(Phase::Forward), (std::vector<uint32_t>{6, 2, 1}));
  EXPECT_EQ(comm->of(Phase::WeightGrad), (std::vector<uint32_t>{1, 2, 8}));
  EXPECT_FALSE(tensor_data_parallel(net, 5));
}

TEST(NetoptBudget, ParsesLibraStyleConstraints) {
  const LinearConstraint a = parse_constraint("B2 + B3 = 200", 4);
  EXPECT_TRUE(a.equality);
  EXPECT_EQ(a.coefficients, (std::vector<double>{0, 0, 1, 1}));
  EXPECT_DOUBLE_EQ(a.rhs, 200);
  const LinearConstraint b = parse_constraint("B0 >= 2*B1 + 10", 2);  // -B0 + 2 B1 <= -10
  EXPECT_FALSE(b.equality);
  EXPECT_EQ(b.coefficients, (std::vector<double>{-1, 2}));
  EXPECT_DOUBLE_EQ(b.rhs, -10);
  Budget budget;
  apply_budget("total-bw=500GB/s", budget);
  apply_budget("dollars=2.5e6", budget);
  EXPECT_DOUBLE_EQ(*budget.total_bandwidth_gbps, 500);
  EXPECT_DOUBLE_EQ(*budget.dollars, 2.5e6);
}

}  // namespace
}  // namespace chorus::netopt
