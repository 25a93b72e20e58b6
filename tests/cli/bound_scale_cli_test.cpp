// `chorus collective` past kMaxBoundNpus (issue #16): a symmetric network is still bounded (by symmetry), and a bound
// that would need a max-flow per NPU is reported as not computed, with the simulated time, instead of failing.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

nlohmann::json run_json(const std::vector<std::string>& args) {
  const testing_support::CliRun run = testing_support::run_chorus_split(args);
  EXPECT_EQ(run.status, 0) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out, nullptr, false);
  EXPECT_TRUE(j.is_object()) << run.out;
  return j.is_object() ? j : nlohmann::json::object();
}

const std::vector<std::string> kBig = {
    "collective", "--topology", "dims:switch512,switch512", "--bandwidth", "50GB/s", "--latency", "500ns", "--json"};

// 262,144 NPUs on two switch dimensions at 50 GB/s: the worst cut is all NPUs but one, fed by its two 50 GB/s
// in-links, so T_AG = T_RS = (M / N) x (N - 1) / 1e11 = 4096 x 262143 / 1e11 s = 10,737,377.28 ns for M = 1 GiB;
// All-Reduce: 21,474,754.56 ns.
TEST(BoundScaleCli, SymmetricNetworkPastTheLimitIsBounded) {
  std::vector<std::string> args = kBig;
  args.insert(args.end(), {"--collective", "all_reduce", "--size", "1GiB"});
  const nlohmann::json j = run_json(args);
  EXPECT_EQ(j.value("npus", 0), 262144);
  ASSERT_TRUE(j.contains("bound_ns") && j["bound_ns"].is_number()) << j.dump();
  EXPECT_NEAR(j["bandwidth_bound_ns"].get<double>(), 21474754.56, 1e-3);
}

TEST(BoundScaleCli, BoundNeedingMaxFlowsPerNpuIsNotComputed) {
  std::vector<std::string> args = kBig;
  args.insert(args.end(), {"--collective", "broadcast", "--size", "1MiB", "--splits", "1"});
  const nlohmann::json j = run_json(args);
  EXPECT_TRUE(j["bound_ns"].is_null()) << j.dump();
  EXPECT_TRUE(j.value("bound_note", "").starts_with("not computed (262144 NPUs")) << j.dump();
  EXPECT_GT(j.value("time_ns", 0.0), 0.0);
  // The text form says so in one line.
  args.erase(args.begin() + 7);  // --json
  const testing_support::CliRun text = testing_support::run_chorus_split(args);
  EXPECT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("bound: not computed ("), std::string::npos) << text.out;
}

}  // namespace
}  // namespace chorus
