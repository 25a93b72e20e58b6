// chorus codesign: prices worked out by hand, and the search against a brute-force enumeration of every
// (parallelism, network) pair, against `llm search` on the template's default network, and against its own Pareto
// front recomputed from every network.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "chorus/codesign/cost_file.hpp"
#include "chorus/codesign/solver.hpp"
#include "chorus/llm/iteration.hpp"
#include "chorus/llm/search.hpp"
#include "chorus/llm/system_presets.hpp"
#include "tests/codesign/small_space.hpp"

namespace chorus::codesign {
namespace {

namespace fs = std::filesystem;

std::string write_file(const std::string& name, const std::string& text) {
  const fs::path path = fs::temp_directory_path() / ("chorus_codesign_" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(CodesignCost, FatTreeLevels) {
  EXPECT_EQ(fat_tree_levels(8, 64), 1);
  EXPECT_EQ(fat_tree_levels(64, 64), 1);
  EXPECT_EQ(fat_tree_levels(65, 64), 2);
  EXPECT_EQ(fat_tree_levels(2048, 64), 2);  // 64^2 / 2
  EXPECT_EQ(fat_tree_levels(2049, 64), 3);
  EXPECT_EQ(fat_tree_levels(65536, 64), 3);  // 64^3 / 4
}

TEST(CodesignCost, DimensionCostByHand) {
  DimensionPrices p;
  p.dollars_per_gbps = 10;
  p.port_gbps = 50;
  p.node_gpus = 8;
  p.nic_port_dollars = 2000;
  p.switch_port_dollars = 562.5;
  p.cable_dollars = 1280;
  p.radix = 64;
  p.switch_reduce_premium = 0.1;
  // 1,024 GPUs at 100 GB/s: 2 ports each; a fat tree over 1,024 endpoints of radix 64 has 2 levels; 2:1 above the
  // leaf: switch ports 1 + 2 x 1/2 = 2, cables 1 + 1/2 = 1.5 per GPU port.
  // 1024 x 100 x 10 + 1024 x 2 x (2000 + 562.5 x 2 + 1280 x 1.5) = 1,024,000 + 2048 x 5045 = 11,356,160
  EXPECT_DOUBLE_EQ(dimension_cost(p, 1024, 100, 1024, 2, Algorithm::kRing), 11356160.0);
  // Non-blocking, switch-reduce: 1024 x 2 x (2000 + 562.5 x 1.1 x 3 + 1280 x 2) = 2048 x 6416.25 = 13,140,480
  EXPECT_DOUBLE_EQ(dimension_cost(p, 1024, 100, 1024, 1, Algorithm::kSwitchReduce), 1024000.0 + 13140480.0);
  // A domain inside the server: the linear term only. 75 GB/s rounds up to 2 ports beyond it.
  EXPECT_DOUBLE_EQ(dimension_cost(p, 16, 450, 8, 1, Algorithm::kRing), 16 * 450 * 10.0);
  EXPECT_DOUBLE_EQ(dimension_cost(p, 16, 75, 16, 1, Algorithm::kRing), 16 * 75 * 10.0 + 16 * 2 * (2000 + 562.5 + 1280));
}

// The small space of small_space.hpp.
using testing::kSmallPrices;
using testing::kSmallTemplate;
constexpr const char* kTemplate = kSmallTemplate;
constexpr const char* kPrices = kSmallPrices;

struct Pair {
  double time_s, cost;
  llm::Execution exe;
};

bool same(const llm::Execution& x, const llm::Execution& y, const llm::System& sys) {
  return llm::execution_to_json(llm::canonical_execution(x), sys) ==
         llm::execution_to_json(llm::canonical_execution(y), sys);
}

// Every network of the small template, priced and built here from the hand formulas, each searched exhaustively.
struct BruteForce {
  std::vector<Pair> best_per_network;                  // fastest design of each network
  std::vector<std::vector<Pair>> designs_per_network;  // its five fastest
};

double hand_cost(double nv_bw, int64_t nv_size, bool reduce, double so_bw, double oversub) {
  const double gpus = 8;
  double nv = gpus * nv_bw * 20;
  if (nv_size > 4)  // beyond the 4-GPU node: bw / 100 ports, one level of radix-64 switches (8 <= 64)
    nv += gpus * (nv_bw / 100) * (500 * (reduce ? 1.5 : 1.0) + 1000);
  // 8 GPUs on radix-4 switches: 4 < 8 <= 4^2/2, two levels: switch ports 1 + 2/o, cables 1 + 1/o per GPU port.
  const double ports = so_bw == 25 ? 1 : 2;
  const double so = gpus * ports * (2000 + 500 * (1 + 2 / oversub) + 1000 * (1 + 1 / oversub));
  return gpus * 30000 + nv + so;
}

llm::System hand_system(const llm::System& machine, double nv_bw, int64_t nv_size, bool reduce, double so_bw,
                        double oversub) {
  llm::System sys = machine;
  sys.networks.resize(2);
  sys.networks[0] = machine.networks.front();
  sys.networks[1] = machine.networks.back();
  sys.networks[0].bytes_per_second = nv_bw * 1e9;
  sys.networks[0].size = nv_size;
  if (reduce) {
    sys.networks[0].scale[3] = 1;  // All-Reduce: the bytes once each way
    sys.networks[0].offset[3] = 0;
  }
  sys.networks[1].bytes_per_second = so_bw * 1e9 / oversub;
  sys.networks[1].size = 8;
  return sys;
}

BruteForce brute_force(const llm::Application& app, const llm::System& machine) {
  BruteForce bf;
  for (double nv_bw : {300.0, 600.0}) {
    for (int64_t nv_size : {4, 8}) {
      for (bool reduce : {false, true}) {
        for (double so_bw : {25.0, 100.0}) {
          for (double oversub : {1.0, 2.0}) {
            const llm::System sys = hand_system(machine, nv_bw, nv_size, reduce, so_bw, oversub);
            const llm::IterationModel model(app, sys);
            llm::SearchSpec s;
            s.num_procs = 8;
            s.max_batch = 16;
            s.datatype = sys.datatype_index("bfloat16");
            s.top_n = 5;
            s.prune = false;
            s.dims.exact_batch = true;
            const llm::SearchResult r = llm::run_search(model, s);
            const double cost = hand_cost(nv_bw, nv_size, reduce, so_bw, oversub);
            std::vector<Pair> designs;
            for (const llm::Candidate& c : r.top)
              designs.push_back({c.stats.total_time, cost, c.execution});
            bf.best_per_network.push_back(designs.empty() ? Pair{std::numeric_limits<double>::infinity(), cost, {}}
                                                          : designs.front());
            bf.designs_per_network.push_back(designs);
          }
        }
      }
    }
  }
  return bf;
}

class CodesignSmall : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    app_ = std::make_unique<llm::Application>(llm::read_application(CHORUS_SOURCE_DIR "/examples/llm/llama2-7b.json"));
    machine_ = std::make_unique<llm::System>(llm::resolve_system("h100-80gb"));
    machine_->mem2.capacity_bytes = 0;  // no offload tier: a smaller space, the same question
    bf_ = std::make_unique<BruteForce>(brute_force(*app_, *machine_));
  }
  static void TearDownTestSuite() {
    bf_.reset();
    machine_.reset();
    app_.reset();
  }
  CodesignSpec spec(Objective o) const {
    CodesignSpec s;
    s.gpus = 8;
    s.batch = 16;
    s.datatype = machine_->datatype_index("bfloat16");
    s.top_n = 5;
    s.threads = 2;
    s.objective = o;
    return s;
  }
  CodesignResult run(const CodesignSpec& s) const {
    const NetworkTemplate t = load_network_template(write_file("small.yml", kTemplate));
    const CostFile prices = load_cost_file(write_file("small_cost.yml", kPrices), t);
    return run_codesign(*app_, *machine_, t, prices, s);
  }
  // The brute force's top five (time, cost) under the objective and budget, in order.
  std::vector<Pair> expected_top(const CodesignSpec& s) const {
    std::vector<Pair> all;
    for (const std::vector<Pair>& designs : bf_->designs_per_network) {
      for (const Pair& p : designs) {
        if (p.cost <= s.budget_dollars && (s.objective != Objective::kCost || p.time_s <= s.time_target_s))
          all.push_back(p);
      }
    }
    auto key = [&](const Pair& p) {
      switch (s.objective) {
        case Objective::kTime:
          return std::pair(p.time_s, p.cost);
        case Objective::kCost:
          return std::pair(p.cost, p.time_s);
        default:
          return std::pair(p.time_s * p.cost, p.time_s);
      }
    };
    std::stable_sort(all.begin(), all.end(), [&](const Pair& a, const Pair& b) { return key(a) < key(b); });
    // The same parallelism at the same time and cost on two networks (a choice that changed nothing) is one design.
    std::vector<Pair> distinct;
    for (const Pair& p : all) {
      const bool seen = std::any_of(distinct.begin(), distinct.end(), [&](const Pair& q) {
        return q.time_s == p.time_s && q.cost == p.cost && same(q.exe, p.exe, *machine_);
      });
      if (!seen && distinct.size() < 5)
        distinct.push_back(p);
    }
    return distinct;
  }
  void expect_same_top(const CodesignSpec& s) const {
    const CodesignResult r = run(s);
    const std::vector<Pair> want = expected_top(s);
    ASSERT_EQ(r.top.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(r.top[i].time_s, want[i].time_s, 1e-12 * want[i].time_s) << "rank " << i;
      EXPECT_NEAR(r.top[i].cost, want[i].cost, 1e-9 * want[i].cost) << "rank " << i;
    }
    EXPECT_EQ(r.networks, 32u);
  }
  static std::unique_ptr<llm::Application> app_;
  static std::unique_ptr<llm::System> machine_;
  static std::unique_ptr<BruteForce> bf_;
};
std::unique_ptr<llm::Application> CodesignSmall::app_;
std::unique_ptr<llm::System> CodesignSmall::machine_;
std::unique_ptr<BruteForce> CodesignSmall::bf_;

TEST_F(CodesignSmall, TimeMatchesBruteForce) {
  CodesignSpec s = spec(Objective::kTime);
  expect_same_top(s);
  // Under a budget between the cheapest and the dearest network.
  std::vector<double> costs;
  for (const Pair& p : bf_->best_per_network)
    costs.push_back(p.cost);
  std::sort(costs.begin(), costs.end());
  s.budget_dollars = costs[costs.size() / 3];
  expect_same_top(s);
}

TEST_F(CodesignSmall, TimeTimesCostMatchesBruteForce) {
  expect_same_top(spec(Objective::kTimeXCost));
}

TEST_F(CodesignSmall, CostUnderTimeTargetMatchesBruteForce) {
  CodesignSpec s = spec(Objective::kCost);
  std::vector<double> times;
  for (const Pair& p : bf_->best_per_network)
    times.push_back(p.time_s);
  std::sort(times.begin(), times.end());
  s.time_target_s = times[times.size() / 2];  // half the networks can meet it
  expect_same_top(s);
}

TEST_F(CodesignSmall, PrunedSearchMatchesUnprunedAndCountsEveryPair) {
  CodesignSpec s = spec(Objective::kTime);
  const CodesignResult pruned = run(s);
  s.prune = false;
  const CodesignResult full = run(s);
  EXPECT_EQ(pruned.evaluated, full.evaluated);
  EXPECT_EQ(full.pruned, 0);
  EXPECT_GT(pruned.pruned, 0);
  ASSERT_EQ(pruned.top.size(), full.top.size());
  for (size_t i = 0; i < full.top.size(); ++i) {
    EXPECT_EQ(pruned.top[i].time_s, full.top[i].time_s);
    EXPECT_EQ(pruned.top[i].network.index, full.top[i].network.index);
  }
}

TEST_F(CodesignSmall, ParetoFrontMatchesBruteForce) {
  // The front from every network's fastest design: sort by cost, keep each that is faster than all cheaper ones.
  std::vector<Pair> nets = bf_->best_per_network;
  std::stable_sort(nets.begin(), nets.end(), [](const Pair& a, const Pair& b) {
    return a.cost < b.cost || (a.cost == b.cost && a.time_s < b.time_s);
  });
  std::vector<Pair> front;
  for (const Pair& p : nets) {
    if (front.empty() || p.time_s < front.back().time_s) {
      if (!front.empty() && front.back().cost == p.cost)
        front.back() = p;
      else
        front.push_back(p);
    }
  }
  const CodesignResult r = run(spec(Objective::kTime));
  ASSERT_EQ(r.pareto.size(), front.size());
  for (size_t i = 0; i < front.size(); ++i) {
    EXPECT_NEAR(r.pareto[i].cost, front[i].cost, 1e-9 * front[i].cost);
    EXPECT_NEAR(r.pareto[i].time_s, front[i].time_s, 1e-12 * front[i].time_s);
  }
}

// The joint optimum at the default network's price is never slower than `llm search` on the default network (built
// here from the h100-80gb preset: its NVLink tier at the template's default 8 GPUs and 600 GB/s, its NIC tier at
// 25 GB/s).
TEST_F(CodesignSmall, NeverWorseThanPlannerOnDefaultNetwork) {
  const NetworkTemplate t = load_network_template(write_file("small.yml", kTemplate));
  const CostFile prices = load_cost_file(write_file("small_cost.yml", kPrices), t);
  const NetworkPoint def = default_network(t, prices, 8);
  EXPECT_DOUBLE_EQ(def.cost, hand_cost(600, 8, false, 25, 1));
  llm::System sys = *machine_;
  sys.networks[0].bytes_per_second = 600e9;
  sys.networks[0].size = 8;
  sys.networks.back().bytes_per_second = 25e9;
  const llm::IterationModel model(*app_, sys);
  llm::SearchSpec s;
  s.num_procs = 8;
  s.max_batch = 16;  // a power of two on 8 GPUs: every DP divides it, as codesign requires
  s.datatype = sys.datatype_index("bfloat16");
  s.top_n = 1;
  const llm::SearchResult planner = llm::run_search(model, s);
  ASSERT_FALSE(planner.top.empty());
  CodesignSpec cs = spec(Objective::kTime);
  cs.budget_dollars = def.cost;
  const CodesignResult r = run(cs);
  ASSERT_FALSE(r.top.empty());
  EXPECT_LE(r.top.front().time_s, planner.top.front().stats.total_time * (1 + 1e-12));
  EXPECT_LE(r.top.front().cost, def.cost);
}

// The network search alone for one parallelism (the planner's best on the default network, the parallelism a user
// would pick without co-design): the best network by hand over all 32, and the joint optimum is never slower.
TEST_F(CodesignSmall, FixedParallelismMatchesHandAndJointIsNeverWorse) {
  const llm::System def = hand_system(*machine_, 600, 8, false, 25, 1);
  llm::SearchSpec s;
  s.num_procs = 8;
  s.max_batch = 16;
  s.datatype = def.datatype_index("bfloat16");
  s.top_n = 1;
  const llm::SearchResult planner = llm::run_search(llm::IterationModel(*app_, def), s);
  ASSERT_FALSE(planner.top.empty());
  const llm::Execution exe = planner.top.front().execution;
  double fastest = std::numeric_limits<double>::infinity();
  for (double nv_bw : {300.0, 600.0}) {
    for (int64_t nv_size : {4, 8}) {
      for (bool reduce : {false, true}) {
        for (double so_bw : {25.0, 100.0}) {
          for (double oversub : {1.0, 2.0}) {
            const llm::IterationModel model(*app_, hand_system(*machine_, nv_bw, nv_size, reduce, so_bw, oversub));
            const llm::Stats st = model.evaluate(exe);
            if (st.outcome == llm::Outcome::kOk)
              fastest = std::min(fastest, st.total_time);
          }
        }
      }
    }
  }
  CodesignSpec fixed = spec(Objective::kTime);
  fixed.execution = exe;
  const CodesignResult one = run(fixed);
  ASSERT_FALSE(one.top.empty());
  EXPECT_NEAR(one.top.front().time_s, fastest, 1e-12 * fastest);
  EXPECT_EQ(one.evaluated, 32);
  const CodesignResult joint = run(spec(Objective::kTime));
  EXPECT_LE(joint.top.front().time_s, one.top.front().time_s * (1 + 1e-12));
}

}  // namespace
}  // namespace chorus::codesign
