// Report files users open in their own tools: npus.csv beside summary.json, and CSV compressed with gzip when the
// name ends in ".gz".
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

namespace fs = std::filesystem;
using testing_support::run_chorus_split;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string gunzip(const fs::path& path) {
  gzFile in = gzopen(path.c_str(), "rb");
  if (in == nullptr)
    return "";
  std::string text;
  char buffer[4096];
  for (int n; (n = gzread(in, buffer, sizeof buffer)) > 0;)
    text.append(buffer, static_cast<size_t>(n));
  gzclose(in);
  return text;
}

TEST(WritersCli, NpusCsvHoldsSummaryPerNpuRows) {
  const fs::path dir = fs::path(::testing::TempDir()) / "chorus_npus_csv";
  fs::remove_all(dir);
  ASSERT_EQ(run_chorus_split({"generate", "microbench", "--collective", "all_reduce", "--npus", "8", "--size", "1MiB",
                              "--out", (dir / "traces" / "ar").string()})
                .status,
            0);
  const auto sim = run_chorus_split({"sim", "--workload", (dir / "traces" / "ar").string(), "--topology", "ring:8",
                                     "--bandwidth", "50GB/s", "--latency", "1us", "--out", (dir / "out").string()});
  ASSERT_EQ(sim.status, 0) << sim.err;
  const std::vector<std::string> rows = lines_of(read_text(dir / "out" / "npus.csv"));
  ASSERT_EQ(rows.size(), 9u);
  EXPECT_EQ(rows[0], "npu,finish_ns,compute_ns,exposed_comm_ns,peer_wait_ns,idle_ns,nodes,cpu_ns");
  // One ring All-Reduce of 1 MiB on 8 NPUs: 2 (N - 1) (1 us + 1 MiB / 8 / 50 GB/s) = 14 * 3.62144 us = 50700.16 ns,
  // all of it exposed communication, on every NPU.
  for (size_t i = 1; i < rows.size(); ++i)
    EXPECT_EQ(rows[i], std::to_string(i - 1) + ",50700.16,0,50700.16,0,0,1,0") << rows[i];
  const nlohmann::json summary = nlohmann::json::parse(read_text(dir / "out" / "summary.json"));
  EXPECT_EQ(summary["per_npu"][3]["finish_ns"].get<double>(), 50700.16);
}

TEST(WritersCli, LinkStatsAreGzippedWhenTheNameEndsInGz) {
  const fs::path gz = fs::path(::testing::TempDir()) / "chorus_links.csv.gz";
  const auto run =
      run_chorus_split({"collective", "--topology", "ring:4", "--bandwidth", "50GB/s", "--latency", "1us",
                        "--collective", "all_reduce", "--size", "4MB", "--model", "flow", "--link-stats", gz.string()});
  ASSERT_EQ(run.status, 0) << run.err;
  const std::vector<std::string> rows = lines_of(gunzip(gz));
  ASSERT_EQ(rows.size(), 9u);  // header + 8 directed links of a 4-NPU bidirectional ring
  EXPECT_EQ(rows[0], "link,src,dst,bandwidth_GBps,latency_ns,bytes,busy_ns,utilization,peak_flows");
  // A ring All-Reduce of 4 MB sends 2 (p - 1) = 6 messages of 1 MB over each forward link.
  size_t six_mb = 0;
  for (size_t i = 1; i < rows.size(); ++i)
    six_mb += rows[i].find(",6000000,") != std::string::npos;
  EXPECT_EQ(six_mb, 4u);
}

}  // namespace
}  // namespace chorus
