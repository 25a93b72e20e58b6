// `chorus generate llm --symmetric` and `chorus sim` on the symmetric workload it writes: the same finish time as
// the per-rank traces (to the nanosecond), with an ASTRA-sim network and system JSON; inconsistent classes.json
// give one error line and exit status 2.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;
using testing_support::CliRun;

fs::path fresh(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("chorus_symmetric_cli_" + name);
  fs::remove_all(dir);
  return dir;
}

std::vector<std::string> generate(const fs::path& out, bool symmetric) {
  std::vector<std::string> args = {"generate", "llm",  "--model", "gpt3-1.3b",      "--tp", "2",     "--pp",
                                   "2",        "--dp", "4",       "--microbatches", "4",    "--out", out.string()};
  if (symmetric)
    args.emplace_back("--symmetric");
  return args;
}

// A 2 x 4 x 2 network in the rank order (TP fastest), 16 NPUs, with the system JSON of the LLM examples.
std::vector<std::string> sim(const fs::path& workload, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"sim",         "--workload",   workload.string(), "--topology", "torus3d:2x4x2",
                                   "--bandwidth", "25GB/s",       "--latency",       "1us",        "--model",
                                   "flow",        "--contention", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(SymmetricCli, SameFinishAsThePerRankTraces) {
  const fs::path dir = fresh("same");
  ASSERT_EQ(testing_support::run_chorus(generate(dir / "full", false), true).status, 0);
  const CliRun wrote = testing_support::run_chorus(generate(dir / "sym", true), true);
  ASSERT_EQ(wrote.status, 0) << wrote.out;
  EXPECT_NE(wrote.out.find("2 rank classes"), std::string::npos) << wrote.out;
  // Two traces instead of sixteen.
  EXPECT_TRUE(fs::exists(dir / "sym" / "class.1.et"));
  EXPECT_FALSE(fs::exists(dir / "sym" / "class.2.et"));

  const CliRun full = testing_support::run_chorus(
      sim(dir / "full", {"--comm-groups", (dir / "full" / "comm_groups.json").string()}), false);
  const CliRun sym = testing_support::run_chorus(sim(dir / "sym", {}), false);
  ASSERT_EQ(full.status, 0) << full.out;
  ASSERT_EQ(sym.status, 0) << sym.out;
  const nlohmann::json f = nlohmann::json::parse(full.out);
  const nlohmann::json s = nlohmann::json::parse(sym.out);
  EXPECT_EQ(s["npus"], 16);
  EXPECT_EQ(s["rank_classes"], 2);
  EXPECT_EQ(s["finish_ns"], f["finish_ns"]);
  ASSERT_EQ(s["per_npu"].size(), 16u);
  for (size_t r = 0; r < 16; ++r)
    EXPECT_EQ(s["per_npu"][r]["finish_ns"], f["per_npu"][r]["finish_ns"]) << "rank " << r;
}

void expect_one_line_error(const CliRun& run, const std::vector<std::string>& needles) {
  EXPECT_EQ(run.status, 2) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_TRUE(run.err.starts_with("error: ")) << run.err;
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << run.err;
  for (const std::string& n : needles)
    EXPECT_NE(run.err.find(n), std::string::npos) << run.err << " does not name " << n;
}

TEST(SymmetricCli, InconsistentClassesAreOneLineAndExit2) {
  const fs::path dir = fresh("bad");
  ASSERT_EQ(testing_support::run_chorus(generate(dir, true), true).status, 0);
  nlohmann::json j;
  std::ifstream(dir / "classes.json") >> j;
  j["classes"][1]["ranks"][0]["count"] = 4;  // stage 1 keeps 4 of its 8 ranks
  std::ofstream(dir / "classes.json") << j.dump();
  expect_one_line_error(testing_support::run_chorus_split(sim(dir, {})),
                        {"classes.json", "classes", "cover 12 of the 16 ranks"});

  j["classes"][1]["ranks"][0]["count"] = 8;
  j["groups"]["1"]["replicas"]["stride"] = 4;  // TP copies {0,1}, {4,5}, {8,9}: the third leaves stage 0
  std::ofstream(dir / "classes.json") << j.dump();
  expect_one_line_error(testing_support::run_chorus_split(sim(dir, {})), {"classes.json", "groups.1", "replica 2"});

  expect_one_line_error(testing_support::run_chorus_split(sim(dir, {"--comm-groups", "groups.json"})),
                        {"--comm-groups", "symmetric"});

  // The classes are fine again, the network too small.
  j["groups"]["1"]["replicas"]["stride"] = 2;
  std::ofstream(dir / "classes.json") << j.dump();
  expect_one_line_error(testing_support::run_chorus_split({"sim", "--workload", dir.string(), "--topology", "ring:8",
                                                           "--bandwidth", "25GB/s", "--latency", "1us"}),
                        {"16 ranks (classes.json: npus)", "8 NPUs"});
}

}  // namespace
}  // namespace chorus
