// Hostile inputs found by the reliability review (tests/data/reliability/<repro>/, copied from the repro
// folders): each must end with exit 2 and one line naming the file and the field, quickly and in bounded
// memory. Plus the limits behind those fixes: workload values, network NPU counts, sweep sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "../support/cli_runner.hpp"
#include "chorus/core/error.hpp"
#include "chorus/netopt/libra_inputs.hpp"
#include "chorus/netopt/sweep.hpp"

namespace chorus::netopt {
namespace {

using testing_support::run_chorus;

const std::filesystem::path kSource = CHORUS_SOURCE_DIR;
const std::filesystem::path kData = kSource / "tests" / "data" / "reliability";

std::string example(const std::string& name) {
  return (kSource / "examples" / "netopt" / name).string();
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "chorus_netopt_reliability_" +
                           testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + name;
  std::ofstream(path) << text;
  return path;
}

// Exit 2 and exactly one line, "error: <file>: <field>: ...", that names `file` and `field`.
void expect_one_line_error(const testing_support::CliRun& run, const std::string& file, const std::string& field) {
  EXPECT_EQ(run.status, 2) << run.out;
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 1) << run.out;
  EXPECT_EQ(run.out.rfind("error: " + file + ": " + field + ":", 0), 0u) << run.out;
}

std::vector<std::string> sweep_args(const std::string& sweep) {
  return {"netopt",
          "--cost",
          example("cost_model.yml"),
          "--workload",
          example("transformer_block.txt"),
          "--budget",
          "total-bw=500GB/s",
          "--sweep",
          sweep};
}

TEST(NetoptReliability, WorkloadHugeBytesIsAnInputError) {
  // 13-netopt-workload-huge-bytes-internal-assertion: 1e300 bytes reached the solver, which failed an
  // internal assertion (exit 3).
  const std::string work = (kData / "13-netopt-workload-huge-bytes-internal-assertion" / "work.txt").string();
  const auto run = run_chorus({"netopt", "--network", example("network_3d.yml"), "--cost", example("cost_model.yml"),
                               "--workload", work, "--comm", example("comm_3d.yml"), "--budget", "total-bw=500GB/s"},
                              true);
  expect_one_line_error(run, work, "line 1: fwd_comm_bytes");
  EXPECT_NE(run.out.find("2^53"), std::string::npos) << run.out;
}

TEST(NetoptReliability, SweepWithTwentyDimensionsIsRefused) {
  // 16-netopt-sweep-many-dimensions-oom: 3^20 block choices of a 20-dimensional shape exhausted memory.
  const std::string sweep = (kData / "16-netopt-sweep-many-dimensions-oom" / "sweep.yml").string();
  const auto run = run_chorus(sweep_args(sweep), true);
  expect_one_line_error(run, sweep, "dimensions[0]");
  EXPECT_NE(run.out.find("--sweep-max-dims"), std::string::npos) << run.out;
  // Raising the dimension limit leaves the shape limit: 3^20 choices are still refused, by count.
  std::vector<std::string> raised = sweep_args(sweep);
  raised.insert(raised.end(), {"--sweep-max-dims", "20"});
  const auto second = run_chorus(raised, true);
  expect_one_line_error(second, sweep, "dimensions[0]");
  EXPECT_NE(second.out.find("--sweep-max-shapes"), std::string::npos) << second.out;
}

TEST(NetoptReliability, SweepOfAHighlyCompositeNpuCountIsRefused) {
  // 29-netopt-sweep-composite-npus-hang: 735134400 NPUs over [2, 3, 4] dimensions ran > 60 s and 6.7 GB.
  const std::string sweep = (kData / "29-netopt-sweep-composite-npus-hang" / "sweep.yml").string();
  const auto run = run_chorus(sweep_args(sweep), true);
  expect_one_line_error(run, sweep, "npus");
  EXPECT_NE(run.out.find("--sweep-max-npus"), std::string::npos) << run.out;
  // With the NPU limit raised, enumeration stops at the shape limit instead of running away: the
  // 1342 two-dimensional factorisations (1344 divisors) times 9 fit, the three-dimensional ones do not.
  std::vector<std::string> raised = sweep_args(sweep);
  raised.insert(raised.end(), {"--sweep-max-npus", "1000000000"});
  const auto second = run_chorus(raised, true);
  expect_one_line_error(second, sweep, "dimensions[1]");
  EXPECT_NE(second.out.find("--sweep-max-shapes"), std::string::npos) << second.out;
}

TEST(NetoptReliability, SweepCostDimensionMustBeAName) {
  const std::string path = write_file("shapes.yml", "npus: 16\ndimensions: [2]\ncost_dimensions: [a, {b: 1}]\n");
  try {
    load_sweep_spec(path);
    FAIL() << "expected a cost_dimensions error";
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), path);
    EXPECT_EQ(e.field(), "cost_dimensions[1]");
  }
}

TEST(NetoptReliability, ShapeLimitCountsFactorisationsTimesBlocks) {
  // 4096 = 2^12: ordered factorisations into k factors >= 2 are C(11, k-1) (bars between 12 twos), times
  // 3^k block choices: 11 * 9 + 55 * 27 + 165 * 81 = 99 + 1485 + 13365 = 14949 shapes.
  SweepSpec spec;
  spec.source = "shapes.yml";
  spec.npus = 4096;
  spec.dimension_counts = {2, 3, 4};
  spec.cost_dimensions = {"a", "b", "c", "d"};
  spec.limits.max_shapes = 14949;
  EXPECT_EQ(enumerate_shapes(spec).size(), 14949u);
  spec.limits.max_shapes = 14948;
  try {
    enumerate_shapes(spec);
    FAIL() << "expected the shape limit";
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), "shapes.yml");
    EXPECT_EQ(e.field(), "dimensions[2]");
  }
}

TEST(NetoptReliability, FactorisationsOfACompositeCountByDivisors) {
  // 720720 = 2^4 3^2 5 7 11 13: ordered pairs (f, n/f) with both >= 2 are its divisors but 1 and itself,
  // 240 - 2 = 238; with one block, 238 shapes.
  SweepSpec spec;
  spec.npus = 720720;
  spec.dimension_counts = {2};
  spec.blocks = {BlockKind::Switch};
  spec.cost_dimensions = {"a", "b"};
  const auto shapes = enumerate_shapes(spec);
  EXPECT_EQ(shapes.size(), 238u);
  for (const NetworkShape& s : shapes)
    EXPECT_EQ(uint64_t{s.sizes[0]} * s.sizes[1], 720720u);
}

TEST(NetoptReliability, NetworkNpuCountOverflowIsAnInputError) {
  // 2^24 per dimension passes the per-dimension check; the product would wrap 64 bits at the fourth.
  const std::string path = write_file("net.yml",
                                      "Topology: [Ring, Ring, Ring, Ring]\n"
                                      "NpusCount: [16777216, 16777216, 16777216, 16777216]\n"
                                      "CostDimension: [a, b, c, d]\n");
  try {
    load_libra_network(path);
    FAIL() << "expected an NPU count error";
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), path);
    EXPECT_EQ(e.field(), "NpusCount[1]");
  }
}

TEST(NetoptReliability, WorkloadComputeTimeAndCostLimits) {
  const std::string work = write_file("work.txt", "a -1 1e17 NONE 0 1 NONE 0 1 NONE 0 1\n");
  try {
    load_workload(work);
    FAIL() << "expected a compute time error";
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), work);
    EXPECT_EQ(e.field(), "line 1: fwd_compute");
  }
  // 2^53 itself is accepted (the bound is inclusive).
  EXPECT_EQ(load_workload(write_file("ok.txt", "a -1 1 ALLREDUCE 9007199254740992 1 NONE 0 1 NONE 0 1\n"))
                .layers[0]
                .forward.bytes,
            9007199254740992.0);
  const std::string cost = write_file("cost.yml", "InterPod: {Link: 1e300}\n");
  try {
    load_cost_model(cost);
    FAIL() << "expected a cost error";
  } catch (const Error& e) {
    EXPECT_EQ(e.source(), cost);
    EXPECT_EQ(e.field(), "InterPod");
  }
}

}  // namespace
}  // namespace chorus::netopt
