// `chorus collective --algorithm ring,nccl,synth`: several algorithms over the same sizes in one table, CSV, JSON
// lines and chart. Hand values on ring:8 at 50 GB/s and 1 us (as size_sweep_cli_test.cpp works them out): the ring
// All-Reduce takes 14 (1 us + M / 400 GB/s), 294 us at 8 MB and 574 us at 16 MB; the bound is 140 and 280 us. Each
// algorithm's rows must also be what the same algorithm gives alone (the comparison adds no model of its own).
#include <fstream>
#include <iterator>
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

using testing_support::CliRun;
using testing_support::expect_input_error;
using testing_support::run_chorus_split;

const std::vector<std::string> kRing = {"--topology", "ring:8", "--bandwidth", "50GB/s", "--latency", "1us"};
const std::vector<std::string> kH100 = {"--machine", "dgx-h100", "--nodes", "2"};

std::vector<std::string> args_with(std::vector<std::string> args, const std::vector<std::string>& where) {
  args.insert(args.begin() + 1, where.begin(), where.end());
  return args;
}

std::vector<nlohmann::json> jsonl(const CliRun& run) {
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  std::vector<nlohmann::json> out;
  std::istringstream in(run.out);
  for (std::string line; std::getline(in, line);)
    out.push_back(nlohmann::json::parse(line));
  return out;
}

// The rows of one algorithm, by size.
std::map<int64_t, nlohmann::json> rows_of(const std::vector<nlohmann::json>& rows, const std::string& algorithm) {
  std::map<int64_t, nlohmann::json> out;
  for (const nlohmann::json& j : rows) {
    if (j.value("algorithm", "") == algorithm)
      out[j["size_bytes"].get<int64_t>()] = j;
  }
  return out;
}

TEST(AlgorithmComparisonCli, RingRowsMatchTheHandValuesAndSynthItsOwnSweep) {
  const auto rows = jsonl(run_chorus_split(args_with(
      {"collective", "--collective", "all_reduce", "--size", "8MB,16MB", "--algorithm", "ring,synth", "--jsonl"},
      kRing)));
  ASSERT_EQ(rows.size(), 4u);
  const auto ring = rows_of(rows, "ring");
  const auto synth = rows_of(rows, "synth");
  ASSERT_EQ(ring.size(), 2u);
  ASSERT_EQ(synth.size(), 2u);
  EXPECT_DOUBLE_EQ(ring.at(8000000)["time_ns"].get<double>(), 294000.0);
  EXPECT_DOUBLE_EQ(ring.at(16000000)["time_ns"].get<double>(), 574000.0);
  for (const auto& [size, j] : ring)
    EXPECT_DOUBLE_EQ(j["bound_ns"].get<double>(), size == 8000000 ? 140000.0 : 280000.0);

  const auto alone = jsonl(run_chorus_split(args_with(
      {"collective", "--collective", "all_reduce", "--size", "8MB,16MB", "--algorithm", "synth", "--jsonl"}, kRing)));
  ASSERT_EQ(alone.size(), 2u);
  for (const nlohmann::json& j : alone) {
    const nlohmann::json& compared = synth.at(j["size_bytes"].get<int64_t>());
    EXPECT_DOUBLE_EQ(compared["time_ns"].get<double>(), j["time_ns"].get<double>());
    EXPECT_GE(compared["time_ns"].get<double>(), compared["bound_ns"].get<double>());
  }
  // Exactly one algorithm is the fastest at each size, and it is the one with the shortest time.
  for (const int64_t size : {8000000, 16000000}) {
    const bool synth_faster = synth.at(size)["time_ns"].get<double>() < ring.at(size)["time_ns"].get<double>();
    EXPECT_EQ(synth.at(size)["fastest"].get<bool>(), synth_faster);
    EXPECT_EQ(ring.at(size)["fastest"].get<bool>(), !synth_faster);
  }
}

TEST(AlgorithmComparisonCli, NcclRowsAreTheLibrarysChoiceAlone) {
  const auto rows = jsonl(run_chorus_split(args_with(
      {"collective", "--collective", "all_reduce", "--size", "64MiB,1GiB", "--algorithm", "ring,nccl", "--jsonl"},
      kH100)));
  const auto nccl = rows_of(rows, "nccl");
  ASSERT_EQ(nccl.size(), 2u);
  ASSERT_EQ(rows_of(rows, "ring").size(), 2u);
  const auto alone = jsonl(run_chorus_split(args_with(
      {"collective", "--collective", "all_reduce", "--size", "64MiB,1GiB", "--algorithm", "nccl", "--jsonl"}, kH100)));
  ASSERT_EQ(alone.size(), 2u);
  for (const nlohmann::json& j : alone) {
    const nlohmann::json& compared = nccl.at(j["size"].get<int64_t>());
    // The comparison rounds the library's time to picoseconds.
    EXPECT_NEAR(compared["time_ns"].get<double>(), j["time_ns"].get<double>(), 1e-3);
    EXPECT_EQ(compared["detail"].get<std::string>(), j["nccl_algorithm"].get<std::string>() + "/" +
                                                         j["nccl_protocol"].get<std::string>() + "/" +
                                                         std::to_string(j["channels"].get<int>()));
    EXPECT_EQ(compared["npus"].get<int>(), 16);
  }
}

TEST(AlgorithmComparisonCli, CsvTextAndReportHoldEveryAlgorithm) {
  const std::vector<std::string> base = {"collective", "--collective", "all_reduce", "--size",
                                         "8MB,16MB",   "--algorithm",  "ring,synth"};
  const CliRun csv = run_chorus_split(args_with(
      [&] {
        auto a = base;
        a.push_back("--csv");
        return a;
      }(),
      kRing));
  ASSERT_EQ(csv.status, 0) << csv.err;
  std::istringstream in(csv.out);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u) << csv.out;  // header + 2 algorithms x 2 sizes
  EXPECT_TRUE(lines[0].starts_with("algorithm,size_bytes,count,type,redop,root,time_us,algbw_GBps,busbw_GBps"));
  // 8 MB ring: 294 us; algbw 8e6 / 294e-6 = 27.2109 GB/s; busbw x 14/8 = 47.619 GB/s; bound 140 us.
  EXPECT_EQ(lines[1], "ring,8000000,2000000,float,sum,-1,294,27.2109,47.619,140,");

  const std::string report = testing::TempDir() + "/chorus_algorithm_comparison.html";
  const CliRun text = run_chorus_split(args_with(
      [&] {
        auto a = base;
        a.insert(a.end(), {"--report", report});
        return a;
      }(),
      kRing));
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("algorithms ring, synth"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("fastest"), std::string::npos) << text.out;
  std::ifstream html(report);
  const std::string page((std::istreambuf_iterator<char>(html)), std::istreambuf_iterator<char>());
  for (const char* series : {">ring<", ">synth<", ">lower bound<"})
    EXPECT_NE(page.find(series), std::string::npos) << series;
}

TEST(AlgorithmComparisonCli, BadListsAreOneErrorLine) {
  auto compare = [](const std::string& algorithms, std::vector<std::string> extra,
                    const std::vector<std::string>& where) {
    std::vector<std::string> a = {"collective", "--collective", "all_reduce", "--size",
                                  "8MB",        "--algorithm",  algorithms};
    a.insert(a.end(), extra.begin(), extra.end());
    return testing_support::run_chorus(args_with(a, where), true);
  };
  expect_input_error(compare("ring,nccl", {}, kRing), {"--algorithm", "--machine"});
  expect_input_error(compare("ring,nccl,ring", {}, kH100), {"--algorithm", "'ring' is listed twice"});
  expect_input_error(compare("ring,,nccl", {}, kH100), {"--algorithm", "empty entry"});
  expect_input_error(compare("msccl:x.xml,nccl", {}, kH100), {"--algorithm", "msccl:x.xml"});
  expect_input_error(compare("ring,nccl", {"--explain"}, kH100), {"--explain"});
  expect_input_error(compare("ring,nccl", {"--json"}, kH100), {"--json", "--jsonl"});
  expect_input_error(compare("ring,nccl", {"--chunks", "2"}, kH100), {"--chunks", "synth"});
  expect_input_error(compare("nccl,synth", {"--splits", "2"}, kH100), {"--splits", "built-in"});
  expect_input_error(compare("ring,nccl", {}, {"--machine", "dgx-h100", "--nodes", "0"}), {"nodes"});
}

}  // namespace
}  // namespace chorus
