// `chorus collective|bound --size A:B:xF`: nccl-tests' columns, --csv, --jsonl, --compare against an nccl-tests
// log, and the sweep errors (one line, exit 2). Values are worked out by hand on ring:8 at 50 GB/s and 1 us:
//   ring All-Reduce time 2 (N - 1) (α + M / (N B)) = 14 (1 us + M / 400 GB/s): 294 us at 8 MB, 574 us at 16 MB;
//   bound T*_RS + T*_AG = 2 * 7 M / (16 B) = 140 us at 8 MB, 280 us at 16 MB (the 4 us diameter is below both).
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

using testing_support::CliRun;
using testing_support::run_chorus_split;

const std::vector<std::string> kRing = {"--topology", "ring:8", "--bandwidth", "50GB/s", "--latency", "1us"};

std::vector<std::string> with_ring(std::vector<std::string> args) {
  args.insert(args.begin() + 1, kRing.begin(), kRing.end());
  return args;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

std::vector<std::string> data_rows(const std::string& text) {
  std::vector<std::string> rows;
  for (const std::string& line : lines_of(text)) {
    if (!line.empty() && line[0] != '#')
      rows.push_back(line);
  }
  return rows;
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

TEST(SizeSweepCli, TextTableHasNcclTestsColumnsAndBound) {
  const CliRun run = run_chorus_split(
      with_ring({"collective", "--algorithm", "ring", "--collective", "all_reduce", "--size", "8MB:16MB:x2"}));
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("#       size         count      type   redop    root     time   algbw   busbw    bound"),
            std::string::npos)
      << run.out;
  const std::vector<std::string> rows = data_rows(run.out);
  ASSERT_EQ(rows.size(), 2u) << run.out;
  // size, count (float elements), type, redop, root, time, algbw, busbw, bound, time/bound
  EXPECT_EQ(words(rows[0]), (std::vector<std::string>{"8000000", "2000000", "float", "sum", "-1", "294.00", "27.21",
                                                      "47.62", "140.00", "2.10"}));
  // 16e6 / 574e-6 = 27.87 GB/s; busbw x 14/8 = 48.78; 574 / 280 = 2.05
  EXPECT_EQ(words(rows[1]), (std::vector<std::string>{"16000000", "4000000", "float", "sum", "-1", "574.00", "27.87",
                                                      "48.78", "280.00", "2.05"}));
}

TEST(SizeSweepCli, JsonlHasTheKeysOfJsonPerSize) {
  const CliRun run = run_chorus_split(
      with_ring({"collective", "--algorithm", "ring", "--collective", "all_reduce", "--size", "8MB,16MB", "--jsonl"}));
  ASSERT_EQ(run.status, 0) << run.err;
  const std::vector<std::string> lines = lines_of(run.out);
  ASSERT_EQ(lines.size(), 2u);
  const CliRun single = run_chorus_split(
      with_ring({"collective", "--algorithm", "ring", "--collective", "all_reduce", "--size", "8MB", "--json"}));
  const nlohmann::json one = nlohmann::json::parse(single.out);
  const nlohmann::json first = nlohmann::json::parse(lines[0]);
  for (const auto& [key, value] : one.items())
    EXPECT_TRUE(first.contains(key)) << "missing " << key;
  EXPECT_EQ(first["time_ns"].get<double>(), 294000.0);
  EXPECT_EQ(first["bound_ns"].get<double>(), 140000.0);
  EXPECT_EQ(nlohmann::json::parse(lines[1])["time_ns"].get<double>(), 574000.0);
  EXPECT_EQ(nlohmann::json::parse(lines[1])["size_bytes"].get<int64_t>(), 16000000);
}

TEST(SizeSweepCli, SynthesizedAlgorithmSweepsSizes) {
  // One synthesis per size. On ring:8 the synthesized All-Gather sends each NPU's one chunk both ways round the ring:
  // 4 hops of 1 us + (M / 8) / 50 GB/s. 1 MiB: 4 x 3.62144 = 14.49 us; 2 MiB: 4 x 6.24288 = 24.97 us. busbw =
  // algbw x 7/8; the bound is 7 M / 8 over 2 links of 50 GB/s: 9.18 us and 18.35 us.
  const CliRun run = run_chorus_split(
      with_ring({"collective", "--algorithm", "synth", "--collective", "all_gather", "--size", "1MiB:2MiB:x2"}));
  ASSERT_EQ(run.status, 0) << run.err;
  const std::vector<std::string> rows = data_rows(run.out);
  ASSERT_EQ(rows.size(), 2u) << run.out;
  EXPECT_EQ(words(rows[0]), (std::vector<std::string>{"1048576", "32768", "float", "none", "-1", "14.49", "72.39",
                                                      "63.34", "9.18", "1.58"}));
  EXPECT_EQ(words(rows[1])[5], "24.97");
  EXPECT_NE(run.out.find("algorithm synth"), std::string::npos);
  const CliRun jsonl = run_chorus_split(with_ring(
      {"collective", "--algorithm", "synth", "--collective", "all_gather", "--size", "1MiB,2MiB", "--jsonl"}));
  ASSERT_EQ(jsonl.status, 0) << jsonl.err;
  const nlohmann::json first = nlohmann::json::parse(lines_of(jsonl.out)[0]);
  EXPECT_DOUBLE_EQ(first["time_ns"].get<double>(), 14485.76);
  EXPECT_NEAR(first["busbw_GBps"].get<double>(), 1048576.0 / 14485.76 * 7 / 8, 1e-9);
  // The single-size JSON carries the bandwidths too (a sweep grid's CSV reads them).
  const CliRun one = run_chorus_split(
      with_ring({"collective", "--algorithm", "synth", "--collective", "all_gather", "--size", "1MiB", "--json"}));
  EXPECT_NEAR(nlohmann::json::parse(one.out)["algbw_GBps"].get<double>(), 1048576.0 / 14485.76, 1e-9);
}

TEST(SizeSweepCli, CompareAgainstAnNcclTestsLog) {
  const std::string log = std::string(CHORUS_SOURCE_DIR) + "/tests/data/nccl-tests/all_reduce_perf_ring8.log";
  const CliRun run = run_chorus_split(with_ring({"collective", "--algorithm", "ring", "--collective", "all_reduce",
                                                 "--size", "8MB:16MB:x2", "--compare", log, "--csv"}));
  ASSERT_EQ(run.status, 0) << run.err;
  const std::vector<std::string> lines = lines_of(run.out);
  ASSERT_EQ(lines.size(), 3u) << run.out;
  EXPECT_EQ(lines[0],
            "size_bytes,count,type,redop,root,time_us,algbw_GBps,busbw_GBps,bound_us,ratio,measured_time_us,"
            "measured_inplace_time_us,measured_busbw_GBps,measured_inplace_busbw_GBps,error_pct");
  // measured 300 us and 560 us (out-of-place): (294 - 300) / 300 = -2 %, (574 - 560) / 560 = +2.5 %
  EXPECT_EQ(lines[1], "8000000,2000000,float,sum,-1,294,27.2109,47.619,140,2.1,300,298,46.67,46.98,-2");
  EXPECT_EQ(lines[2], "16000000,4000000,float,sum,-1,574,27.8746,48.7805,280,2.05,560,555,50,50.45,2.5");
}

TEST(SizeSweepCli, CompareTextWarnsWhenNoSizeMatches) {
  const std::string log = std::string(CHORUS_SOURCE_DIR) + "/tests/data/nccl-tests/all_reduce_perf_ring8.log";
  const CliRun run = run_chorus_split(with_ring(
      {"collective", "--algorithm", "ring", "--collective", "all_reduce", "--size", "1MiB", "--compare", log}));
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("no size of the sweep is in"), std::string::npos) << run.out;
}

TEST(SizeSweepCli, BoundSweepScalesTheBound) {
  const CliRun run =
      run_chorus_split(with_ring({"bound", "--collective", "all_gather", "--size", "8MB:32MB:x2", "--csv"}));
  ASSERT_EQ(run.status, 0) << run.err;
  const std::vector<std::string> lines = lines_of(run.out);
  ASSERT_EQ(lines.size(), 4u) << run.out;
  // All-Gather bound 7 M / (16 B): 70, 140, 280 us; algbw M / bound = 16/7 * 50 GB/s = 114.286 GB/s, busbw x 7/8
  EXPECT_EQ(lines[1], "8000000,250000,float,none,-1,70,114.286,100,70,4");
  EXPECT_EQ(lines[3], "32000000,1000000,float,none,-1,280,114.286,100,280,4");
}

void expect_one_error_line(const CliRun& run, const std::vector<std::string>& needles) {
  EXPECT_EQ(run.status, 2) << run.out << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_TRUE(run.err.starts_with("error: ")) << run.err;
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << run.err;
  for (const std::string& needle : needles)
    EXPECT_NE(run.err.find(needle), std::string::npos) << run.err;
}

TEST(SizeSweepCli, BadRangesAndLogsAreOneErrorLine) {
  expect_one_error_line(
      run_chorus_split(with_ring({"collective", "--collective", "all_reduce", "--size", "8GiB:8B:x2"})),
      {"--size", "ends below its start"});
  expect_one_error_line(run_chorus_split(with_ring({"bound", "--collective", "all_reduce", "--size", "8B:8GiB:x1"})),
                        {"--size", "must be > 1"});
  const std::string bad = testing::TempDir() + "/chorus_bad_nccl.log";
  {
    std::FILE* f = std::fopen(bad.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("#  size  count  type  redop  root  time  algbw  busbw #wrong  time  algbw  busbw #wrong\n", f);
    std::fputs("1024 256 float sum -1 12..5 0.1 0.1 0 12.0 0.1 0.1 0\n", f);
    std::fclose(f);
  }
  expect_one_error_line(run_chorus_split(with_ring(
                            {"collective", "--collective", "all_reduce", "--size", "1KiB:4KiB:x2", "--compare", bad})),
                        {bad, "line 2: time", "12..5"});
  expect_one_error_line(
      run_chorus_split(with_ring({"collective", "--collective", "all_reduce", "--size", "1KiB:4KiB:x2", "--json"})),
      {"--json", "--jsonl"});
}

}  // namespace
}  // namespace chorus
