// Determinism: `chorus collective`, `chorus synth` and `chorus sim --out` run twice on the same inputs give the
// same bytes (stdout, --json, every file in --out), except for the wall-clock fields named in kWallClockFields.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;
const std::string kSource = CHORUS_SOURCE_DIR;
const std::string kReference = CHORUS_REFERENCE_DIR;

// The only fields allowed to differ between two runs: how long the run itself took. A JSON key of this name is
// dropped before comparing; a table line starting with one of kWallClockLines is dropped likewise. Anything else
// that changes between runs fails the test, so a new nondeterministic field has to be named here on purpose.
const std::set<std::string> kWallClockFields = {"synthesis_s", "bound_s", "wall_s", "events_per_s"};
const std::vector<std::string> kWallClockLines = {"synthesis "};  // chorus synth: "synthesis    2.167 s (48 runs)"

// Removes the wall-clock keys at every depth.
void drop_wall_clock(nlohmann::ordered_json& j) {
  if (j.is_object()) {
    for (const std::string& key : kWallClockFields)
      j.erase(key);
  }
  if (j.is_structured()) {
    for (auto& value : j)
      drop_wall_clock(value);
  }
}

std::string drop_wall_clock_lines(const std::string& text) {
  std::istringstream in(text);
  std::string kept;
  for (std::string line; std::getline(in, line);) {
    const size_t start = line.find_first_not_of(' ');
    bool wall_clock = false;
    for (const std::string& prefix : kWallClockLines)
      wall_clock = wall_clock || (start != std::string::npos && line.compare(start, prefix.size(), prefix) == 0);
    if (!wall_clock) {
      kept += line;
      kept += '\n';
    }
  }
  return kept;
}

// What a run printed or wrote, without the wall-clock fields: JSON parsed (keeping key order), stripped and
// dumped again; text line by line.
std::string comparable(const std::string& text, bool json) {
  if (!json)
    return drop_wall_clock_lines(text);
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
  drop_wall_clock(j);
  return j.dump(1);
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every file under `dir`, by path relative to it.
std::map<std::string, std::string> files_under(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file())
      files[fs::relative(entry.path(), dir).string()] = read_bytes(entry.path());
  }
  return files;
}

// Runs `args` twice in the same fresh directory (so paths printed are the same), capturing stdout and, when
// `out_dir` is given, every file the run wrote there; both runs must exit 0.
struct TwoRuns {
  std::string first, second;
  std::map<std::string, std::string> first_files, second_files;
};

TwoRuns run_twice(const std::vector<std::string>& args, const fs::path& out_dir = {}) {
  TwoRuns runs;
  for (int i = 0; i < 2; ++i) {
    if (!out_dir.empty()) {
      fs::remove_all(out_dir);
      fs::create_directories(out_dir);
    }
    const testing_support::CliRun run = testing_support::run_chorus(args, false);
    EXPECT_EQ(run.status, 0) << run.out;
    (i == 0 ? runs.first : runs.second) = run.out;
    if (!out_dir.empty())
      (i == 0 ? runs.first_files : runs.second_files) = files_under(out_dir);
  }
  return runs;
}

fs::path fresh(const std::string& name) {
  // The process id keeps two test runs on one machine (two build trees, parallel CI jobs) out of each other's way.
  const fs::path dir = fs::temp_directory_path() / ("chorus_determinism_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool is_json_file(const std::string& name) {
  return name.size() > 5 && name.ends_with(".json");
}

TEST(Determinism, CollectiveTableAndJson) {
  const std::vector<std::string> base = {"collective",
                                         "--network",
                                         kSource + "/examples/networks/ring_fc_switch_4x4x8.yml",
                                         "--system",
                                         kSource + "/examples/systems/hierarchical.json",
                                         "--collective",
                                         "all_reduce",
                                         "--size",
                                         "64MiB",
                                         "--model",
                                         "aware"};
  const TwoRuns table = run_twice(base);
  EXPECT_FALSE(table.first.empty());
  EXPECT_EQ(comparable(table.first, false), comparable(table.second, false));
  std::vector<std::string> json_args = base;
  json_args.push_back("--json");
  const TwoRuns json = run_twice(json_args);
  EXPECT_EQ(comparable(json.first, true), comparable(json.second, true));
}

TEST(Determinism, SynthTableJsonAndFiles) {
  const fs::path dir = fresh("synth");
  const fs::path out = dir / "out";
  const std::vector<std::string> base = {"synth",        "--topology", kReference + "/tacos-inputs/torus2d_4x4.txt",
                                         "--collective", "all_reduce", "--size",
                                         "64MiB",        "--seed",     "3"};
  const TwoRuns table = run_twice(base);
  EXPECT_EQ(comparable(table.first, false), comparable(table.second, false));

  std::vector<std::string> args = base;
  args.insert(args.end(), {"--json", "--out", (out / "ar.xml").string(), "--schedule", (out / "schedule.json").string(),
                           "--chakra", (out / "chakra").string()});
  const TwoRuns runs = run_twice(args, out);
  EXPECT_EQ(comparable(runs.first, true), comparable(runs.second, true));
  ASSERT_EQ(runs.first_files.size(), runs.second_files.size());
  EXPECT_GE(runs.first_files.size(), 2u + 16u);  // the XML, the schedule and one trace per NPU
  for (const auto& [name, bytes] : runs.first_files) {
    ASSERT_TRUE(runs.second_files.count(name)) << name;
    EXPECT_EQ(bytes, runs.second_files.at(name)) << name << " differs between two runs";
  }
  fs::remove_all(dir);
}

TEST(Determinism, SimReportsAndJson) {
  const fs::path dir = fresh("sim");
  const testing_support::CliRun gen =
      testing_support::run_chorus({"generate", "microbench", "--collective", "all_reduce", "--npus", "8", "--size",
                                   "1MiB", "--out", (dir / "traces").string()},
                                  true);
  ASSERT_EQ(gen.status, 0) << gen.out;
  const fs::path out = dir / "out";
  for (const char* model : {"aware", "flow"}) {
    const TwoRuns runs = run_twice(
        {"sim", "--workload", (dir / "traces").string(), "--system",
         kReference + "/astra-sim-inputs/system/ring_1d.json", "--network",
         kReference + "/astra-sim-inputs/network/Ring_8.yml", "--model", model, "--json", "--out", out.string()},
        out);
    EXPECT_EQ(comparable(runs.first, true), comparable(runs.second, true)) << model;
    ASSERT_EQ(runs.first_files.size(), runs.second_files.size()) << model;
    EXPECT_TRUE(runs.first_files.count("summary.json")) << model;
    EXPECT_TRUE(runs.first_files.count("links.csv")) << model;
    for (const auto& [name, bytes] : runs.first_files) {
      ASSERT_TRUE(runs.second_files.count(name)) << name;
      if (is_json_file(name)) {
        EXPECT_EQ(comparable(bytes, true), comparable(runs.second_files.at(name), true)) << model << " " << name;
      } else {
        EXPECT_EQ(bytes, runs.second_files.at(name)) << model << " " << name << " differs between two runs";
      }
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace chorus
