// `chorus sim --what-if` end to end on a generated 2-stage pipeline whose schedule is worked out by hand: the
// critical path's split, each what-if's finish (hand calculation and a separate run on the changed input), the
// text report, and the exit statuses (3 on a deadlock, 2 on a misplaced option or an --overlap-slowdown out of
// [0, 10)).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../runtime/workload_builder.hpp"
#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;
using testing_support::CliRun;

CliRun run_cli(const std::vector<std::string>& args) {
  return testing_support::run_chorus(args, true);
}

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

double what_if(const nlohmann::json& summary, const std::string& change) {
  for (const auto& w : summary["what_if"]) {
    if (w["change"] == change)
      return w["finish_ns"].get<double>();
  }
  ADD_FAILURE() << "no what-if " << change;
  return 0;
}

// h 64, 4 heads, feedforward 256, 32 tokens, 2 blocks, no LM head (Calculon's application format).
constexpr const char* kTinyModel =
    R"({"hidden": 64, "feedforward": 256, "seq_size": 32, "attn_heads": 4, "attn_size": 16, "num_blocks": 2,
        "vocab": 0})";

// pp 2, 2 microbatches, one layer per stage (sim_cli_test.cpp): a forward F = 13 us, a backward 2F, an activation
// message c = 1 us + 4096 B / 1 GB/s = 5.096 us; 1F1B finishes stage 0 at 9 F + 2 c = 127.192 us.
fs::path pipeline(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("chorus_what_if_cli_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  { std::ofstream(dir / "tiny.json") << kTinyModel; }
  const CliRun gen = run_cli({"generate", "llm", "--model", (dir / "tiny.json").string(), "--pp", "2", "--microbatches",
                              "2", "--peak-perf", "0.262144", "--out", (dir / "traces").string()});
  EXPECT_EQ(gen.status, 0) << gen.out;
  return dir;
}

std::vector<std::string> sim_args(const fs::path& dir, const std::string& bandwidth, const std::string& latency) {
  return {"sim",
          "--workload",
          (dir / "traces").string(),
          "--comm-groups",
          (dir / "traces" / "comm_groups.json").string(),
          "--topology",
          "fc:2",
          "--bandwidth",
          bandwidth,
          "--latency",
          latency};
}

TEST(WhatIfCli, PipelineSplitAndWhatIfsMatchTheHandSchedule) {
  const fs::path dir = pipeline("split");
  std::vector<std::string> args = sim_args(dir, "1GB/s", "1us");
  args.insert(args.end(), {"--out", (dir / "out").string(), "--what-if", "--what-if-threads", "2"});
  const CliRun sim = run_cli(args);
  ASSERT_EQ(sim.status, 0) << sim.out;
  EXPECT_NE(sim.out.find("critical path  compute 92.0%"), std::string::npos) << sim.out;  // 117 of 127.192 us
  EXPECT_NE(sim.out.find("communication free"), std::string::npos) << sim.out;
  EXPECT_NE(sim.out.find("most exposed communication (share of all exposed): mb#.send_"), std::string::npos)
      << sim.out;  // the pipeline's only communication is its messages

  const nlohmann::json s = read_json(dir / "out" / "summary.json");
  EXPECT_EQ(s["finish_ns"].get<double>(), 127192.0);
  const nlohmann::json& t = s["critical_path_totals"];
  EXPECT_EQ(t["compute_ns"].get<double>(), 117000.0);  // 9 F
  EXPECT_EQ(t["p2p_ns"].get<double>(), 10192.0);       // 2 c
  EXPECT_EQ(t["collective_ns"].get<double>(), 0.0);
  EXPECT_EQ(t["other_ns"].get<double>(), 0.0);
  double covered = 0;
  for (const auto& seg : s["critical_path"])
    covered += seg["end_ns"].get<double>() - seg["start_ns"].get<double>();
  EXPECT_DOUBLE_EQ(covered, 127192.0);
  ASSERT_FALSE(s["blame"].empty());

  // Communication free: 9 F. Dimension 0 (fc:2's only one) bandwidth x2: c = 1 + 2.048 us; latency /2: c = 0.5 +
  // 4.096 us.
  EXPECT_EQ(what_if(s, "communication free"), 117000.0);
  EXPECT_EQ(what_if(s, "dimension 0 bandwidth x2"), 117000.0 + 2 * 3048.0);
  EXPECT_EQ(what_if(s, "dimension 0 latency /2"), 117000.0 + 2 * 4596.0);
  EXPECT_EQ(what_if(s, "compute 2x faster"), 9 * 6500.0 + 2 * 5096.0);
  for (const auto& w : s["what_if"])
    EXPECT_LE(w["finish_ns"].get<double>(), 127192.0) << w["change"];

  // The same as separate runs on the changed input.
  std::vector<std::string> faster = sim_args(dir, "2GB/s", "1us");
  faster.push_back("--json");
  const CliRun separate = run_cli(faster);
  ASSERT_EQ(separate.status, 0) << separate.out;
  EXPECT_EQ(nlohmann::json::parse(separate.out)["finish_ns"].get<double>(), what_if(s, "dimension 0 bandwidth x2"));
}

TEST(WhatIfCli, DeadlockGivesTheDeadlockReportAndStatus3) {
  testing::WorkloadBuilder b("what_if_cli_deadlock", 2);
  b.recv(0, 5, 1, 64, 3);
  b.comp(1, 1, 1);
  const CliRun sim = run_cli(
      {"sim", "--workload", b.write(), "--topology", "fc:2", "--bandwidth", "1GB/s", "--latency", "1us", "--what-if"});
  EXPECT_EQ(sim.status, 3) << sim.out;
  EXPECT_NE(sim.out.find("deadlock"), std::string::npos) << sim.out;
  EXPECT_NE(sim.out.find("node 5"), std::string::npos) << sim.out;
}

TEST(WhatIfCli, ThreadsWithoutWhatIfIsOneLineAndStatus2) {
  testing::WorkloadBuilder b("what_if_cli_threads", 2);
  b.comp(0, 1, 1);
  b.comp(1, 1, 1);
  const CliRun sim = run_cli({"sim", "--workload", b.write(), "--topology", "fc:2", "--bandwidth", "1GB/s", "--latency",
                              "1us", "--what-if-threads", "2"});
  EXPECT_EQ(sim.status, 2) << sim.out;
  EXPECT_NE(sim.out.find("--what-if-threads"), std::string::npos) << sim.out;
  EXPECT_EQ(std::count(sim.out.begin(), sim.out.end(), '\n'), 1) << sim.out;
}

TEST(WhatIfCli, OverlapSlowdownOutsideItsRangeIsOneLineAndStatus2) {
  testing::WorkloadBuilder b("what_if_cli_slowdown", 2);
  b.comp(0, 1, 1);
  b.comp(1, 1, 1);
  const std::string prefix = b.write();
  for (const std::string value : {"10", "-0.1", "nan", "inf"}) {
    const CliRun sim = run_cli({"sim", "--workload", prefix, "--topology", "fc:2", "--bandwidth", "1GB/s", "--latency",
                                "1us", "--overlap-slowdown", value});
    EXPECT_EQ(sim.status, 2) << value << ": " << sim.out;
    EXPECT_NE(sim.out.find("--overlap-slowdown"), std::string::npos) << sim.out;
    EXPECT_EQ(std::count(sim.out.begin(), sim.out.end(), '\n'), 1) << sim.out;
  }
  const CliRun ok = run_cli({"sim", "--workload", prefix, "--topology", "fc:2", "--bandwidth", "1GB/s", "--latency",
                             "1us", "--overlap-slowdown", "9.99", "--json"});
  EXPECT_EQ(ok.status, 0) << ok.out;
}

}  // namespace
}  // namespace chorus
