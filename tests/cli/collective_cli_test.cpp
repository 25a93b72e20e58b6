// End-to-end runs of the `chorus` CLI with --json: the printed object is parsed and checked against values
// derived by hand (an ASTRA-sim-compatible ring All-Reduce, a native ring All-Reduce, and the lower bounds of
// a ring All-Gather).
#include <sys/wait.h>

#include <algorithm>
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
CliRun run_cli(const std::vector<std::string>& args) {
  return testing_support::run_chorus(args, false);
}

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

namespace chorus {
namespace {

std::vector<std::string> ring8(const std::string& topology, const std::string& collective, const std::string& size) {
  return {"collective", "--topology",   topology,   "--bandwidth", "50GB/s", "--latency",
          "1us",        "--collective", collective, "--size",      size};
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// --algorithm synth on a switch: synthesized transfers start or end at the switch, so the unaware model must
// replay them on their own links (it used to route switch -> NPU as NPU pairs and hit a zero bandwidth).
TEST(CollectiveCli, SynthOnSwitchRunsUnderEveryModel) {
  for (const char* model : {"unaware", "aware", "flow"}) {
    const nlohmann::json j =
        run_json(with(ring8("switch:8", "all_gather", "64MiB"), {"--algorithm", "synth", "--model", model, "--json"}));
    ASSERT_TRUE(j.contains("time_ns") && j.contains("bound_ns")) << model << ": " << j.dump();
    // All-Gather bound on a switch: each NPU receives (N - 1)/N of 64 MiB over one 50 GB/s link.
    expect_relative_near(j["bound_ns"].get<double>(), 7.0 / 8.0 * 67108864.0 / 50e9 * 1e9, 1e-12);
    EXPECT_GE(j["time_ns"].get<double>(), j["bound_ns"].get<double>()) << model;
    EXPECT_EQ(j.value("physically_feasible", false), true) << model;
    // The synthesizer never books a link twice at once, so a contention-free replay reproduces its estimate.
    if (std::string(model) == "unaware") {
      EXPECT_EQ(j["time_ns"].get<double>(), j["synth_estimate_ns"].get<double>());
    }
  }
}

TEST(CollectiveCli, SynthOnAstraSwitchFileRuns) {
  for (const char* model : {"unaware", "aware", "flow"}) {
    const nlohmann::json j =
        run_json({"collective", "--network", reference("astra-sim-inputs/network/Switch_8.yml"), "--collective",
                  "all_gather", "--size", "64MiB", "--algorithm", "synth", "--model", model, "--json"});
    ASSERT_TRUE(j.contains("time_ns") && j.contains("bound_ns")) << model << ": " << j.dump();
    EXPECT_GE(j["time_ns"].get<double>(), j["bound_ns"].get<double>()) << model;
    EXPECT_EQ(j.value("physically_feasible", false), true) << model;
  }
}

// ring:8, 50 GB/s, 1 us, 64 MiB All-Reduce with `direct` under the unaware model: RS then AG, each sending
// 64 MiB / 8 to every peer at once, the farthest 4 hops away: 2 (4 us + 8388608 B / 50 GB/s) = 343544.32 ns.
// The bound: every NPU sends 2 (N - 1)/N of 64 MiB over its two 50 GB/s out-links: 14 * 67108864 / 800e9 s.
TEST(CollectiveCli, DirectAllReduceOnRingIsFlaggedBelowTheBound) {
  const auto args = with(ring8("ring:8", "all_reduce", "64MiB"), {"--algorithm", "direct"});
  const nlohmann::json j = run_json(with(args, {"--json"}));
  EXPECT_DOUBLE_EQ(j.value("time_ns", 0.0), 343544.32);
  EXPECT_DOUBLE_EQ(j.value("bound_ns", 0.0), 1174405.12);
  EXPECT_EQ(j.value("physically_feasible", true), false);
  const CliRun text = run_cli(args);
  EXPECT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("warning"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("--model flow"), std::string::npos) << text.out;
}

// The ring All-Reduce of 8 MB takes 294 us (NativeRingAllReduceMatchesAlphaBeta), above its 140 us bound.
TEST(CollectiveCli, RingAllReduceIsFeasibleAndNotWarned) {
  const auto args = with(ring8("ring:8", "all_reduce", "8MB"), {"--algorithm", "ring"});
  const nlohmann::json j = run_json(with(args, {"--json"}));
  EXPECT_DOUBLE_EQ(j.value("bound_ns", 0.0), 140000.0);
  EXPECT_EQ(j.value("physically_feasible", false), true);
  const CliRun text = run_cli(args);
  EXPECT_EQ(text.status, 0);
  EXPECT_EQ(text.out.find("warning"), std::string::npos) << text.out;
}

// Feasible is time >= bound: a unidirectional ring All-Reduce with no latency meets its bound exactly,
// 2 (N - 1) (8 MB / 8) / 50 GB/s = 280 us = 2 (N - 1)/N * 8 MB / 50 GB/s.
TEST(CollectiveCli, TimeEqualToTheBoundIsFeasible) {
  const nlohmann::json j = run_json({"collective", "--topology", "uniring:8", "--bandwidth", "50GB/s", "--latency",
                                     "0ns", "--collective", "all_reduce", "--size", "8MB", "--json"});
  EXPECT_DOUBLE_EQ(j.value("time_ns", 0.0), 280000.0);
  EXPECT_DOUBLE_EQ(j.value("bound_ns", 0.0), 280000.0);
  EXPECT_EQ(j.value("physically_feasible", false), true);
}

TEST(CollectiveCli, SynthCommandReportsFeasibility) {
  const nlohmann::json j = run_json({"synth", "--topology", "ring:8", "--bandwidth", "50GB/s", "--latency", "1us",
                                     "--collective", "all_gather", "--size", "8MB", "--json"});
  ASSERT_TRUE(j.contains("physically_feasible")) << j.dump();
  EXPECT_EQ(j["physically_feasible"].get<bool>(), j["time_ns"].get<double>() >= j["bound_ns"].get<double>());
}

// Default chunks of a ring (chain) Broadcast / Reduce of S = 64 MiB on 8 NPUs at B = 50 GB/s:
// T(k) = (p - 2 + k)(a + S / (k B)), optimal near k0 = sqrt((p - 2) S / (B a)).
// ring:8 (a = 1 us, one hop): k0 = sqrt(6 * 1342.177 us / 1 us) = 89.7; T(89) = 1527.661 us > T(90), so k = 90 and
//   T = 96 (1 us + 745654 B / 50 GB/s) = 1527655.68 ns (chunks floor to whole bytes), 2.28x the S / (2B) bound.
// switch:8 (a = 2 us, up and down): k0 = sqrt(6 * 1342.177 / 2) = 63.5; T(63) < T(64), so k = 63 and
//   T = 69 (2 us + 1065220 B / 50 GB/s) = 1608003.6 ns, 1.20x the S / B bound.
// One chunk: (p - 1)(a + S / B).
TEST(CollectiveCli, RootedCollectivesPipelineByDefault) {
  struct Case {
    const char* topology;
    int chunks;
    double time_ns, one_chunk_ns, factor;
  };
  for (const Case& c : {Case{"ring:8", 90, 1527655.68, 7 * (1000 + 1342177.28), 2.5},
                        Case{"switch:8", 63, 1608003.6, 7 * (2000 + 1342177.28), 1.25}}) {
    for (const char* collective : {"broadcast", "reduce"}) {
      const auto args = ring8(c.topology, collective, "64MiB");
      const nlohmann::json j = run_json(with(args, {"--json"}));
      EXPECT_EQ(j.value("chunks", 0), c.chunks) << c.topology << " " << collective;
      EXPECT_NEAR(j.value("time_ns", 0.0), c.time_ns, 1e-6) << c.topology << " " << collective;
      EXPECT_LE(j.value("ratio", 99.0), c.factor) << c.topology << " " << collective;
      const nlohmann::json one = run_json(with(args, {"--splits", "1", "--json"}));
      EXPECT_EQ(one.value("chunks", 0), 1);
      EXPECT_NEAR(one.value("time_ns", 0.0), c.one_chunk_ns, 1e-6);
      EXPECT_LT(j.value("time_ns", 0.0), one.value("time_ns", 0.0));
    }
  }
}

TEST(CollectiveCli, WindowedDirectIsLabelled) {
  const nlohmann::json j = run_json(with(ring8("ring:8", "all_reduce", "1MiB"), {"--algorithm", "direct4", "--json"}));
  EXPECT_EQ(j.value("algorithm", ""), "direct4");
}

// Exit 2 and one line naming the flag and when it applies.
void expect_refused(const std::vector<std::string>& args, const std::string& flag, const std::string& applies) {
  const CliRun run = testing_support::run_chorus(args, true);
  EXPECT_EQ(run.status, 2) << run.out;
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 1) << run.out;
  EXPECT_EQ(run.out.rfind("error: ", 0), 0u) << run.out;
  EXPECT_NE(run.out.find(flag), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(applies), std::string::npos) << run.out;
}

TEST(CollectiveCli, SynthOptionsAreRefusedWithoutSynth) {
  const std::vector<std::pair<std::string, std::string>> flags = {
      {"--npus", "0-3"}, {"--fail-links", "0-1"}, {"--fail-npus", "5"},
      {"--chunks", "4"}, {"--seed", "7"},         {"--priority", "fresh"},
      {"--root", "2"},   {"--scan-cap", "8"},     {"--search-effort", "100"}};
  for (const auto& [flag, value] : flags) {
    expect_refused(with(ring8("ring:8", "all_reduce", "1MiB"), {flag, value}), flag, "only with --algorithm synth");
    // With the synthesizer, the same flag is accepted.
    const CliRun ok = run_cli(with(ring8("ring:8", "all_reduce", "1MiB"), {"--algorithm", "synth", flag, value}));
    EXPECT_EQ(ok.status, 0) << flag << ": " << ok.out;
  }
}

TEST(CollectiveCli, BuiltInOptionsAreRefusedWithSynth) {
  const std::vector<std::pair<std::string, std::string>> flags = {
      {"--splits", "4"},
      {"--active-chunks", "2"},
      {"--composition", "baseline"},
      {"--endpoint-delay", "10ns"},
      {"--reduction-bandwidth", "1TB/s"},
      {"--evaluation", "schedule"},
      {"--link-stats", "x.csv"},
      {"--system", reference("astra-sim-inputs/system/ring_1d.json")}};
  for (const auto& [flag, value] : flags) {
    expect_refused(with(ring8("ring:8", "all_reduce", "1MiB"), {"--algorithm", "synth", flag, value}), flag,
                   "not --algorithm synth");
  }
}

}  // namespace
}  // namespace chorus
