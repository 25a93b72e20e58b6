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

CliRun run_cli(const std::vector<std::string>& args) {
  return testing_support::run_chorus(args, true);
}

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
    if (e["ph"] != "X" || e["cat"] == "critical_path")  // the critical path's own track (timeline_writer_test.cpp)
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
  // stderr first (one notice for --logging-folder), then the summary on stdout
  const size_t json_at = sim.out.find('{');
  ASSERT_NE(json_at, std::string::npos) << sim.out;
  EXPECT_EQ(sim.out.substr(0, json_at),
            "notice: --logging-folder accepted and ignored (chorus does not log through "
            "spdlog)\n");
  EXPECT_EQ(nlohmann::json::parse(sim.out.substr(json_at))["finish_ns"].get<double>(),
            2715088.0);  // astra-sim-results.csv
}

// The lines of a run's output that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& out, const std::string& prefix) {
  std::vector<std::string> found;
  std::stringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0)
      found.push_back(line);
  }
  return found;
}

// A 1 MiB All-Reduce on ASTRA-sim's Ring_8 with ring_1d.json, with extra arguments.
CliRun ring8_all_reduce(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"sim",
                                   "--workload",
                                   kReference + "/chakra-traces/all_reduce_1048576B/8npus/all_reduce",
                                   "--network",
                                   kReference + "/astra-sim-inputs/network/Ring_8.yml",
                                   "--no-bounds",
                                   "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_cli(args);
}

TEST(SimCli, EveryIgnoredAstraSimOptionGetsOneNoticeLine) {
  const std::string sys = "--system=" + kReference + "/astra-sim-inputs/system/ring_1d.json";
  for (const std::string option :
       {"--logging-configuration=empty", "--logging-folder=log", "--num-queues-per-dim=2", "--comm-scale=2",
        "--compute-scale=2", "--rendezvous-protocol=true", "--logical-topology-configuration=logical.json"}) {
    const CliRun sim = ring8_all_reduce({sys, option});
    ASSERT_EQ(sim.status, 0) << option << ": " << sim.out;
    const std::string name = option.substr(0, option.find('='));
    const std::vector<std::string> notices = lines_starting(sim.out, "notice:");
    ASSERT_EQ(notices.size(), 1u) << sim.out;
    EXPECT_EQ(notices[0].rfind("notice: " + name + " accepted and ignored (", 0), 0u) << notices[0];
    EXPECT_NE(sim.out.find("\"finish_ns\":64440.0"), std::string::npos) << sim.out;  // the result is unchanged
  }
}

TEST(SimCli, InjectionScaleMultipliesTheEndpointDelay) {
  // ASTRA-sim: the endpoint delay is endpoint-delay x --injection-scale. ring_1d.json has endpoint-delay 10 ns; a
  // copy with 30 ns must give what --injection-scale 3 gives, a copy with 0 what --injection-scale 0 gives, and
  // the scale must change the result (ASTRA-sim's 64,440 ns at scale 1).
  const fs::path dir = fresh("injection");
  fs::create_directories(dir);
  std::ifstream in(kReference + "/astra-sim-inputs/system/ring_1d.json");
  nlohmann::json sys = nlohmann::json::parse(in);
  ASSERT_EQ(sys["endpoint-delay"].get<int>(), 10);
  auto write_with_delay = [&](int ns) {
    nlohmann::json copy = sys;
    copy["endpoint-delay"] = ns;
    const fs::path path = dir / ("sys_" + std::to_string(ns) + ".json");
    std::ofstream(path) << copy.dump();
    return "--system=" + path.string();
  };
  auto finish = [](const CliRun& run) {
    EXPECT_EQ(run.status, 0) << run.out;
    return nlohmann::json::parse(run.out)["finish_ns"].get<double>();
  };
  const double scaled3 = finish(ring8_all_reduce({write_with_delay(10), "--injection-scale", "3"}));
  EXPECT_EQ(scaled3, finish(ring8_all_reduce({write_with_delay(30)})));
  const double scaled0 = finish(ring8_all_reduce({write_with_delay(10), "--injection-scale", "0"}));
  EXPECT_EQ(scaled0, finish(ring8_all_reduce({write_with_delay(0)})));
  EXPECT_EQ(finish(ring8_all_reduce({write_with_delay(10), "--injection-scale", "1"})), 64440.0);
  EXPECT_GT(scaled3, 64440.0);
  EXPECT_LT(scaled0, 64440.0);
}

TEST(SimCli, OptionsThatCannotApplyAreRefusedSayingWhenTheyApply) {
  const std::string sys = "--system=" + kReference + "/astra-sim-inputs/system/ring_1d.json";
  const struct {
    std::vector<std::string> args;
    std::string field;
    std::string when;
  } cases[] = {
      {{"--no-timeline"}, "--no-timeline", "only with --out"},
      {{"--contention"}, "--contention", "needs --model flow"},
      {{"--injection-scale", "2"}, "--injection-scale", "only with --system"},
      {{sys, "--injection-scale", "-1"}, "--injection-scale", ">= 0"},
      {{"--bandwidth", "1GB/s"}, "--bandwidth", "not allowed with --network"},
  };
  for (const auto& c : cases) {
    const CliRun sim = ring8_all_reduce(c.args);
    EXPECT_EQ(sim.status, 2) << c.field << ": " << sim.out;
    EXPECT_EQ(std::count(sim.out.begin(), sim.out.end(), '\n'), 1) << sim.out;
    EXPECT_EQ(sim.out.rfind("error: ", 0), 0u) << sim.out;
    EXPECT_NE(sim.out.find(c.field), std::string::npos) << sim.out;
    EXPECT_NE(sim.out.find(c.when), std::string::npos) << sim.out;
  }
}

TEST(SimCli, CollectiveBelowItsPhysicalBoundIsFlaggedWithOneWarning) {
  // switch:4 at 1 GB/s, ASTRA-sim's direct All-Reduce of 8 MB: the unaware model gives each of an NPU's 3
  // simultaneous messages the whole up-link, about 2 x M / (4 B) = 4 ms, below the star's bound
  // 2 x 3/4 x M / B = 12 ms (tests/runtime/group_bound_test.cpp). The flow model shares the link: no warning.
  testing::WorkloadBuilder b("cli_below_bound", 4);
  for (uint32_t npu = 0; npu < 4; ++npu)
    b.coll(npu, 1, chakra::CommType::AllReduce, 8'000'000);
  const std::string sys =
      b.file("sys.json", R"({"scheduling-policy": "LIFO", "collective-optimization": "baseline", "endpoint-delay": 0,
      "preferred-dataset-splits": 1, "active-chunks-per-dimension": 1,
      "all-reduce-implementation": ["direct"], "all-gather-implementation": ["direct"],
      "reduce-scatter-implementation": ["direct"], "all-to-all-implementation": ["direct"]})");
  const std::string prefix = b.write();
  const fs::path dir = fresh("below_bound");
  for (const std::string model : {"unaware", "flow"}) {
    const fs::path out = dir / model;
    const CliRun sim = run_cli({"sim", "--workload", prefix, "--system", sys, "--topology", "switch:4", "--bandwidth",
                                "1GB/s", "--latency", "1us", "--model", model, "--out", out.string(), "--json"});
    ASSERT_EQ(sim.status, 0) << sim.out;
    const std::vector<std::string> warnings = lines_starting(sim.out, "warning:");
    const nlohmann::json summary = read_json(out / "summary.json");
    std::ifstream csv(out / "collectives.csv");
    std::string header, row;
    std::getline(csv, header);
    std::getline(csv, row);
    EXPECT_NE(header.find(",lower_bound_ns,feasible,node_id"), std::string::npos) << header;
    EXPECT_NE(row.find(",12000000,"), std::string::npos) << row;  // the bound in ns
    if (model == "unaware") {
      ASSERT_EQ(warnings.size(), 1u) << sim.out;
      EXPECT_EQ(warnings[0],
                "warning: 1 of 1 collectives finish faster than their physical lower bound: the unaware model "
                "ignores link contention; --model flow accounts for it");
      EXPECT_EQ(summary["below_bound_count"].get<int>(), 1);
      EXPECT_FALSE(summary["collectives"][0]["feasible"].get<bool>());
      EXPECT_NE(row.find(",12000000,0,"), std::string::npos) << row;
    } else {
      EXPECT_TRUE(warnings.empty()) << sim.out;
      EXPECT_EQ(summary["below_bound_count"].get<int>(), 0);
      EXPECT_TRUE(summary["collectives"][0]["feasible"].get<bool>());
      EXPECT_NE(row.find(",12000000,1,"), std::string::npos) << row;
    }
  }
}

TEST(SimCli, PerNpuReportSplitsPeerWaitFromExposedComm) {
  // The 2-stage pipeline of runtime_test.cpp: stage 1 waits 10 us for stage 0's send, receives 2 us, computes 5 us.
  testing::WorkloadBuilder b("cli_peer_wait", 2);
  b.comp(0, 1, 10);
  b.send(0, 2, 1, 1000, 7, {1});
  b.recv(1, 1, 0, 1000, 7);
  b.comp(1, 2, 5, {1});
  const CliRun sim = run_cli(
      {"sim", "--workload", b.write(), "--topology", "fc:2", "--bandwidth", "1GB/s", "--latency", "1us", "--json"});
  ASSERT_EQ(sim.status, 0) << sim.out;
  const nlohmann::json npu1 = nlohmann::json::parse(sim.out)["per_npu"][1];
  EXPECT_EQ(npu1["finish_ns"].get<double>(), 17000.0);
  EXPECT_EQ(npu1["compute_ns"].get<double>(), 5000.0);
  EXPECT_EQ(npu1["exposed_comm_ns"].get<double>(), 2000.0);
  EXPECT_EQ(npu1["peer_wait_ns"].get<double>(), 10000.0);
  EXPECT_EQ(npu1["idle_ns"].get<double>(), 0.0);
  const CliRun table =
      run_cli({"sim", "--workload", b.write(), "--topology", "fc:2", "--bandwidth", "1GB/s", "--latency", "1us"});
  ASSERT_EQ(table.status, 0) << table.out;
  EXPECT_NE(table.out.find("peer_wait_ns"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("17000.000         5000.000         2000.000        10000.000            0.000"),
            std::string::npos)
      << table.out;
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
