// `--collectives synth`: every collective of a workload timed by a schedule synthesized for its group on the
// physical topology (chorus sim, llm run --engine sim). Each group's time must be what `chorus collective
// --algorithm synth --npus GROUP` gives for the same size, and never below the group's physical bound; a 2-GPU
// All-Reduce inside one DGX H100 node is bounded by hand: each GPU sends half the buffer in the reduce-scatter and
// half in the all-gather over its 450 GB/s NVLink, S / 450 GB/s.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"
#include "tests/support/input_error.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;
using testing_support::expect_input_error;
using testing_support::run_chorus;

struct Row {
  std::string type;
  int group = 0;
  int64_t bytes = 0;
  std::string algorithm;
  double duration_ns = 0;
  double bound_ns = 0;
};

std::vector<Row> collectives_csv(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);  // header: index,type,group,group_npus,comm_size_bytes,algorithm,...,duration_ns,...
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');)
      cells.push_back(cell);
    rows.push_back(
        {cells[1], std::stoi(cells[2]), std::stoll(cells[4]), cells[5], std::stod(cells[9]), std::stod(cells[12])});
  }
  return rows;
}

std::string npu_list(const nlohmann::json& members) {
  std::string out;
  for (const auto& m : members) {
    if (!out.empty())
      out += ',';
    out += std::to_string(m.get<int>());
  }
  return out;
}

TEST(SynthCollectivesCli, EachGroupRunsItsOwnSynthesizedSchedule) {
  const fs::path dir = fs::temp_directory_path() / "chorus-synth-collectives";
  fs::remove_all(dir);
  // 16 GPUs on two DGX H100 nodes: TP 4 groups of node-local GPUs, DP 2 groups of two GPUs of one node.
  const auto gen =
      run_chorus({"generate", "llm", "--model", std::string(CHORUS_SOURCE_DIR) + "/examples/llm/llama2-7b.json", "--dp",
                  "2", "--tp", "4", "--pp", "2", "--microbatches", "2", "--gpu", "h100-80gb", "--out", dir.string()},
                 false);
  ASSERT_EQ(gen.status, 0) << gen.out;
  const fs::path groups_file = dir / "comm_groups.json";
  const std::vector<std::string> sim = {
      "sim",     "--workload", dir.string(), "--comm-groups", groups_file.string(), "--machine", "dgx-h100",
      "--nodes", "2",          "--model",    "flow"};
  std::vector<std::string> args = sim;
  args.insert(args.end(), {"--collectives", "synth", "--out", (dir / "out").string()});
  const auto run = run_chorus(args, false);
  ASSERT_EQ(run.status, 0) << run.out;
  const std::vector<Row> rows = collectives_csv(dir / "out" / "collectives.csv");
  ASSERT_FALSE(rows.empty());
  std::ifstream groups_in(groups_file);
  const nlohmann::json groups = nlohmann::json::parse(groups_in);

  std::map<int, const Row*> first_of_group;
  for (const Row& r : rows) {
    EXPECT_EQ(r.algorithm, "synth") << r.type;
    EXPECT_GE(r.duration_ns, r.bound_ns * (1 - 1e-9)) << r.type << " group " << r.group;
    first_of_group.emplace(r.group, &r);
  }
  for (const int group : {1, 5}) {  // a TP group of 4 and a DP group of 2
    ASSERT_TRUE(first_of_group.contains(group));
    const Row& r = *first_of_group[group];
    const auto alone = run_chorus({"collective", "--machine", "dgx-h100", "--nodes", "2", "--collective", "all_reduce",
                                   "--size", std::to_string(r.bytes), "--algorithm", "synth", "--npus",
                                   npu_list(groups[std::to_string(group)]), "--model", "flow", "--json"},
                                  false);
    ASSERT_EQ(alone.status, 0) << alone.out;
    EXPECT_NEAR(nlohmann::json::parse(alone.out)["time_ns"].get<double>(), r.duration_ns, 1e-6 * r.duration_ns);
  }
  const Row& dp = *first_of_group[5];
  const double hand_bound_ns = static_cast<double>(dp.bytes) / 450e9 * 1e9;
  EXPECT_NEAR(dp.bound_ns, hand_bound_ns, 1e-6 * hand_bound_ns);
  EXPECT_LE(dp.duration_ns, 1.05 * hand_bound_ns);  // the synthesized schedule reaches the bound within 5 %

  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = sim;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  expect_input_error(run_chorus(with({"--collectives", "synth", "--contention"}), true),
                     {"--contention", "--collectives synth"});
  expect_input_error(run_chorus(with({"--collectives", "fast"}), true), {"--collectives", "synth"});
  fs::remove_all(dir);
}

TEST(SynthCollectivesCli, LlmSimEngineSaysItsCollectivesAreSynthesized) {
  const std::string root = CHORUS_SOURCE_DIR;
  const auto run = run_chorus(
      {"llm", "run", "--model", root + "/validation/llm/models/llama2-7B.json", "--system", "h100-80gb", "--exec",
       root + "/validation/llm/execs/nemo-llama2-7B_8.json", "--engine", "sim", "--collectives", "synth", "--json"},
      false);
  ASSERT_EQ(run.status, 0) << run.out;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["engine"], "sim");
  EXPECT_EQ(j["collectives"], "synth");
  EXPECT_EQ(j["collectives_below_bound"], 0);
}

}  // namespace
}  // namespace chorus
