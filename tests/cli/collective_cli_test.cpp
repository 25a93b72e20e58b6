// End-to-end runs of the `chorus` CLI with --json: the printed object is parsed and checked against values
// derived by hand (an ASTRA-sim-compatible ring All-Reduce, a native ring All-Reduce, and the lower bounds of
// a ring All-Gather).
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

using testing_support::CliRun;

// stderr passes through to the test's own stderr.
CliRun run_cli(const std::vector<std::string>& args) { return testing_support::run_chorus(args, false); }

// Runs the CLI and parses its single JSON line; fails the test when it does not exit 0 with valid JSON.
nlohmann::json run_json(const std::vector<std::string>& args) {
  const CliRun run = run_cli(args);
  EXPECT_EQ(run.status, 0) << run.out;
  const nlohmann::json parsed = nlohmann::json::parse(run.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(parsed.is_discarded()) << "not JSON: " << run.out;
  return parsed.is_discarded() ? nlohmann::json::object() : parsed;
}

std::string reference(const std::string& relative) {
  return std::string(CHORUS_REFERENCE_DIR) + "/" + relative;
}

void expect_relative_near(double actual, double expected, double tolerance) {
  EXPECT_LE(std::abs(actual - expected), tolerance * std::abs(expected)) << actual << " vs " << expected;
}

TEST(CollectiveCli, AstraRingAllReduceMatchesHandValue) {
  const nlohmann::json j = run_json({"collective", "--network", reference("astra-sim-inputs/network/Ring_8.yml"),
                                     "--system", reference("astra-sim-inputs/system/ring_1d.json"), "--collective",
                                     "all_reduce", "--size", "1MiB", "--json"});
  for (const char* key : {"time_ns", "bound_ns", "algbw_GBps", "busbw_GBps", "npus", "collective", "algorithm"}) {
    EXPECT_TRUE(j.contains(key)) << "missing " << key << " in " << j.dump();
  }
  ASSERT_TRUE(j.contains("time_ns") && j.contains("algbw_GBps") && j.contains("busbw_GBps")) << j.dump();
  // 4 chunks of 256 KiB; per chunk 10 ns + 7 * (1110 + 10 + 60) ns (RS with reduction) + 7 * (1110 + 10) ns (AG).
  EXPECT_EQ(j["time_ns"].get<double>(), 64440.0);
  const double algbw = 1048576.0 / 64440e-9 / 1e9;
  expect_relative_near(j["algbw_GBps"].get<double>(), algbw, 1e-9);
  expect_relative_near(j["busbw_GBps"].get<double>(), algbw * 2.0 * 7.0 / 8.0, 1e-9);
  EXPECT_EQ(j["npus"].get<int>(), 8);
  EXPECT_EQ(j["collective"].get<std::string>(), "all_reduce");
  EXPECT_EQ(j["algorithm"].get<std::string>(), "ring");
}

TEST(CollectiveCli, NativeRingAllReduceMatchesAlphaBeta) {
  const nlohmann::json j = run_json({"collective", "--topology", "ring:8", "--bandwidth", "50GB/s", "--latency", "1us",
                                     "--algorithm", "ring", "--collective", "all_reduce", "--size", "8MB", "--json"});
  ASSERT_TRUE(j.contains("time_ns")) << j.dump();
  // 2 (p - 1) (alpha + (D / p) / B) = 14 * (1 us + 1e6 B / 50e9 B/s) = 14 * 21 us.
  EXPECT_EQ(j["time_ns"].get<double>(), 294000.0);
}

TEST(CollectiveCli, BoundRingAllGather) {
  const nlohmann::json j = run_json({"bound", "--topology", "ring:8", "--bandwidth", "50GB/s", "--latency", "1us",
                                     "--collective", "all_gather", "--size", "8MB", "--json"});
  for (const char* key : {"bound_ns", "bandwidth_bound_ns", "latency_bound_ns"}) {
    ASSERT_TRUE(j.contains(key)) << "missing " << key << " in " << j.dump();
  }
  // Bidirectional ring All-Gather: (N - 1) M / (2 N B) = 7 * 8e6 / (16 * 50e9) s = 70 us.
  expect_relative_near(j["bandwidth_bound_ns"].get<double>(), 70000.0, 1e-12);
  // Diameter 4 hops * 1 us.
  expect_relative_near(j["latency_bound_ns"].get<double>(), 4000.0, 1e-12);
  EXPECT_GE(j["bound_ns"].get<double>(), 70000.0);
}

}  // namespace
}  // namespace chorus

namespace chorus {
namespace {

// Per-link statistics of a flow run: a 4-NPU ring All-Reduce of 4 MB sends 2(p-1) = 6 messages of D/p = 1 MB
// from every NPU to its successor, so each forward link carries 6 MB and each backward link nothing.
TEST(CollectiveCli, FlowModelWritesLinkStatistics) {
  const std::string csv = testing::TempDir() + "/chorus_links.csv";
  const nlohmann::json j =
      run_json({"collective", "--topology", "ring:4", "--bandwidth", "50GB/s", "--latency", "1us", "--collective",
                "all_reduce", "--size", "4MB", "--model", "flow", "--link-stats", csv, "--json"});
  EXPECT_EQ(j.value("model", ""), "flow");
  // No contention: 6 x (1 us + 1 MB / 50 GB/s) = 6 x 21 us.
  EXPECT_DOUBLE_EQ(j.value("time_ns", 0.0), 126000.0);
  std::FILE* f = std::fopen(csv.c_str(), "r");
  ASSERT_NE(f, nullptr);
  char header[256];
  ASSERT_NE(std::fgets(header, sizeof header, f), nullptr);
  EXPECT_EQ(std::string(header).rfind("link,src,dst,", 0), 0u);
  int rows = 0, forward = 0;
  unsigned link = 0, src = 0, dst = 0;
  double bandwidth = 0, latency = 0, bytes = 0, busy = 0, utilization = 0;
  unsigned peak = 0;
  while (std::fscanf(f, "%u,%u,%u,%lf,%lf,%lf,%lf,%lf,%u\n", &link, &src, &dst, &bandwidth, &latency, &bytes, &busy,
                     &utilization, &peak) == 9) {
    ++rows;
    if (dst == (src + 1) % 4) {
      ++forward;
      EXPECT_DOUBLE_EQ(bytes, 6e6);
      EXPECT_DOUBLE_EQ(busy, 6 * 20000.0);  // 6 transmissions of 20 us each
      EXPECT_EQ(peak, 1u);
    } else {
      EXPECT_DOUBLE_EQ(bytes, 0.0);
    }
  }
  std::fclose(f);
  EXPECT_EQ(rows, 8);
  EXPECT_EQ(forward, 4);
}

}  // namespace
}  // namespace chorus
