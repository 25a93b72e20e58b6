// One test per bad input: the library throws chorus::Error naming the file and key, and `chorus netopt`
// prints one line and exits with status 2.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "chorus/core/error.hpp"
#include "chorus/netopt/budget_text.hpp"
#include "chorus/netopt/cost_model.hpp"
#include "chorus/netopt/optimizer.hpp"

namespace chorus::netopt {
namespace {

const std::filesystem::path kLibra = std::filesystem::path(CHORUS_REFERENCE_DIR) / "libra-inputs";

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "chorus_netopt_" +
                           testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + name;
  std::ofstream(path) << text;
  return path;
}

NetworkShape four_d() {
  return load_libra_network(kLibra / "network" / "4d_network.yml");
}

// Runs `chorus netopt <args>` and returns (exit status, stderr).
std::pair<int, std::string> run_cli(const std::string& args) {
  // One file per test: ctest runs the tests of this suite in parallel processes.
  const std::string err = testing::TempDir() + "chorus_netopt_stderr_" +
                          testing::UnitTest::GetInstance()->current_test_info()->name() + ".txt";
  const std::string cmd = std::string(CHORUS_BINARY) + " netopt " + args + " > /dev/null 2> " + err;
  const int status = std::system(cmd.c_str());
  std::ifstream in(err);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return {WEXITSTATUS(status), text};
}

std::string libra_args(const std::string& comm = "GPT_3_4d.yml") {
  const std::string l = kLibra.string();
  return "--network " + l + "/network/4d_network.yml --cost " + l + "/cost_model/4d_cost_model.yml --workload " + l +
         "/workload/GPT_3.txt --comm " + l + "/communicator/" + comm;
}

TEST(NetoptBadInput, CommunicatorDimensionCountMismatch) {
  try {
    load_communicator(kLibra / "communicator" / "GPT_3_3d.yml", four_d());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "Forward");
    EXPECT_NE(e.message().find("3 entries but the network has 4 dimensions"), std::string::npos);
  }
  const auto [status, err] = run_cli(libra_args("GPT_3_3d.yml") + " --budget total-bw=500GB/s");
  EXPECT_EQ(status, 2);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST(NetoptBadInput, NetworkListsOfDifferentLengths) {
  const std::string path =
      write_file("net.yml", "Topology: [Ring, Switch]\nNpusCount: [4, 8, 2]\nCostDimension: [A, B]\n");
  EXPECT_THROW(load_libra_network(path), Error);
}

TEST(NetoptBadInput, GroupDoesNotDivideDimension) {
  const std::string path =
      write_file("comm.yml", "Forward: [3, 1, -1, -1]\nInputGrad: [4, 4, -1, -1]\nWeightGrad: [-1, 2, 4, 32]\n");
  try {
    load_communicator(path, four_d());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "Forward[0]");
  }
}

TEST(NetoptBadInput, CostModelMissesANetworkDimension) {
  const std::string path = write_file("cost.yml", "InterChiplet:\n  Link: 2\n");
  EXPECT_THROW(cost_coefficients(four_d(), load_cost_model(path), path), Error);
}

TEST(NetoptBadInput, UnknownWorkloadCollective) {
  const std::string path = write_file("w.txt", "L1 -1 10 BROADCAST 100 10 NONE 0 10 NONE 0 10\n");
  try {
    load_workload(path);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "line 1: fwd_comm_type");
  }
}

TEST(NetoptBadInput, WorkloadLineWithWrongFieldCount) {
  const std::string path = write_file("w2.txt", "L1 -1 10 NONE 0 10 NONE 0 10 NONE 0 10 extra\n");
  EXPECT_THROW(load_workload(path), Error);
}

TEST(NetoptBadInput, UnknownNetworkKey) {
  const std::string path =
      write_file("net2.yml", "Topology: [Ring]\nNpusCount: [4]\nCostDimension: [A]\nBandwith: [1]\n");
  EXPECT_THROW(load_libra_network(path), Error);
}

TEST(NetoptBadInput, InfeasibleBudgetNamesTheConstraints) {
  // Each dimension needs >= 200 GB/s but the total is 500 GB/s over four dimensions.
  const auto [status, err] = run_cli(libra_args() + " --budget total-bw=500GB/s --min-bw 200GB/s");
  EXPECT_EQ(status, 2);
  EXPECT_NE(err.find("total-bw=500GB/s"), std::string::npos) << err;
  EXPECT_NE(err.find("min-bw"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST(NetoptBadInput, DollarBudgetBelowTheBandwidthFloor) {
  // 1 GB/s per dimension costs sum of the coefficients, about $276k; $1000 cannot buy it.
  const auto [status, err] = run_cli(libra_args() + " --budget dollars=1000 --min-bw 1GB/s");
  EXPECT_EQ(status, 2);
  EXPECT_NE(err.find("dollars=1000"), std::string::npos) << err;
}

TEST(NetoptBadInput, TimeTargetBelowTheFastestStep) {
  // The compute alone is 684.45 ms, so no bandwidth meets 600 ms.
  const auto [status, err] = run_cli(libra_args() + " --budget total-bw=500GB/s --objective cost --time-target 600ms");
  EXPECT_EQ(status, 2);
  EXPECT_NE(err.find("--time-target"), std::string::npos) << err;
}

TEST(NetoptBadInput, ConstraintOnAMissingDimension) {
  EXPECT_THROW(parse_constraint("B4 = 10", 4), Error);
  EXPECT_THROW(parse_constraint("B0 + = 10", 4), Error);
  Budget b;
  EXPECT_THROW(apply_budget("watts=10", b), Error);
}

TEST(NetoptCli, JsonHasTheScriptingFields) {
  const std::string out = testing::TempDir() + "chorus_netopt_out.json";
  const std::string cmd = std::string(CHORUS_BINARY) + " netopt " + libra_args() +
                          " --budget total-bw=1000GB/s --constraint B0=500 --constraint 'B0>=B1' --constraint "
                          "'B1>=B2' --constraint 'B2+B3=200' --json > " +
                          out;
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* key : {"\"bandwidth_GBps\"", "\"time_ms\"", "\"cost\"", "\"solve_s\""}) {
    EXPECT_NE(text.find(key), std::string::npos) << key;
  }
  EXPECT_NE(text.find("151.18"), std::string::npos) << text;  // netopt.md test vector
}

}  // namespace
}  // namespace chorus::netopt
