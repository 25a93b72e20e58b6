// `chorus collective --algorithm nccl`, `chorus validate nccl` and `chorus calibrate nccl` as a user runs them: the
// JSON fields scripts read, the explanation, the calibrated machine round trip and one-line errors on bad input.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"
#include "tests/support/input_error.hpp"

namespace chorus {
namespace {

using testing_support::expect_input_error;
using testing_support::run_chorus;

const std::vector<std::string> kH100{"collective", "--machine",    "dgx-h100",  "--algorithm",
                                     "nccl",       "--collective", "all_reduce"};

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

TEST(NcclCli, JsonCarriesTheChoiceAndNcclTestsBandwidths) {
  const auto run = run_chorus(with(kH100, {"--size", "8GiB", "--json", "--explain"}), false);
  ASSERT_EQ(run.status, 0) << run.out;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["nccl_algorithm"], "NVLS");
  EXPECT_EQ(j["nccl_protocol"], "Simple");
  EXPECT_EQ(j["channels"], 8);  // NVLS: one head per GPU
  EXPECT_EQ(j["ranks"], 8);
  // busbw = algbw x 2(n-1)/n; algbw = size / time.
  const double algbw = 8589934592.0 / j["time_ns"].get<double>();
  EXPECT_NEAR(j["algbw_GBps"].get<double>(), algbw, 1e-6);
  EXPECT_NEAR(j["busbw_GBps"].get<double>(), algbw * 14 / 8, 1e-6);
  EXPECT_EQ(j["candidates"].size(), 21u);  // 7 algorithms x 3 protocols
  EXPECT_TRUE(j["bound_ns"].is_number());
}

TEST(NcclCli, SweepPrintsOneRowPerSizeAndExplainListsCandidates) {
  const auto sweep = run_chorus(with(kH100, {"--size", "1KiB:1GiB:x4", "--jsonl"}), false);
  ASSERT_EQ(sweep.status, 0) << sweep.out;
  EXPECT_EQ(std::count(sweep.out.begin(), sweep.out.end(), '\n'), 11);
  const auto text = run_chorus(with(kH100, {"--size", "64MiB", "--explain"}), false);
  ASSERT_EQ(text.status, 0) << text.out;
  EXPECT_NE(text.out.find("<- chosen"), std::string::npos);
  EXPECT_NE(text.out.find("NVLSTree is disabled on one node"), std::string::npos);
}

TEST(NcclCli, OnlyInSwitchReductionBeatsTheBoundOnTheMachinesLinks) {
  // Every preset, 1 and 4 nodes, every collective, 1 KiB to 16 GiB: nothing but NVLS may finish below the bound.
  for (const char* m :
       {"dgx-a100", "dgx-h100", "hgx-h200", "dgx-b200", "gb200-nvl72", "gcp-a3-mega", "mi300x", "mi355x"}) {
    for (const char* nodes : {"1", "4"}) {
      for (const char* c : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"}) {
        const auto run = run_chorus({"collective", "--machine", m, "--nodes", nodes, "--algorithm", "nccl",
                                     "--collective", c, "--size", "1KiB:16GiB:x16"},
                                    true);
        ASSERT_EQ(run.status, 0) << run.out;
        EXPECT_EQ(run.out.find("warning"), std::string::npos) << m << " " << nodes << " " << c << "\n" << run.out;
      }
    }
  }
  const auto nvls = run_chorus(with(kH100, {"--size", "8GiB"}), false);
  EXPECT_NE(nvls.out.find("# below the bound: NVLS"), std::string::npos) << nvls.out;
}

TEST(NcclCli, TextRowsCarryNcclTestsCountRedopAndRoot) {
  // All-Gather of 1 MiB on 8 ranks: nccl-tests counts one rank's share, 1 MiB / 4 B / 8 = 32768 floats, no redop.
  const auto run = run_chorus(
      {"collective", "--machine", "dgx-h100", "--algorithm", "nccl", "--collective", "all_gather", "--size", "1MiB"},
      false);
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("1048576         32768     float    none      -1"), std::string::npos) << run.out;
}

TEST(NcclCli, ReportDrawsTheSweepBesideTheMeasuredRun) {
  namespace fs = std::filesystem;
  const fs::path html = fs::temp_directory_path() / "chorus-nccl-report.html";
  const std::string log =
      std::string(CHORUS_SOURCE_DIR) + "/validation/nccl/dgx-h100-2n-all_reduce-nccltests309/log.txt";
  const auto run =
      run_chorus({"collective", "--machine", "dgx-h100", "--nodes", "2", "--algorithm", "nccl", "--collective",
                  "all_reduce", "--size", "8B:16GiB:x2", "--compare", log, "--jsonl", "--report", html.string()},
                 false);
  ASSERT_EQ(run.status, 0) << run.out;
  std::ifstream in(html);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("NCCL 2.30.7 cost model"), std::string::npos);
  EXPECT_NE(text.find("measured"), std::string::npos);
  fs::remove(html);
}

TEST(NcclCli, CalibratedMachineRoundTrip) {
  namespace fs = std::filesystem;
  const fs::path out = fs::temp_directory_path() / "chorus-nccl-cli-calibrated.json";
  const std::string log =
      std::string(CHORUS_SOURCE_DIR) + "/validation/nccl/dgx-h100-2n-all_reduce-nccltests309/log.txt";
  const auto cal = run_chorus({"calibrate", "nccl", "--log", "all_reduce:" + log, "--machine", "dgx-h100", "--nodes",
                               "2", "--out", out.string()},
                              false);
  ASSERT_EQ(cal.status, 0) << cal.out;
  EXPECT_NE(cal.out.find("leave one size band out"), std::string::npos);
  const auto doc = nlohmann::json::parse(std::ifstream(out));
  EXPECT_EQ(doc["base"], "dgx-h100");
  EXPECT_LT(doc["fit"]["mean_abs_busbw_error_fitted"].get<double>(),
            doc["fit"]["mean_abs_busbw_error_uncalibrated"].get<double>());
  const auto run = run_chorus({"collective", "--machine", out.string(), "--nodes", "2", "--algorithm", "nccl",
                               "--collective", "all_reduce", "--size", "1GiB", "--json"},
                              false);
  ASSERT_EQ(run.status, 0) << run.out;
  fs::remove(out);
}

TEST(NcclCli, ValidateReportsEverySetup) {
  // Three setups of the repository's set (one node NVLS, two nodes, RCCL) copied to their own directory: the whole
  // set's leave-one-setup-out fits take minutes under the sanitizers CI also runs, and bench/ has the full run.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "chorus-nccl-validate-subset";
  fs::remove_all(dir);
  for (const char* setup : {"dgx-h100-1n-all_reduce-nccltests290", "dgx-h100-2n-all_reduce-nccltests309",
                            "mi300x-1n-all_reduce-rocmblog"}) {
    fs::create_directories(dir / setup);
    for (const char* file : {"setup.json", "log.txt"})
      fs::copy_file(fs::path(CHORUS_SOURCE_DIR) / "validation/nccl" / setup / file, dir / setup / file);
  }
  const auto run = run_chorus({"validate", "nccl", "--dir", dir.string(), "--json"}, false);
  ASSERT_EQ(run.status, 0) << run.out;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["setups"].size(), 3u);
  EXPECT_TRUE(j["uncalibrated"]["from_1MiB"].is_number());
  EXPECT_TRUE(j["held_out"]["from_1MiB"].is_number());
  // Every compared size of a setup, sorted by name: nccl-tests#290's 6 sizes from 128 MiB, the first measured at the
  // log's out-of-place 382.99 GB/s; the predicted bus bandwidth is the predicted time's, 2 x 7/8 x bytes / time.
  const auto& rows = j["setups"][0]["rows"];
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0]["bytes"].get<int64_t>(), 134217728);
  EXPECT_NEAR(rows[0]["measured_busbw_GBps"].get<double>(), 382.99, 1e-9);
  EXPECT_NEAR(rows[0]["busbw_GBps"].get<double>(), 1.75 * 134217728 / (rows[0]["time_us"].get<double>() * 1e3), 1e-6);
  EXPECT_EQ(rows[0]["algorithm"], "NVLS");
  EXPECT_TRUE(rows[0]["held_out_busbw_GBps"].is_number());
  fs::remove_all(dir);
}

TEST(NcclCli, BadInputIsOneLine) {
  expect_input_error(run_chorus({"collective", "--machine", "dgx-h10", "--algorithm", "nccl", "--collective",
                                 "all_reduce", "--size", "1MiB"},
                                true),
                     {"machine", "did you mean 'dgx-h100'"});
  expect_input_error(run_chorus(with(kH100, {"--nodes", "0", "--size", "1MiB"}), true), {"--nodes", "is 0"});
  expect_input_error(run_chorus(with(kH100, {"--nodes", "5000", "--size", "1MiB"}), true), {"--nodes", "1024"});
  expect_input_error(run_chorus({"collective", "--topology", "ring:8", "--bandwidth", "50GB/s", "--algorithm", "nccl",
                                 "--collective", "all_reduce", "--size", "1MiB"},
                                true),
                     {"--topology"});
  expect_input_error(run_chorus(with(kH100, {"--size", "1MiB", "--splits", "4"}), true), {"--splits"});
  expect_input_error(run_chorus({"collective", "--machine", "tpu-v4-pod", "--algorithm", "nccl", "--collective",
                                 "all_reduce", "--size", "1MiB"},
                                true),
                     {"tpu-v4-pod", "not a machine NCCL or RCCL runs on"});
  expect_input_error(run_chorus({"collective", "--topology", "ring:8", "--bandwidth", "50GB/s", "--collective",
                                 "all_reduce", "--size", "1MiB", "--explain"},
                                true),
                     {"--explain", "--algorithm nccl"});
  expect_input_error(
      run_chorus({"calibrate", "nccl", "--log", "/nonexistent.log", "--machine", "dgx-h100", "--out", "/tmp/x.json"},
                 true),
      {"/nonexistent.log"});
  expect_input_error(run_chorus({"validate", "nccl", "--dir", "/nonexistent-dir"}, true), {"/nonexistent-dir"});
  namespace fs = std::filesystem;
  const fs::path bad = fs::temp_directory_path() / "chorus-nccl-bad-machine.json";
  for (const auto& [text, field] : std::vector<std::pair<std::string, std::string>>{
           {R"({"chorus_calibrated_machine": 1, "base": "dgx-h100", "nccl_scales": {"intra_bandwidth": 1,
               "inter_bandwidth": 1, "latency": -1}})",
            "nccl_scales.latency"},
           {R"({"chorus_calibrated_machine": 1, "base": "dgx-h1000", "nccl_scales": {}})", "base"},
           {R"({"base": "dgx-h100"})", "chorus_calibrated_machine"},
           {R"({"chorus_calibrated_machine": 1, "base": "dgx-h100", "nccl_scales": {"intra_bandwidth": 1,
               "inter_bandwidth": 1, "latency": 1, "overhead_us": "fast"}})",
            "nccl_scales.overhead_us"},
           {"{", "line 1"}}) {
    std::ofstream(bad) << text;
    expect_input_error(run_chorus({"collective", "--machine", bad.string(), "--algorithm", "nccl", "--collective",
                                   "all_reduce", "--size", "1MiB"},
                                  true),
                       {bad.string(), field});
  }
  fs::remove(bad);
}

}  // namespace
}  // namespace chorus

namespace chorus {
namespace {

TEST(NcclCli, SimTimesEachGroupAsNcclDoes) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "chorus-nccl-sim";
  fs::remove_all(dir);
  // 16 GPUs: TP 4 inside a node, PP 2, DP 2.
  const auto gen =
      run_chorus({"generate", "llm", "--model", std::string(CHORUS_SOURCE_DIR) + "/examples/llm/llama2-7b.json", "--dp",
                  "2", "--tp", "4", "--pp", "2", "--microbatches", "2", "--gpu", "h100-80gb", "--out", dir.string()},
                 false);
  ASSERT_EQ(gen.status, 0) << gen.out;
  const std::vector<std::string> sim{
      "sim",      "--workload", dir.string(), "--comm-groups", (dir / "comm_groups.json").string(), "--machine",
      "dgx-h100", "--nodes",    "2"};
  const auto run = run_chorus(with(sim, {"--collectives", "nccl"}), false);
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("nccl:"), std::string::npos) << run.out;
  // What-if with NCCL's collectives: doubling the NVLink dimension doubles the machine's intra-node bandwidth too.
  const auto what_if = run_chorus(with(sim, {"--collectives", "nccl", "--what-if", "--json"}), false);
  ASSERT_EQ(what_if.status, 0) << what_if.out;
  const auto summary = nlohmann::json::parse(what_if.out);
  const double finish = summary["finish_ns"].get<double>();
  bool seen = false;
  for (const auto& w : summary["what_if"]) {
    if (w["change"] == "dimension 0 bandwidth x2") {
      EXPECT_LT(w["finish_ns"].get<double>(), 0.99 * finish);
      seen = true;
    }
  }
  EXPECT_TRUE(seen);
  expect_input_error(
      run_chorus({"sim", "--workload", dir.string(), "--comm-groups", (dir / "comm_groups.json").string(), "--topology",
                  "ring:16", "--bandwidth", "50GB/s", "--collectives", "nccl"},
                 true),
      {"--collectives", "--machine"});
  expect_input_error(run_chorus(with(sim, {"--collectives", "fast"}), true), {"--collectives", "fast"});
  fs::remove_all(dir);
}

}  // namespace
}  // namespace chorus

namespace chorus {
namespace {

TEST(NcclCli, HloTimesCollectivesAsNcclDoes) {
  const std::string module = std::string(CHORUS_SOURCE_DIR) + "/tests/data/hlo/dlrm_tpuv3_after_optimizations.hlo.txt";
  const std::vector<std::string> base{"hlo", "analyze",   module,     "--system", "h100", "--npus",
                                      "64",  "--machine", "dgx-h100", "--nodes",  "8"};
  const auto run = run_chorus(with(base, {"--collectives", "nccl", "--json"}), false);
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("NCCL's algorithms"), std::string::npos);
  expect_input_error(run_chorus(with(base, {"--collectives", "nccl", "--collective-system",
                                            std::string(CHORUS_SOURCE_DIR) + "/tests/data/hlo/round_system.json"}),
                                true),
                     {"--collective-system", "--collectives nccl"});
}

}  // namespace
}  // namespace chorus
