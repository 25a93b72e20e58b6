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

namespace chorus {
namespace {

namespace fs = std::filesystem;
const std::string kReference = CHORUS_REFERENCE_DIR;

struct CliRun {
  int status = -1;
  std::string out;
};

std::string quote(const std::string& text) {
  std::string q = "'";
  for (const char c : text) {
    if (c == '\'') {
      q.append("'\\''");
    } else {
      q.push_back(c);
    }
  }
  q.push_back('\'');
  return q;
}

// Runs `chorus ARGS...` under a timeout, capturing stdout and stderr together.
CliRun run_cli(const std::vector<std::string>& args) {
  std::string command = "timeout -k 5 60 ";
  command.append(quote(CHORUS_BINARY));
  for (const std::string& a : args) {
    command.push_back(' ');
    command.append(quote(a));
  }
  command.append(" 2>&1");
  CliRun run;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr)
    return run;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    run.out.append(buffer, n);
  const int status = ::pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
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
