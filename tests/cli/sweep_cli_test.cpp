// End-to-end runs of `chorus sweep`: a small grid over `chorus bound` checked against hand-derived bounds, resuming
// after a lost row, a failing point recorded as a row, and the bad-input contract (one line naming the file and
// the key, exit 2).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;
using testing_support::CliRun;
using testing_support::run_chorus_split;

class SweepCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("chorus_sweep_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) const {
    const fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string f; std::getline(in, f, ',');)
    fields.push_back(f);
  return fields;
}

// column name -> value, for the row whose first fields are `point`.
std::map<std::string, std::string> row_for(const std::vector<std::string>& lines, const std::string& point) {
  const std::vector<std::string> header = fields_of(lines.at(0));
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].starts_with(point)) {
      const std::vector<std::string> fields = fields_of(lines[i]);
      std::map<std::string, std::string> row;
      for (size_t c = 0; c < header.size() && c < fields.size(); ++c)
        row[header[c]] = fields[c];
      return row;
    }
  }
  return {};
}

const char* kBoundGrid = R"(job: bound
args: [--topology, "ring:8", --bandwidth, 50GB/s, --latency, 0ns]
axes:
  --size: [1GiB, 2GiB]
  collective: [all_gather, reduce_scatter]
)";

// Bidirectional ring of 8 at B = 50 GB/s: the worst cut is all NPUs but one, fed by its 2 in-links, so
// T_AG = T_RS = (M / 8) x 7 / (2 B) = 7 x 2^30 / (8 x 1e11) s = 9,395,240.96 ns for M = 1 GiB (twice for 2 GiB).
TEST_F(SweepCli, GridOverBoundMatchesHandValuesAndResumes) {
  const std::string grid = write("sweep.yml", kBoundGrid);
  const std::string out = path("sweep.csv");
  const CliRun run = run_chorus_split({"sweep", "--grid", grid, "--out", out, "--threads", "2"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("4 points, 4 run (0 failed)"), std::string::npos) << run.out;
  std::vector<std::string> lines = lines_of(out);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_TRUE(lines[0].starts_with("size,collective,status,error,")) << lines[0];
  EXPECT_EQ(row_for(lines, "1GiB,all_gather").at("bound_ns"), "9395240.96");
  EXPECT_EQ(row_for(lines, "1GiB,reduce_scatter").at("bound_ns"), "9395240.96");
  EXPECT_EQ(row_for(lines, "2GiB,all_gather").at("bound_ns"), "18790481.92");
  EXPECT_EQ(row_for(lines, "2GiB,all_gather").at("status"), "ok");

  // A run killed after three rows and half a fourth: the re-run cuts the half row and runs only the missing point.
  std::ofstream(out, std::ios::trunc) << lines[0] << "\n"
                                      << lines[1] << "\n"
                                      << lines[2] << "\n"
                                      << lines[3] << "\n"
                                      << lines[4].substr(0, 10);
  const CliRun again = run_chorus_split({"sweep", "--grid", grid, "--out", out});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_NE(again.out.find("4 points, 1 run (0 failed), 3 already in"), std::string::npos) << again.out;
  const std::vector<std::string> resumed = lines_of(out);
  ASSERT_EQ(resumed.size(), 5u);
  EXPECT_EQ(resumed[4], lines[4]);
}

// Two ranks split the points by index and append to one file: every point exactly once, the same values.
TEST_F(SweepCli, TwoMpiRanksWriteEveryPointOnce) {
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no mpirun";
  const std::string grid = write("sweep.yml", kBoundGrid);
  const std::string out = path("sweep.csv");
#if defined(__SANITIZE_ADDRESS__)
  std::string command = "mpirun -x ASAN_OPTIONS=halt_on_error=1:detect_leaks=0 ";
#else
  std::string command = "mpirun ";
#endif
  command += "--allow-run-as-root --oversubscribe -np 2 ";
  command += testing_support::shell_quote(CHORUS_BINARY);
  command += " sweep --threads 1 --grid " + testing_support::shell_quote(grid) + " --out " +
             testing_support::shell_quote(out) + " >/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0);
  const std::vector<std::string> lines = lines_of(out);
  ASSERT_EQ(lines.size(), 5u);
  std::set<std::string> points;
  for (size_t i = 1; i < lines.size(); ++i)
    points.insert(lines[i].substr(0, lines[i].find(",ok")));
  EXPECT_EQ(points, (std::set<std::string>{"1GiB,all_gather", "1GiB,reduce_scatter", "2GiB,all_gather",
                                           "2GiB,reduce_scatter"}));
  EXPECT_EQ(row_for(lines, "2GiB,reduce_scatter").at("bound_ns"), "18790481.92");
}

TEST_F(SweepCli, FailingPointIsARowNotAFailure) {
  const std::string grid = write("sweep.yml", R"(job: bound
args: [--topology, "ring:4", --bandwidth, 50GB/s, --latency, 0ns, --collective, all_gather]
axes:
  --size: [1GiB, banana]
)");
  const std::string out = path("sweep.jsonl");
  const CliRun run = run_chorus_split({"sweep", "--grid", grid, "--out", out, "--jsonl"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("2 points, 2 run (1 failed)"), std::string::npos) << run.out;
  const std::vector<std::string> lines = lines_of(out);
  ASSERT_EQ(lines.size(), 2u);
  const std::string& bad = lines[0].find("banana") != std::string::npos ? lines[0] : lines[1];
  EXPECT_NE(bad.find("\"status\":\"error\""), std::string::npos) << bad;
  EXPECT_NE(bad.find("--size"), std::string::npos) << bad;
}

TEST_F(SweepCli, BadGridsNameTheFileAndKey) {
  struct Case {
    std::string grid, key;
  };
  const std::vector<Case> cases = {
      {"job: bound\naxes:\n  --sizes: [1GiB]\n", "axes.--sizes"},
      {"job: bound\naxes:\n  --size: []\n", "axes.--size"},
      {"job: frobnicate\naxes:\n  --size: [1GiB]\n", "job"},
      {"job: sweep\naxes:\n  --grid: [a.yml]\n", "job"},
      {"job: generate microbench\naxes:\n  --npus: [8]\n", "job"},
      {"job: bound\nargs: [--json]\naxes:\n  --size: [1GiB]\n", "args"},
      {"job: bound\naxis:\n  --size: [1GiB]\n", "axis"},
      {"job: bound\n", "axes"},
  };
  for (const Case& c : cases) {
    const std::string grid = write("bad.yml", c.grid);
    const CliRun run = run_chorus_split({"sweep", "--grid", grid, "--out", path("out.csv")});
    EXPECT_EQ(run.status, 2) << c.grid;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_NE(run.err.find(grid), std::string::npos) << run.err;
    EXPECT_NE(run.err.find(c.key), std::string::npos) << run.err;
    EXPECT_FALSE(fs::exists(path("out.csv"))) << c.grid;
  }
}

}  // namespace
}  // namespace chorus
