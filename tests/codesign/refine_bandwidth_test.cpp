// chorus codesign --refine-bandwidth: never worse than the grid design it starts from, within the budget and the
// template's ranges, its time what the planner gives at its bandwidths, and on a total-bandwidth budget at least as
// good as a brute-force scan of the budget line.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "chorus/codesign/refine_bandwidth.hpp"
#include "chorus/llm/iteration.hpp"
#include "chorus/llm/system_presets.hpp"

namespace chorus::codesign {
namespace {

namespace fs = std::filesystem;

std::string write_file(const std::string& name, const std::string& text) {
  const fs::path path = fs::temp_directory_path() / ("chorus_codesign_refine_" + name);
  std::ofstream(path) << text;
  return path.string();
}

// Llama 2 7B on 16 H100s (no host-memory tier), an 8-GPU NVLink domain at 100 to 450 GB/s and a scale-out fabric
// at 10 to 100 GB/s, with ring, nccl or synth; GPUs $30,000, NVLink $20 per GB/s per GPU, scale-out ports of 50 GB/s.
constexpr const char* kTemplate = R"(dimensions:
  - name: nvlink
    size: 8
    bandwidth_GBps: {values: [100, 200, 450], default: 200}
    algorithms: [ring, nccl, synth]
  - name: scale-out
    size: all
    bandwidth_GBps: {values: [10, 25, 100], default: 25}
)";
constexpr const char* kPrices = R"(gpu_dollars: 30000
dimensions:
  nvlink: {dollars_per_GBps: 20, node_gpus: 8}
  scale-out: {dollars_per_GBps: 30, port_GBps: 50, nic_port_dollars: 2000, switch_port_dollars: 500,
              cable_dollars: 1000, radix: 64}
)";

class CodesignRefine : public ::testing::Test {
 protected:
  CodesignRefine()
      : app_(llm::read_application(CHORUS_SOURCE_DIR "/examples/llm/llama2-7b.json")),
        machine_(llm::resolve_system("dgx-h100")),
        t_(load_network_template(write_file("t.yml", kTemplate))),
        prices_(load_cost_file(write_file("c.yml", kPrices), t_)) {
    machine_.mem2.capacity_bytes = 0;
  }
  CodesignSpec spec(Objective o) const {
    CodesignSpec s;
    s.gpus = 16;
    s.batch = 32;
    s.datatype = machine_.datatype_index("bfloat16");
    s.top_n = 4;
    s.threads = 2;
    s.objective = o;
    s.nccl_machine = &machine::machine("dgx-h100");
    return s;
  }
  // The planner's time for `exe` on `network` with these bandwidths, built here.
  double planner_time(const CodesignResult& r, const Design& d, const std::vector<double>& bw) const {
    NetworkPoint p = d.network;
    for (size_t i = 0; i < bw.size(); ++i)
      p.dims[i].bandwidth_gbps = bw[i];
    const llm::IterationModel model(app_, network_system(machine_, t_, p, r.tables.get()));
    const llm::Stats st = model.evaluate(d.execution);
    return st.outcome == llm::Outcome::kOk ? st.total_time : std::numeric_limits<double>::infinity();
  }
  // Every top design refined: never worse, within range and budget, its time the planner's at its bandwidths.
  void expect_never_worse(const CodesignSpec& s) const {
    const CodesignResult r = run_codesign(app_, machine_, t_, prices_, s);
    ASSERT_FALSE(r.top.empty());
    for (const Design& d : r.top) {
      const RefinedBandwidth x = refine_bandwidth(app_, machine_, t_, prices_, r.tables.get(), s, d);
      EXPECT_LE(x.objective, minimised_value(s.objective, d.time_s, d.cost));
      EXPECT_DOUBLE_EQ(x.objective, minimised_value(s.objective, x.time_s, x.cost));
      EXPECT_GE(x.bandwidth_gbps[0], 100);
      EXPECT_LE(x.bandwidth_gbps[0], 450);
      EXPECT_GE(x.bandwidth_gbps[1], 10);
      EXPECT_LE(x.bandwidth_gbps[1], 100);
      EXPECT_LE(x.cost, s.budget_dollars);
      EXPECT_LE(x.bandwidth_gbps[0] + x.bandwidth_gbps[1], s.budget_total_gbps * (1 + 1e-12));
      if (s.objective == Objective::kCost) {
        EXPECT_LE(x.time_s, s.time_target_s);
      }
      EXPECT_DOUBLE_EQ(x.time_s, planner_time(r, d, x.bandwidth_gbps));
      // The cost by hand: 16 GPUs, NVLink at $20 per GB/s, scale-out at $30 per GB/s plus, beyond the 8-GPU node, a
      // port per 50 GB/s on one level of radix-64 switches ($2,000 + $500 + $1,000).
      const double ports = std::ceil(x.bandwidth_gbps[1] / 50 - 1e-9);
      EXPECT_NEAR(x.cost, 16 * (30000 + 20 * x.bandwidth_gbps[0] + 30 * x.bandwidth_gbps[1] + ports * 3500), 1e-6);
    }
  }
  llm::Application app_;
  llm::System machine_;
  NetworkTemplate t_;
  CostFile prices_;
};

TEST_F(CodesignRefine, NeverWorseForEveryObjective) {
  expect_never_worse(spec(Objective::kTime));
  CodesignSpec budget = spec(Objective::kTime);
  budget.budget_dollars = 16 * (30000 + 20 * 200 + 30 * 25 + 3500);  // the default network's price
  expect_never_worse(budget);
  expect_never_worse(spec(Objective::kTimeXCost));
  CodesignSpec total = spec(Objective::kTime);
  total.budget_total_gbps = 250;
  expect_never_worse(total);
  const CodesignResult fastest = run_codesign(app_, machine_, t_, prices_, spec(Objective::kTime));
  CodesignSpec cost = spec(Objective::kCost);
  cost.time_target_s = fastest.top.front().time_s * 1.05;
  expect_never_worse(cost);
}

// Under total-bw = 150 GB/s with the objective time, the refined split is at least as fast as the best of 2,001
// points of the budget line B0 + B1 = 150 (B0 >= 100, so B1 within [10, 50]), each timed here, and faster than the
// grid's best (100 + 25: the grid has no scale-out value between 25 and 100).
TEST_F(CodesignRefine, TotalBandwidthSplitAtLeastTheBruteForceScan) {
  CodesignSpec s = spec(Objective::kTime);
  s.budget_total_gbps = 150;
  const CodesignResult r = run_codesign(app_, machine_, t_, prices_, s);
  ASSERT_FALSE(r.top.empty());
  const Design& d = r.top.front();
  const RefinedBandwidth x = refine_bandwidth(app_, machine_, t_, prices_, r.tables.get(), s, d);
  double scan = std::numeric_limits<double>::infinity();
  for (int k = 0; k <= 2000; ++k) {
    const double b1 = 10 + 40.0 * k / 2000;
    scan = std::min(scan, planner_time(r, d, {150 - b1, b1}));
  }
  EXPECT_LE(x.time_s, scan * (1 + 1e-4)) << x.bandwidth_gbps[0] << " + " << x.bandwidth_gbps[1];
  EXPECT_EQ(d.network.dims[1].bandwidth_gbps, 25);
  EXPECT_LT(x.time_s, d.time_s);
}

}  // namespace
}  // namespace chorus::codesign
