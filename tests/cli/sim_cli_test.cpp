// End-to-end runs of `chorus generate microbench`, `chorus sim` and `chorus convert`: the reports in --out are
// parsed and checked against ASTRA-sim's measured time (64,440 ns for a 1 MiB ring All-Reduce on 8 NPUs), the
// timeline against the summary, ASTRA-sim's option names, and the exit statuses (2 bad input, 3 deadlock).
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../runtime/workload_builder.hpp"
#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;
const std::string kReference = CHORUS_REFERENCE_DIR;

using testing_support::CliRun;

CliRun run_cli(const std::vector<std::string>& args) { return testing_support::run_chorus(args, true); }

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

fs::path fresh(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("chorus_sim_cli_" + name);
  fs::remove_all(dir);
  return dir;
}

TEST(SimCli, GeneratedMicrobenchGivesAstraSimTimeAndConsistentReports) {
  const fs::path dir = fresh("reports");
  ASSERT_EQ(run_cli({"generate", "microbench", "--collective", "all_reduce", "--npus", "8", "--size", "1MiB", "--out",
                     (dir / "traces").string()})
                .status,
            0);
  const CliRun sim = run_cli({"sim", "--workload", (dir / "traces").string(), "--system",
                              kReference + "/astra-sim-inputs/system/ring_1d.json", "--network",
                              kReference + "/astra-sim-inputs/network/Ring_8.yml", "--out", (dir / "out").string()});
  ASSERT_EQ(sim.status, 0) << sim.out;
  EXPECT_NE(sim.out.find("64440"), std::string::npos) << sim.out;

  const nlohmann::json summary = read_json(dir / "out" / "summary.json");
  EXPECT_EQ(summary["finish_ns"].get<double>(), 64440.0);
  EXPECT_EQ(summary["npus"].get<int>(), 8);
  ASSERT_EQ(summary["per_npu"].size(), 8u);
  for (const auto& npu : summary["per_npu"]) {
    EXPECT_EQ(npu["finish_ns"].get<double>(), 64440.0);
    EXPECT_EQ(npu["compute_ns"].get<double>(), 0.0);
    EXPECT_EQ(npu["exposed_comm_ns"].get<double>(), 64440.0);
    EXPECT_EQ(npu["idle_ns"].get<double>(), 0.0);
  }

  // timeline.json: Chrome trace format; one 64.44 us communication event per NPU, ending at its finish time
  const nlohmann::json timeline = read_json(dir / "out" / "timeline.json");
  int complete_events = 0;
  for (const auto& e : timeline["traceEvents"]) {
    if (e["ph"] != "X")
      continue;
    ++complete_events;
    const int npu = e["pid"].get<int>();
    EXPECT_EQ(e["tid"].get<int>(), 1);  // the communication track
    const double end_ns = (e["ts"].get<double>() + e["dur"].get<double>()) * 1000;
    EXPECT_NEAR(end_ns, summary["per_npu"][npu]["finish_ns"].get<double>(), 1e-6);
  }
  EXPECT_EQ(complete_events, 8);

  std::ifstream csv(dir / "out" / "collectives.csv");
  std::string header, row, extra;
  std::getline(csv, header);
  std::getline(csv, row);
  EXPECT_FALSE(std::getline(csv, extra));
  EXPECT_EQ(header.rfind("index,type,group", 0), 0u) << header;
  EXPECT_NE(row.find("ALL_REDUCE"), std::string::npos) << row;
  EXPECT_NE(row.find(",0,64440,64440,"), std::string::npos) << row;  // start, end, duration in ns
}

TEST(SimCli, AcceptsAstraSimOptionNames) {
  const std::string traces = kReference + "/chakra-traces/all_gather_1048576B/64npus/all_gather";
  const CliRun sim = run_cli(
      {"sim", "--workload-configuration=" + traces,
       "--system-configuration=" + kReference + "/astra-sim-inputs/system/ring_1d.json",
       "--network-configuration=" + kReference + "/astra-sim-inputs/network/Switch_64.yml",
       "--remote-memory-configuration=" + kReference + "/astra-sim-inputs/no_memory_expansion.json",
       "--comm-group-configuration=empty", "--logging-folder=/tmp", "--model", "aware", "--json", "--no-bounds"});
  ASSERT_EQ(sim.status, 0) << sim.out;
  EXPECT_EQ(nlohmann::json::parse(sim.out)["finish_ns"].get<double>(), 2715088.0);  // astra-sim-results.csv
}

TEST(SimCli, DeadlockExitsWithStatus3) {
  testing::WorkloadBuilder b("cli_deadlock", 2);
  b.recv(0, 5, 1, 64, 3);
  b.comp(1, 1, 1);
  const CliRun sim =
      run_cli({"sim", "--workload", b.write(), "--topology", "fc:2", "--bandwidth", "1GB/s", "--latency", "1us"});
  EXPECT_EQ(sim.status, 3) << sim.out;
  EXPECT_NE(sim.out.find("node 5"), std::string::npos) << sim.out;
}

TEST(SimCli, TruncatedTraceIsOneLineAndStatus2) {
  testing::WorkloadBuilder b("cli_truncated", 2);
  b.comp(0, 1, 1);
  b.comp(1, 1, 1);
  const std::string prefix = b.write();
  fs::resize_file(prefix + ".1.et", fs::file_size(prefix + ".1.et") - 3);
  const CliRun sim =
      run_cli({"sim", "--workload", prefix, "--topology", "fc:2", "--bandwidth", "1GB/s", "--latency", "1us"});
  EXPECT_EQ(sim.status, 2) << sim.out;
  EXPECT_NE(sim.out.find("w.1.et"), std::string::npos) << sim.out;
  EXPECT_EQ(std::count(sim.out.begin(), sim.out.end(), '\n'), 1) << sim.out;
}

// h 64, 4 heads, feedforward 256, 32 tokens, 2 blocks, no LM head (Calculon's application format).
constexpr const char* kTinyModel =
    R"({"hidden": 64, "feedforward": 256, "seq_size": 32, "attn_heads": 4, "attn_size": 16, "num_blocks": 2,
        "vocab": 0})";

TEST(SimCli, GeneratedLlmPipelineRunsTheHandSchedule) {
  // pp 2, 2 microbatches, one layer per stage. At 0.262144 TFLOPS a forward is 5 + 8 = 13 us (attention 1310720
  // FLOPs, MLP 2097152), a backward 26 us; a 4096-byte activation on 1 GB/s + 1 us takes c = 5.096 us.
  // 1F1B: stage 0 runs F0 F1 B0 B1 and finishes at 9 F + 2 c = 127.192 us (derivation in llm_training_test.cpp).
  const fs::path dir = fresh("llm_pipeline");
  fs::create_directories(dir);
  { std::ofstream(dir / "tiny.json") << kTinyModel; }
  const CliRun gen = run_cli({"generate", "llm", "--model", (dir / "tiny.json").string(), "--pp", "2", "--microbatches",
                              "2", "--peak-perf", "0.262144", "--out", (dir / "traces").string()});
  ASSERT_EQ(gen.status, 0) << gen.out;
  const CliRun sim = run_cli({"sim", "--workload", (dir / "traces").string(), "--comm-groups",
                              (dir / "traces" / "comm_groups.json").string(), "--topology", "fc:2", "--bandwidth",
                              "1GB/s", "--latency", "1us", "--json"});
  ASSERT_EQ(sim.status, 0) << sim.out;
  const nlohmann::json summary = nlohmann::json::parse(sim.out);
  EXPECT_EQ(summary["finish_ns"].get<double>(), 127192.0);
  EXPECT_EQ(summary["per_npu"][1]["finish_ns"].get<double>(), 101192.0);
}

TEST(SimCli, GeneratedLlmWithAllThreeParallelismsRunsUnderEveryModel) {
  // dp 2 x tp 2 x pp 2 on 8 NPUs, 3 microbatches, sequence parallelism. Collectives: 4 TP groups x 3 microbatches x
  // 2 passes x 1 layer x 2 halves x (All-Gather + Reduce-Scatter) = 96, and one DP All-Reduce per DP group = 4.
  const fs::path dir = fresh("llm_3d");
  fs::create_directories(dir);
  { std::ofstream(dir / "tiny.json") << kTinyModel; }
  const CliRun gen =
      run_cli({"generate", "llm", "--model", (dir / "tiny.json").string(), "--dp", "2", "--tp", "2", "--pp", "2",
               "--microbatches", "3", "--sequence-parallel", "--out", (dir / "traces").string()});
  ASSERT_EQ(gen.status, 0) << gen.out;
  for (const std::string model : {"unaware", "aware", "flow"}) {
    const fs::path out = dir / ("out_" + model);
    const CliRun sim =
        run_cli({"sim", "--workload", (dir / "traces").string(), "--comm-groups",
                 (dir / "traces" / "comm_groups.json").string(), "--topology", "dims:switch2,switch4", "--bandwidth",
                 "100GB/s,10GB/s", "--latency", "1us", "--model", model, "--json", "--out", out.string()});
    ASSERT_EQ(sim.status, 0) << model << ": " << sim.out;
    const nlohmann::json summary = nlohmann::json::parse(sim.out);
    EXPECT_EQ(summary["npus"].get<int>(), 8);
    EXPECT_EQ(summary["collective_count"].get<int>(), 100) << model;
    EXPECT_GT(summary["finish_ns"].get<double>(), 0.0);
    EXPECT_EQ(fs::exists(out / "links.csv"), model != "unaware") << model;
  }
  // links.csv under flow: NPU 0's link to its dimension-0 switch (the one NPU 1 also reaches) carries only TP
  // traffic. Per half: the All-Gather sends NPU 0's 2048-byte shard, the Reduce-Scatter 4096 / 2 bytes; 2 halves x
  // 2 passes x 3 microbatches: 12 x 4096 = 49152 bytes. (Its DP group {0, 2} and its pipeline peer 4 are in
  // dimension 1.)
  std::ifstream csv(dir / "out_flow" / "links.csv");
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "link,src,dst,bandwidth_GBps,latency_ns,bytes,busy_ns,utilization,peak_flows");
  std::vector<std::vector<std::string>> rows;
  while (std::getline(csv, line)) {
    std::vector<std::string> cells;
    std::stringstream cells_in(line);
    for (std::string cell; std::getline(cells_in, cell, ',');)
      cells.push_back(cell);
    rows.push_back(cells);
  }
  auto has_link = [&](const std::string& src, const std::string& dst) {
    return std::any_of(rows.begin(), rows.end(), [&](const auto& r) { return r[1] == src && r[2] == dst; });
  };
  int checked = 0;
  for (const auto& r : rows) {
    if (r[1] != "0" || !has_link("1", r[2]))
      continue;
    EXPECT_EQ(r[5], "49152") << line;
    ++checked;
  }
  EXPECT_EQ(checked, 1);
}

TEST(SimCli, ConvertPrintsJson) {
  const CliRun run =
      run_cli({"convert", kReference + "/chakra-traces/all_reduce_1048576B/8npus/all_reduce.3.et", "--to", "json"});
  ASSERT_EQ(run.status, 0) << run.out;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  ASSERT_EQ(j["nodes"].size(), 1u);
  EXPECT_EQ(j["nodes"][0]["id"], "3");  // protobuf JSON writes uint64 as a string
  EXPECT_EQ(j["nodes"][0]["type"], "COMM_COLL_NODE");
}

}  // namespace
}  // namespace chorus
