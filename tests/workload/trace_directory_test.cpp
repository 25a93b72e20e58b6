// Exporting into a directory that holds an earlier export: the loader must see only the new one. Counted by hand:
// a 16-rank microbenchmark then an 8-rank one into the same directory leaves 8 rank files, and a symmetric export
// (classes.json + 2 class traces) then an ordinary 8-rank one leaves no classes.json.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;
using testing_support::run_chorus_split;

size_t files_ending(const fs::path& dir, const std::string& suffix) {
  size_t n = 0;
  for (const auto& entry : fs::directory_iterator(dir))
    n += entry.path().filename().string().ends_with(suffix);
  return n;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / (name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

TEST(TraceDirectory, ASmallerExportReplacesTheRankFilesOfALargerOne) {
  const fs::path dir = fresh_dir("chorus_trace_dir_replace");
  for (const char* npus : {"16", "8"}) {
    const auto gen = run_chorus_split({"generate", "microbench", "--collective", "all_reduce", "--npus", npus, "--size",
                                       "1MiB", "--out", dir.string()});
    ASSERT_EQ(gen.status, 0) << gen.err;
  }
  EXPECT_EQ(files_ending(dir, ".et"), 8u);
  const auto sim = run_chorus_split(
      {"sim", "--workload", dir.string(), "--topology", "ring:8", "--bandwidth", "50GB/s", "--latency", "1us"});
  EXPECT_EQ(sim.status, 0) << sim.err;
  fs::remove_all(dir);
}

TEST(TraceDirectory, AnOrdinaryExportRemovesASymmetricOnesClasses) {
  const fs::path dir = fresh_dir("chorus_trace_dir_symmetric");
  const std::vector<std::string> llm = {"generate", "llm", "--model",        "gpt3-1.3b", "--pp",  "2",
                                        "--dp",     "4",   "--microbatches", "2",         "--out", dir.string()};
  std::vector<std::string> symmetric = llm;
  symmetric.push_back("--symmetric");
  ASSERT_EQ(run_chorus_split(symmetric).status, 0);
  ASSERT_TRUE(fs::exists(dir / "classes.json"));
  ASSERT_EQ(run_chorus_split(llm).status, 0);
  EXPECT_FALSE(fs::exists(dir / "classes.json"));
  EXPECT_EQ(files_ending(dir, ".et"), 8u);  // llm.0.et ... llm.7.et, no class.<k>.et
  fs::remove_all(dir);
}

}  // namespace
}  // namespace chorus
