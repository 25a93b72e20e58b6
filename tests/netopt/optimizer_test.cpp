// Optimizer tests: netopt.md's test vectors, closed forms derived here, and KKT certificates.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numeric>

#include "chorus/core/error.hpp"
#include "chorus/netopt/cost_model.hpp"
#include "chorus/netopt/optimizer.hpp"

namespace chorus::netopt {
namespace {

const std::filesystem::path kLibra = std::filesystem::path(CHORUS_REFERENCE_DIR) / "libra-inputs";

struct Case {
  NetworkShape network;
  TrainingStep step;
  std::vector<double> costs;
};

Case load_case(const std::string& net, const std::string& workload, const std::string& comm,
               const ModelOptions& options = {}) {
  Case c;
  c.network = load_libra_network(kLibra / "network" / net);
  const Communicator communicator = load_communicator(kLibra / "communicator" / comm, c.network);
  c.step = build_training_step(c.network, load_workload(kLibra / "workload" / workload), communicator, options);
  const std::string cost_file = net.substr(0, 2) + "_cost_model.yml";
  c.costs = cost_coefficients(c.network, load_cost_model(kLibra / "cost_model" / cost_file), cost_file);
  return c;
}

// LIBRA's multiple_constraints (netopt.md §1.4): sum B = 1000, B0 = 500, B0 >= B1 >= B2, B2 + B3 = 200.
Budget multiple_constraints() {
  Budget b;
  b.total_bandwidth_gbps = 1000;
  b.extra.push_back({{1, 0, 0, 0}, true, 500, "B0=500"});
  b.extra.push_back({{-1, 1, 0, 0}, false, 0, "B0>=B1"});
  b.extra.push_back({{0, -1, 1, 0}, false, 0, "B1>=B2"});
  b.extra.push_back({{0, 0, 1, 1}, true, 200, "B2+B3=200"});
  return b;
}

TEST(NetoptOptimizer, PureDataParallelAllReduceIsProportionalToBytes) {
  // One All-Reduce over [16, 8, 32]: s_d = 2m(k_d-1)/k_d / prod_{j<d} k_j, i.e. proportional to
  // [15/16, 7/(8*16), 31/(32*128)]. With sum B = 500 the optimum equalises s_d/B_d, so B_d = 500 s_d / sum s.
  const Case c = load_case("3d_network.yml", "Turing_NLG.txt", "Turing_NLG_3D.yml");
  const std::vector<double> s = {15.0 / 16, 7.0 / 128, 31.0 / 4096};
  const double sum = std::accumulate(s.begin(), s.end(), 0.0);
  Budget budget;
  budget.total_bandwidth_gbps = 500;
  const OptimizationResult r = optimize(c.step, c.costs, Objective::Time, budget);
  for (size_t d = 0; d < 3; ++d)
    EXPECT_NEAR(r.design.bandwidth_gbps[d], 500 * s[d] / sum, 1e-3) << d;
  EXPECT_NEAR(r.design.bandwidth_gbps[0], 468.86, 0.01);  // netopt.md test vector
  EXPECT_NEAR(r.design.bandwidth_gbps[1], 27.35, 0.01);
  EXPECT_NEAR(r.design.bandwidth_gbps[2], 3.785, 0.001);
}

TEST(NetoptOptimizer, FourDimensionalDefaultCase) {
  // netopt.md: [500, 300, 151.18, 48.82] GB/s and 708.44 ms. Derivation: B0, B1 are fixed by the equalities;
  // B2 balances the weight-gradient All-Reduce (m = 452984832 over groups [1,2,4,32]) between dims 2 and 3:
  // 0.75 m / B2 = (2 (m/8) 31/32) / B3 with B2 + B3 = 200, so B2 = 200 * 0.75 / (0.75 + 0.2421875).
  const Case c = load_case("4d_network.yml", "GPT_3.txt", "GPT_3_4d.yml");
  const OptimizationResult r = optimize(c.step, c.costs, Objective::Time, multiple_constraints());
  const double b2 = 200 * 0.75 / (0.75 + 0.2421875);
  EXPECT_NEAR(r.design.bandwidth_gbps[0], 500, 1e-6);
  EXPECT_NEAR(r.design.bandwidth_gbps[1], 300, 1e-6);
  EXPECT_NEAR(r.design.bandwidth_gbps[2], b2, 1e-3);
  EXPECT_NEAR(r.design.bandwidth_gbps[3], 200 - b2, 1e-3);
  EXPECT_NEAR(r.design.bandwidth_gbps[2], 151.18, 0.005);
  EXPECT_NEAR(r.design.time_ms, 708.44, 0.005);
}

TEST(NetoptOptimizer, CertificateSatisfiesKkt) {
  // Stationarity recomputed from the program data, dual feasibility, and complementary slackness within the
  // reported duality gap: together they prove the design optimal up to that gap.
  const Case c = load_case("4d_network.yml", "GPT_3.txt", "GPT_3_4d.yml");
  Budget budget;
  budget.total_bandwidth_gbps = 500;
  const OptimizationResult r = optimize(c.step, c.costs, Objective::Time, budget);
  const SolveResult& cert = r.certificate;
  EXPECT_LT(stationarity_residual(r.program, cert), 1e-4);
  EXPECT_LT(cert.duality_gap, 1e-6 * r.design.time_ms);
  double complementarity = 0;
  for (size_t i = 0; i < cert.inequality_duals.size(); ++i) {
    EXPECT_GE(cert.inequality_duals[i], 0);
    complementarity +=
        cert.inequality_duals[i] * (r.program.inequalities[i].rhs - r.program.inequalities[i].value(cert.x));
  }
  EXPECT_LT(complementarity, 1e-6 * r.design.time_ms);
  // netopt.md's matrix: 4d GPT_3 perf under sum B = 500 is [338.4, 84.6, 58.2, 18.8] GB/s, 722.41 ms.
  const std::vector<double> expected = {338.4, 84.6, 58.2, 18.8};
  for (size_t d = 0; d < 4; ++d)
    EXPECT_NEAR(r.design.bandwidth_gbps[d], expected[d], 0.06) << d;
  EXPECT_NEAR(r.design.time_ms, 722.41, 0.01);
}

TEST(NetoptOptimizer, NoFeasibleDirectionImprovesTheOptimum) {
  // First-order optimality checked without the solver's duals: moving bandwidth between any two dimensions
  // (keeping the total) never lowers the time.
  const Case c = load_case("3d_network.yml", "GPT_3.txt", "GPT_3_3d.yml");
  Budget budget;
  budget.total_bandwidth_gbps = 500;
  const OptimizationResult r = optimize(c.step, c.costs, Objective::Time, budget);
  const double best = c.step.time_ms(r.design.bandwidth_gbps);
  for (size_t from = 0; from < 3; ++from) {
    for (size_t to = 0; to < 3; ++to) {
      if (from == to)
        continue;
      std::vector<double> b = r.design.bandwidth_gbps;
      b[from] -= 0.01;
      b[to] += 0.01;
      EXPECT_GE(c.step.time_ms(b), best - 1e-9) << from << "->" << to;
    }
  }
  // netopt.md's matrix: 3d GPT_3 perf is [397.6, 90.0, 12.5] GB/s, 727.44 ms.
  EXPECT_NEAR(r.design.time_ms, 727.44, 0.01);
}

TEST(NetoptOptimizer, TimeTimesCostMatchesReference) {
  // netopt.md: PerfPerCost on the default case gives B = [500, 300, 197.05, 2.95], $12.93M, 743.33 ms.
  const Case c = load_case("4d_network.yml", "GPT_3.txt", "GPT_3_4d.yml");
  const OptimizationResult r = optimize(c.step, c.costs, Objective::TimeTimesCost, multiple_constraints());
  EXPECT_NEAR(r.design.bandwidth_gbps[2], 197.05, 0.01);
  EXPECT_NEAR(r.design.bandwidth_gbps[3], 2.95, 0.01);
  EXPECT_NEAR(r.design.cost / 1e6, 12.93, 0.005);
  EXPECT_NEAR(r.design.time_ms, 743.33, 0.01);
}

}  // namespace
}  // namespace chorus::netopt
