// chorus codesign --compare-netopt: the planner's iteration as netopt's step checked by hand (bytes per dimension of a
// known TP/DP layout), netopt's allocation against the closed form, and the floor (the joint optimum never slower than
// the planner at netopt's bandwidths for the default parallelism) on the small space of codesign_test.cpp.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "chorus/codesign/compare_netopt.hpp"
#include "chorus/codesign/netopt_step.hpp"
#include "chorus/llm/iteration.hpp"
#include "chorus/llm/system_presets.hpp"
#include "tests/codesign/small_space.hpp"

namespace chorus::codesign {
namespace {

namespace fs = std::filesystem;

const std::string kModel = std::string(CHORUS_SOURCE_DIR) + "/examples/llm/llama2-7b.json";

std::string write_file(const std::string& name, const std::string& text) {
  const fs::path path = fs::temp_directory_path() / ("chorus_compare_netopt_" + name);
  std::ofstream(path) << text;
  return path.string();
}

// Two dimensions: TP 2 fills an NVLink domain of 2, DP 2 runs on a 2:1 scale-out; efficiencies 0.9 and 0.8 and
// latencies, so the conversion must divide them out to recover the bytes.
constexpr const char* kTemplate = R"(name: two
dimensions:
  - name: nvlink
    size: 2
    bandwidth_GBps: {min: 100, max: 400, factor: 2, default: 200}
    efficiency: 0.9
    latency_us: 2
  - name: scale-out
    size: all
    bandwidth_GBps: {values: [25, 50, 100], default: 50}
    oversubscription: 2
    efficiency: 0.8
    latency_us: 5
)";
// NVLink inside the node: $10 per GB/s per GPU. Scale-out: a 25 GB/s port for $1,000 NIC + $500 switch port + $200
// cable; 4 GPUs on one radix-64 switch (one level), so $1,700 / 25 = $68 per GB/s per GPU.
constexpr const char* kPrices = R"(gpu_dollars: 30000
dimensions:
  nvlink: {dollars_per_GBps: 10, node_gpus: 8}
  scale-out: {port_GBps: 25, nic_port_dollars: 1000, switch_port_dollars: 500, cable_dollars: 200, radix: 64}
)";

class CodesignNetopt : public ::testing::Test {
 protected:
  void SetUp() override {
    app_ = llm::read_application(kModel);
    machine_ = llm::resolve_system("h100-80gb");
    // Ring factors on both tiers: All-Reduce 2(n-1)/n of the bytes per GPU.
    for (llm::NetworkTier& tier : machine_.networks) {
      tier.scale[static_cast<size_t>(llm::Collective::kAllReduce)] = 2;
      tier.offset[static_cast<size_t>(llm::Collective::kAllReduce)] = -1;
    }
    t_ = load_network_template(write_file("two.yml", kTemplate));
    prices_ = load_cost_file(write_file("two_cost.yml", kPrices), t_);
    exe_.num_procs = 4;
    exe_.tensor_par = 2;
    exe_.tensor_par_net = 0;
    exe_.data_par = 2;
    exe_.data_par_net = 1;
    exe_.batch_size = 4;
    exe_.microbatch_size = 1;
    exe_.datatype = machine_.datatype_index("bfloat16");
    exe_.recompute = llm::Recompute::kNone;
    exe_.tp_comm = llm::TpCommType::kAr;
  }
  llm::Application app_;
  llm::System machine_;
  NetworkTemplate t_;
  CostFile prices_;
  llm::Execution exe_;
};

// Hand bytes of llama2-7b (hidden 4096, FFN 11008, 32 heads of 128, 32 blocks, sequence 4096, bf16) at TP 2, DP 2,
// batch 4, microbatch 1: 2 microbatches per rank.
// TP: per block and microbatch 4 All-Reduces (2 forward, 2 backward) of the activation, 1 x 4096 x 4096 x 2 B =
// 33,554,432 B, factor 2(2-1)/2 = 1: 2 x 32 x 4 x 33,554,432 = 8,589,934,592 B on the NVLink dimension.
// DP: one All-Reduce of each block's gradients, factor 1. Weights per TP rank per block (a linear k x n holds
// k n + n): QKV 4096 x 6144 + 6144, output 2048 x 4096 + 4096, SwiGLU up 4096 x 11008 + 11008, down 5504 x 4096 +
// 4096, two norms of 2 x 4096: 101,229,312 elements, 202,458,624 B; 32 blocks: 6,478,675,968 B on the scale-out.
constexpr double kTpBytes = 8589934592.0;
constexpr double kDpBytes =
    32 * 2 * (4096.0 * 6144 + 6144 + 2048.0 * 4096 + 4096 + 4096.0 * 11008 + 11008 + 5504.0 * 4096 + 4096 + 4 * 4096.0);

TEST_F(CodesignNetopt, ConversionBytesPerDimensionByHand) {
  EXPECT_DOUBLE_EQ(kDpBytes, 6478675968.0);
  const NetworkPoint def = default_network(t_, prices_, 4);
  const PlannerStep p = planner_step(app_, machine_, t_, def, nullptr, exe_);
  ASSERT_EQ(p.labels.size(), 2u);
  EXPECT_EQ(p.labels[0].group, "tp");
  EXPECT_EQ(p.labels[0].dimension, 0u);
  EXPECT_NEAR(p.labels[0].wire_bytes, kTpBytes, 1e-9 * kTpBytes);
  EXPECT_EQ(p.labels[1].group, "dp");
  EXPECT_EQ(p.labels[1].dimension, 1u);
  EXPECT_NEAR(p.labels[1].wire_bytes, kDpBytes, 1e-9 * kDpBytes);
  EXPECT_EQ(p.step.loop, netopt::TrainingLoop::NoOverlap);
  // Their netopt coefficients: bytes x oversubscription / efficiency, in ms x GB/s (1e9 B / (GB/s) = 1 s).
  EXPECT_NEAR(p.step.collectives[0].dims[0].coefficient, kTpBytes / 0.9 / 1e6, 1e-9 * kTpBytes / 1e6);
  EXPECT_NEAR(p.step.collectives[1].dims[1].coefficient, kDpBytes * 2 / 0.8 / 1e6, 1e-9 * kDpBytes / 1e6);
  // Nothing overlaps, the formulas are linear in 1 / B: the step is the planner's iteration at any bandwidths.
  EXPECT_NEAR(p.step.time_ms({200, 50}), p.reference_time_s * 1e3, 1e-9 * p.reference_time_s * 1e3);
  NetworkPoint other = def;
  other.dims[0].bandwidth_gbps = 400;
  other.dims[1].bandwidth_gbps = 25;
  const double planner_s = llm::IterationModel(app_, network_system(machine_, t_, other)).evaluate(exe_).total_time;
  EXPECT_NEAR(p.step.time_ms({400, 25}), planner_s * 1e3, 1e-9 * planner_s * 1e3);
}

TEST_F(CodesignNetopt, LinearPricesByHand) {
  const LinearPrices lp = linear_prices(prices_, default_network(t_, prices_, 4), 4);
  EXPECT_DOUBLE_EQ(lp.fixed, 4 * 30000.0);
  EXPECT_DOUBLE_EQ(lp.coefficients[0], 4 * 10.0);
  EXPECT_DOUBLE_EQ(lp.coefficients[1], 4 * 1700 / 25.0);
}

// minimise k0 / B0 + k1 / B1 subject to c0 B0 + c1 B1 <= D: B_d = D sqrt(k_d / c_d) / sum_j sqrt(k_j c_j).
TEST_F(CodesignNetopt, TwoDimensionAllocationIsTheClosedForm) {
  const double k0 = kTpBytes / 0.9 / 1e6, k1 = kDpBytes * 2 / 0.8 / 1e6;  // ms x GB/s, checked above
  const double c0 = 40, c1 = 272;                                         // $ per GB/s, checked above
  // A budget that puts the scale-out at 60 GB/s (inside both ranges: NVLink then takes about 120).
  const double ratio = std::sqrt(k0 / c0) / std::sqrt(k1 / c1);
  const double dollars = 60 * (c0 * ratio + c1);
  CodesignSpec spec;
  spec.gpus = 4;
  spec.batch = 4;
  spec.datatype = exe_.datatype;
  spec.execution = exe_;
  spec.budget_dollars = 4 * 30000 + dollars;
  const NetoptComparison c = compare_netopt(app_, machine_, t_, prices_, spec, CodesignResult{});
  const double sum = std::sqrt(k0 * c0) + std::sqrt(k1 * c1);
  ASSERT_EQ(c.netopt_gbps.size(), 2u);
  EXPECT_NEAR(c.netopt_gbps[0], dollars * std::sqrt(k0 / c0) / sum, 1e-6 * c.netopt_gbps[0]);
  EXPECT_NEAR(c.netopt_gbps[1], dollars * std::sqrt(k1 / c1) / sum, 1e-6 * c.netopt_gbps[1]);
  EXPECT_NEAR(c.netopt_gbps[1], 60, 1e-6 * 60);
  // The planner's design: the scale-out at whole 25 GB/s ports (75 is over the budget, so 50), NVLink as netopt
  // chose; its price by hand.
  EXPECT_DOUBLE_EQ(c.design.network.dims[1].bandwidth_gbps, 50);
  EXPECT_DOUBLE_EQ(c.design.network.dims[0].bandwidth_gbps, c.netopt_gbps[0]);
  EXPECT_NEAR(c.design.cost, 4 * 30000 + 40 * c.netopt_gbps[0] + 4 * 2 * 1700, 1e-9 * c.design.cost);
  EXPECT_TRUE(c.within_budget || c.design.stats.outcome != llm::Outcome::kOk);
}

// The small space of codesign_test.cpp (small_space.hpp).
using testing::kSmallPrices;
using testing::kSmallTemplate;

TEST(CodesignNetoptFloor, JointOptimumNeverSlowerThanNetoptForDefaultParallelism) {
  const llm::Application app = llm::read_application(kModel);
  llm::System machine = llm::resolve_system("h100-80gb");
  machine.mem2.capacity_bytes = 0;
  const NetworkTemplate t = load_network_template(write_file("small.yml", kSmallTemplate));
  const CostFile prices = load_cost_file(write_file("small_cost.yml", kSmallPrices), t);
  // The default network (NVLink 600 GB/s x8 ring, scale-out 25 GB/s 1:1) by hand: GPUs 8 x 30,000; NVLink 8 x 600 x
  // 20 + 8 x 6 ports x (500 + 1,000); scale-out 8 x 1 port x (2,000 + 500 x 3 + 1,000 x 2) (two levels of radix 4).
  const double def_cost = 240000 + 96000 + 72000 + 44000;
  EXPECT_DOUBLE_EQ(default_network(t, prices, 8).cost, def_cost);
  int compared = 0;
  for (const double budget : {def_cost, 1.2 * def_cost, 0.9 * def_cost}) {
    CodesignSpec spec;
    spec.gpus = 8;
    spec.batch = 16;
    spec.datatype = machine.datatype_index("bfloat16");
    spec.top_n = 5;
    spec.threads = 2;
    spec.objective = Objective::kTime;
    spec.budget_dollars = budget;
    CodesignResult r = run_codesign(app, machine, t, prices, spec);
    ASSERT_FALSE(r.top.empty());
    NetoptComparison c = compare_netopt(app, machine, t, prices, spec, r);
    admit_netopt_design(r, c, spec);
    // netopt's bandwidths lie within the template's ranges; the design within the budget (its price by hand for
    // the default sizes: whole NVLink ports of 100 GB/s at $35 per GB/s, scale-out ports of 50 at $5,500).
    ASSERT_EQ(c.netopt_gbps.size(), 2u);
    EXPECT_GE(c.netopt_gbps[0], 300 * (1 - 1e-9));
    EXPECT_LE(c.netopt_gbps[0], 600 * (1 + 1e-9));
    EXPECT_GE(c.netopt_gbps[1], 25 * (1 - 1e-9));
    EXPECT_LE(c.netopt_gbps[1], 100 * (1 + 1e-9));
    const double nv = c.design.network.dims[0].bandwidth_gbps, so = c.design.network.dims[1].bandwidth_gbps;
    const double hand = 240000 + 8 * nv * 20 + 8 * std::ceil(nv / 100) * 1500 + 8 * std::ceil(so / 50) * 5500;
    EXPECT_NEAR(c.design.cost, hand, 1e-9 * hand);
    // The step netopt optimised is the planner's iteration at the default network (its DP overlapped or not).
    const PlannerStep p = planner_step(app, machine, t, default_network(t, prices, 8), r.tables.get(), c.execution);
    EXPECT_NEAR(p.step.time_ms(p.reference_gbps), p.reference_time_s * 1e3, 1e-9 * p.reference_time_s * 1e3);
    if (!c.within_budget)
      continue;
    ++compared;
    EXPECT_LE(c.design.cost, budget);
    // The planner at those bandwidths, rebuilt here, is the comparison's time; the joint optimum is never slower.
    const llm::Stats st = llm::IterationModel(app, network_system(machine, t, c.design.network)).evaluate(c.execution);
    EXPECT_DOUBLE_EQ(st.total_time, c.design.time_s);
    EXPECT_LE(r.top.front().time_s, c.design.time_s);
    EXPECT_LE(r.top.front().cost, budget);
  }
  EXPECT_GT(compared, 0);
}

}  // namespace
}  // namespace chorus::codesign
