// CLI tests of `chorus hlo analyze`, `validate` and `calibrate`: JSON fields, CSV rows, the fit, and one-line errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

using testing_support::run_chorus;

std::string data(const std::string& name) {
  return std::string(CHORUS_SOURCE_DIR) + "/tests/data/hlo/" + name;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("chorus_hlo_" + name);
  std::ofstream(path) << text;
  return path.string();
}

const char* kModule =
    "HloModule m\nENTRY %e {\n  %a = f32[1000] parameter(0)\n  %b = f32[1000] negate(f32[1000] %a)\n"
    "  ROOT %d = f32[1000] add(f32[1000] %b, f32[1000] %a)\n}\n";

TEST(HloCli, AnalyzeJsonListsInstructionsAndComputations) {
  const std::string file = write_temp("m.hlo", kModule);
  const auto r = run_chorus({"hlo", "analyze", file, "--system", data("round_system.json"), "--json"}, false);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["instructions"].size(), 3u);
  const auto& add = j["instructions"][2];
  EXPECT_EQ(add["name"], "d");
  EXPECT_EQ(add["opcode"], "add");
  EXPECT_EQ(add["computation"], "e");
  EXPECT_DOUBLE_EQ(add["flops"].get<double>(), 1000);
  EXPECT_DOUBLE_EQ(add["bytes"].get<double>(), 12000);
  EXPECT_NEAR(add["time_ns"].get<double>(), 120, 1e-9);  // 12000 B at 100 GB/s
  ASSERT_EQ(j["computations"].size(), 1u);
  EXPECT_NEAR(j["computations"][0]["time_ns"].get<double>(), 200, 1e-9);  // negate 80 ns then add 120 ns
  std::remove(file.c_str());
}

TEST(HloCli, OneStreamRunsIndependentOpsOneAfterTheOther) {
  // Two independent negates (80 ns each at 100 GB/s) then their add (120 ns): the critical path runs the negates at
  // once (80 + 120 = 200 ns); one stream, as a device and chorus sim run them, one after the other (280 ns).
  const std::string file =
      write_temp("two.hlo",
                 "HloModule m\nENTRY %e {\n  %a = f32[1000] parameter(0)\n  %b = f32[1000] negate(f32[1000] %a)\n"
                 "  %c = f32[1000] negate(f32[1000] %a)\n  ROOT %d = f32[1000] add(f32[1000] %b, f32[1000] %c)\n}\n");
  const auto r = run_chorus({"hlo", "analyze", file, "--system", data("round_system.json"), "--json"}, false);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["computations"][0]["time_ns"].get<double>(), 200, 1e-9);
  EXPECT_NEAR(j["computations"][0]["stream_time_ns"].get<double>(), 280, 1e-9);
  std::remove(file.c_str());
}

TEST(HloCli, OneStreamIsWhatSimGivesTheConvertedTraces) {
  // The DLRM module on the 4x4x4 torus: analyze's one-stream time and chorus sim on the converted traces agree to
  // 2 % (the traces store whole microseconds, and sim may start a collective's independent successors first).
  const std::string net = std::string(CHORUS_SOURCE_DIR) + "/examples/networks/tpuv3_4x4x4.yml";
  const std::string hlo = data("dlrm_tpuv3_after_optimizations.hlo.txt");
  const auto a = run_chorus({"hlo", "analyze", hlo, "--system", "tpuv3", "--network", net, "--json"}, false);
  ASSERT_EQ(a.status, 0);
  double stream_ns = 0;
  const nlohmann::json analysis = nlohmann::json::parse(a.out);
  for (const auto& c : analysis["computations"])
    if (c["role"] == "entry")
      stream_ns = c["stream_time_ns"].get<double>();
  const auto dir = std::filesystem::temp_directory_path() / "chorus_hlo_stream";
  std::filesystem::remove_all(dir);
  ASSERT_EQ(
      run_chorus({"hlo", "convert", hlo, "--system", "tpuv3", "--npus", "64", "--out", (dir / "tr").string()}, false)
          .status,
      0);
  ASSERT_EQ(run_chorus({"sim", "--workload", (dir / "tr" / "hlo").string(), "--comm-groups",
                        (dir / "tr" / "comm_groups.json").string(), "--network", net, "--out", (dir / "res").string()},
                       false)
                .status,
            0);
  std::ifstream in(dir / "res" / "summary.json");
  const double sim_ns = nlohmann::json::parse(in)["finish_ns"].get<double>();
  EXPECT_NEAR(stream_ns / sim_ns, 1.0, 0.02) << stream_ns << " vs " << sim_ns;
  std::filesystem::remove_all(dir);
}

TEST(HloCli, AnalyzeCsvWritesOneRowPerInstruction) {
  const std::string file = write_temp("c.hlo", kModule);
  const std::string csv = (std::filesystem::temp_directory_path() / "chorus_hlo_ops.csv").string();
  const auto r = run_chorus({"hlo", "analyze", file, "--system", data("round_system.json"), "--csv", csv}, false);
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(csv);
  std::string line;
  int rows = 0;
  std::getline(in, line);
  EXPECT_EQ(line, "computation,name,opcode,category,flops,transcendentals,bytes,bound,time_ns");
  while (std::getline(in, line))
    ++rows;
  EXPECT_EQ(rows, 3);
  std::remove(file.c_str());
  std::remove(csv.c_str());
}

void expect_one_line_error(const std::vector<std::string>& args, const std::string& needle) {
  const auto r = run_chorus(args, true);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(r.out.rfind("error: ", 0), 0u) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_NE(r.out.find(needle), std::string::npos) << r.out;
}

TEST(HloCli, BadModulesExitTwoWithFileAndLine) {
  const std::string truncated = write_temp("trunc.hlo", "HloModule t\nENTRY %e {\n  %a = f32[4] parameter(0)\n");
  expect_one_line_error({"hlo", "analyze", truncated}, truncated + ": line 2, column 10: expected a '}'");
  const std::string undefined =
      write_temp("undef.hlo", "HloModule t\nENTRY %e {\n  ROOT %b = f32[4] negate(f32[4] %q)\n}\n");
  expect_one_line_error({"hlo", "analyze", undefined}, undefined + ": line 3, column 3: operand %q");
  const std::string shape = write_temp("shape.hlo", "HloModule t\nENTRY %e {\n  ROOT %a = f32[4 parameter(0)\n}\n");
  expect_one_line_error({"hlo", "analyze", shape}, shape + ": line 3, column 19: expected ',' or ']'");
  const std::string tiling =
      write_temp("tiling.hlo", "HloModule t\nENTRY %e {\n  ROOT %a = f32[4]{0:T(8,0)} parameter(0)\n}\n");
  expect_one_line_error({"hlo", "analyze", tiling}, tiling + ": line 3, column 26: expected a tile size >= 1");
  std::remove(truncated.c_str());
  std::remove(undefined.c_str());
  std::remove(shape.c_str());
  std::remove(tiling.c_str());
}

TEST(HloCli, ReplicaGroupsThatDoNotFitNpusExitTwo) {
  const std::string file = write_temp(
      "groups.hlo",
      "HloModule r\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
      "  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n}\nENTRY %e {\n  %a = f32[8] parameter(0)\n"
      "  ROOT %r = f32[8] all-reduce(f32[8] %a), replica_groups={{0,1},{2,3}}, to_apply=%add\n}\n");
  expect_one_line_error({"hlo", "analyze", file, "--npus", "2"}, file + ": line 9, column 3: replica_groups of %r");
  std::remove(file.c_str());
}

const char* kGroupedAllReduce =
    "HloModule r\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
    "  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n}\nENTRY %e {\n  %a = f32[1048576] parameter(0)\n"
    "  ROOT %r = f32[1048576] all-reduce(f32[1048576] %a), replica_groups={{0,1,2,3},{4,5,6,7}}, to_apply=%add\n}\n";

TEST(HloCli, AnalyzeTimesCollectivesOnTheGivenTopology) {
  // Each group of 4 on switch:8 (50 GB/s, 500 ns per link) is a logical ring whose hop crosses 2 links:
  // 2 (4 - 1) steps of 4194304 / 4 B, each 1000 ns + 20971.52 ns: 131829.12 ns. Lower bound on the group's star:
  // 2 * 3/4 * 4194304 B / 50 GB/s = 125829.12 ns.
  const std::string file = write_temp("net.hlo", kGroupedAllReduce);
  const auto r = run_chorus({"hlo", "analyze", file, "--system", data("round_system.json"), "--topology", "switch:8",
                             "--bandwidth", "50GB/s", "--latency", "500ns", "--json"},
                            false);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  const auto& ar = j["instructions"].back();
  EXPECT_EQ(ar["name"], "r");
  EXPECT_NEAR(ar["time_ns"].get<double>(), 131829.12, 1e-3);
  EXPECT_NEAR(ar["lower_bound_ns"].get<double>(), 125829.12, 1e-3);
  EXPECT_EQ(ar["below_bound"], false);
  EXPECT_NE(j["network"].get<std::string>().find("switch:8"), std::string::npos) << j["network"];
  // The text report says where the collectives ran.
  const auto t = run_chorus({"hlo", "analyze", file, "--topology", "switch:8", "--bandwidth", "50GB/s", "--latency",
                             "500ns", "--model", "flow"},
                            false);
  ASSERT_EQ(t.status, 0) << t.out;
  EXPECT_NE(t.out.find("collectives timed on switch:8 (8 NPUs, flow model"), std::string::npos) << t.out;
  std::remove(file.c_str());
}

TEST(HloCli, CollectiveBelowItsLowerBoundIsFlagged) {
  // switch:4 at 1 GB/s, replica_groups={} (the whole network), ASTRA-sim's direct All-Reduce of M = 8 MB from
  // --collective-system: the unaware model gives each of an NPU's 3 concurrent sends the full link, about
  // 2 x M / (4 B) = 4 ms, below the star's bound 2 x 3/4 x M / B = 12 ms; the flow model shares the up-link.
  const std::string file = write_temp(
      "direct.hlo",
      "HloModule r\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
      "  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n}\nENTRY %e {\n  %a = f32[2000000] parameter(0)\n"
      "  ROOT %r = f32[2000000] all-reduce(f32[2000000] %a), replica_groups={}, to_apply=%add\n}\n");
  const std::vector<std::string> args = {"hlo",
                                         "analyze",
                                         file,
                                         "--system",
                                         data("round_system.json"),
                                         "--topology",
                                         "switch:4",
                                         "--bandwidth",
                                         "1GB/s",
                                         "--latency",
                                         "1us",
                                         "--collective-system",
                                         data("direct_collective_system.json"),
                                         "--json"};
  const auto r = run_chorus(args, false);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto ar = nlohmann::json::parse(r.out)["instructions"].back();
  EXPECT_NEAR(ar["lower_bound_ns"].get<double>(), 12e6, 1e-3);
  EXPECT_LT(ar["time_ns"].get<double>(), 5e6);
  EXPECT_EQ(ar["below_bound"], true);
  EXPECT_EQ(ar["algorithm"], "direct");
  std::vector<std::string> flow = args;
  flow.insert(flow.end(), {"--model", "flow"});
  const auto f = run_chorus(flow, false);
  ASSERT_EQ(f.status, 0) << f.out;
  const auto far = nlohmann::json::parse(f.out)["instructions"].back();
  EXPECT_EQ(far["below_bound"], false);
  EXPECT_GE(far["time_ns"].get<double>(), 12e6);
  // Without --json the table marks it and stderr warns.
  std::vector<std::string> text(args.begin(), args.end() - 1);
  const auto t = run_chorus(text, true);
  EXPECT_NE(t.out.find("warning: %r takes"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("BELOW ITS LOWER BOUND"), std::string::npos) << t.out;
  std::remove(file.c_str());
}

TEST(HloCli, WithoutANetworkTheSystemInterconnectIsNamed) {
  const std::string file = write_temp("nonet.hlo", kGroupedAllReduce);
  const auto r =
      run_chorus({"hlo", "analyze", file, "--system", data("round_system.json"), "--npus", "8", "--json"}, false);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j["network"].get<std::string>().find("round interconnect: ring formulas"), std::string::npos);
  EXPECT_FALSE(j["instructions"].back().contains("lower_bound_ns"));
  std::remove(file.c_str());
}

TEST(HloCli, BadNetworkOptionsExitTwo) {
  const std::string file = write_temp("badnet.hlo", kGroupedAllReduce);
  const std::string missing = "/nonexistent/chorus_net.yml";
  expect_one_line_error({"hlo", "analyze", file, "--network", missing}, missing);
  expect_one_line_error({"hlo", "convert", file, "--npus", "8", "--out", "/tmp/unused", "--network", missing}, missing);
  expect_one_line_error({"hlo", "analyze", file, "--model", "flow"}, "--model");
  const std::vector<std::string> switch8 = {"--topology", "switch:8", "--bandwidth", "50GB/s", "--latency", "500ns"};
  std::vector<std::string> args = {"hlo", "analyze", file, "--model", "fast"};
  args.insert(args.end(), switch8.begin(), switch8.end());
  expect_one_line_error(args, "--model");
  expect_one_line_error({"hlo", "analyze", file, "--collective-system", "x.json"}, "--collective-system");
  args = {"hlo", "analyze", file, "--collective-system", "/nonexistent/chorus_sys.json"};
  args.insert(args.end(), switch8.begin(), switch8.end());
  expect_one_line_error(args, "/nonexistent/chorus_sys.json");
  expect_one_line_error({"hlo", "analyze", file, "--topology", "switch:4", "--bandwidth", "50GB/s", "--latency", "1ns"},
                        "replica_groups of %r names device 4; expected ids below --npus 4");
  args = {"hlo", "analyze", file, "--npus", "16"};
  args.insert(args.end(), switch8.begin(), switch8.end());
  expect_one_line_error(args, "--npus: is 16; the network has only 8 NPUs");
  std::remove(file.c_str());
}

TEST(HloCli, UnknownSystemExitsTwo) {
  const std::string file = write_temp("sys.hlo", kModule);
  expect_one_line_error({"hlo", "analyze", file, "--system", "tpuv9"}, "'tpuv9' is neither a preset");
  const std::string bad = write_temp("bad_system.json", "{\"base\": \"tpuv3\", \"memory_bandwidth\": -1}");
  expect_one_line_error({"hlo", "analyze", file, "--system", bad}, bad + ": memory_bandwidth: is -1");
  std::remove(file.c_str());
  std::remove(bad.c_str());
}

TEST(HloCli, DlrmModuleAnalyzesWithoutWarnings) {
  const auto r = run_chorus(
      {"hlo", "analyze", data("dlrm_tpuv3_after_optimizations.hlo.txt"), "--system", "tpuv3", "--json"}, true);
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(r.out.find("warning:"), std::string::npos);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["warnings"].empty());
}

// "op_overhead" adds a fixed time to each op that does work: negate 80 ns and add 120 ns become 130 and 170 ns;
// the parameter stays free.
TEST(HloCli, OpOverheadIsAddedToEachOpThatDoesWork) {
  const std::string file = write_temp("overhead.hlo", kModule);
  const std::string system = write_temp(
      "overhead_system.json",
      "{\"name\": \"round\", \"matrix_flops\": {\"f32\": 1e12}, \"vector_flops\": 1e11, \"memory_bandwidth\": 1e11,"
      " \"op_overhead\": 5e-8}");
  const auto r = run_chorus({"hlo", "analyze", file, "--system", system, "--json"}, false);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["instructions"][0]["time_ns"].get<double>(), 0, 1e-9);
  EXPECT_NEAR(j["instructions"][1]["time_ns"].get<double>(), 130, 1e-9);
  EXPECT_NEAR(j["instructions"][2]["time_ns"].get<double>(), 170, 1e-9);
  EXPECT_NEAR(j["computations"][0]["time_ns"].get<double>(), 300, 1e-9);
  std::remove(file.c_str());
  std::remove(system.c_str());
}

TEST(HloCli, CalibrateBadInputExitsTwoNamingFileAndField) {
  const std::string file = write_temp("o.hlo", kModule);
  const std::string bad = write_temp("bad_overhead.json", "{\"base\": \"tpuv3\", \"op_overhead\": -1}");
  expect_one_line_error({"hlo", "analyze", file, "--system", bad}, bad + ": op_overhead: is -1; expected seconds");
  const std::string profile = write_temp("no_time.csv", "Category,HLO op\nx,y\n");
  expect_one_line_error({"hlo", "calibrate", profile}, profile + ": Avg. self time (us): column is missing");
  const std::string fusions =
      write_temp("fusions.csv",
                 "Category,HLO op,Avg. self time (us),Measured GFLOP/s,Measured Memory BW (GiB/s),Bound by\n"
                 "loop fusion,\"%fusion.1 = f32[4]{0} fusion(f32[4]{0} %a), kind=kLoop, calls=%f\",1,0,0,HBM\n");
  expect_one_line_error({"hlo", "calibrate", fusions}, fusions + ": HLO op: no row rebuilds");
  std::remove(file.c_str());
  std::remove(bad.c_str());
  std::remove(profile.c_str());
  std::remove(fusions.c_str());
}

// The fit on the bert and resnet TPU v3 profiles (docs/hlo.md, "Seven TPU v3 profiles"): fitted on both, the aggregate
// predicted / measured time is within the 20% on each, and closer than the preset's; the matrix efficiency
// lands on what the one large matmul measured (0.80 of peak, `hlo validate`'s convolution row); leave-one-out is
// reported for each profile (it misses the floor: docs/hlo.md says why). The fitted system file reads back and
// reproduces the fitted ratio.
TEST(HloCli, CalibrateOnTheTpuV3Profiles) {
  const std::string out = (std::filesystem::temp_directory_path() / "chorus_hlo_fitted.json").string();
  const auto r = run_chorus({"hlo", "calibrate", data("bert_tpuv3_op_profile.csv"), data("resnet_tpuv3_op_profile.csv"),
                             "--system", "tpuv3", "--out", out, "--json"},
                            false);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["profiles"].size(), 2u);
  const auto& bert = j["profiles"][0];
  const auto& resnet = j["profiles"][1];
  EXPECT_EQ(bert["ops_fitted"], 236);
  EXPECT_EQ(resnet["ops_fitted"], 5);
  for (const auto* p : {&bert, &resnet}) {
    const double before = (*p)["aggregate_ratio_before"].get<double>();
    const double fitted = (*p)["aggregate_ratio_fitted"].get<double>();
    EXPECT_NEAR(fitted, 1.0, 0.20) << (*p).dump();
    EXPECT_LT(std::fabs(fitted - 1), std::fabs(before - 1)) << (*p).dump();
    EXPECT_GT((*p)["aggregate_ratio_leave_one_out"].get<double>(), 0) << (*p).dump();
  }
  EXPECT_NEAR(j["fitted"]["efficiency"]["matrix"].get<double>(), 0.80, 0.02);
  EXPECT_GE(j["fitted"]["op_overhead_s"].get<double>(), 0);
  const auto again =
      run_chorus({"hlo", "calibrate", data("bert_tpuv3_op_profile.csv"), "--system", out, "--json"}, false);
  ASSERT_EQ(again.status, 0) << again.out;
  const auto k = nlohmann::json::parse(again.out);
  EXPECT_NEAR(k["profiles"][0]["aggregate_ratio_before"].get<double>(),
              j["profiles"][0]["aggregate_ratio_fitted"].get<double>(), 1e-9);
  std::remove(out.c_str());
}

// Each op profile of validation/hlo reads and rebuilds (exit 0, every data row counted: `wc -l` less the header),
// and calibrate on the two smallest prints each one's leave-one-out ratio, in the table (the profile column as wide
// as the longest path) and in the JSON, where each left-out fit saw the ops the other profile fitted.
TEST(HloCli, ValidationProfilesValidateAndCalibrate) {
  const std::string dir = std::string(CHORUS_SOURCE_DIR) + "/validation/hlo/hlo_after_optimizations_";
  for (const auto& [name, rows] : {std::pair{"dlrm", 240}, std::pair{"maskrcnn", 2573}, std::pair{"nmt", 2361},
                                   std::pair{"ssd", 4698}, std::pair{"transformer", 921}}) {
    const auto r = run_chorus({"hlo", "validate", dir + name + "_32_tpuv3_stats.csv", "--json"}, false);
    ASSERT_EQ(r.status, 0) << name << ": " << r.out;
    EXPECT_EQ(nlohmann::json::parse(r.out)["ops"], rows) << name;
  }
  const std::string dlrm = dir + "dlrm_32_tpuv3_stats.csv";
  const std::string transformer = dir + "transformer_32_tpuv3_stats.csv";
  const auto j = run_chorus({"hlo", "calibrate", dlrm, transformer, "--json"}, false);
  ASSERT_EQ(j.status, 0) << j.out;
  const auto k = nlohmann::json::parse(j.out);
  ASSERT_EQ(k["profiles"].size(), 2u);
  for (const auto& p : k["profiles"]) {
    EXPECT_GT(p["aggregate_ratio_leave_one_out"].get<double>(), 0) << p.dump();
    EXPECT_EQ(p["leave_one_out_fit"]["ops"].get<int>() + p["ops_fitted"].get<int>(), k["fitted"]["ops"].get<int>());
  }
  const auto t = run_chorus({"hlo", "calibrate", dlrm, transformer}, false);
  ASSERT_EQ(t.status, 0) << t.out;
  const auto header = t.out.find("\nprofile");
  const auto row = t.out.find("\n" + transformer);
  ASSERT_NE(header, std::string::npos) << t.out;
  ASSERT_NE(row, std::string::npos) << t.out;
  // Every column is fixed width, so the header and the longest path's row are equally long.
  const auto line_length = [&](size_t from) { return t.out.find('\n', from + 1) - from; };
  EXPECT_EQ(line_length(header), line_length(row)) << t.out;
}

}  // namespace
}  // namespace chorus
