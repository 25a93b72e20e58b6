// CLI tests of `chorus hlo analyze` and `chorus hlo validate`: JSON fields, CSV rows, and one-line errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

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
  std::remove(truncated.c_str());
  std::remove(undefined.c_str());
  std::remove(shape.c_str());
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

}  // namespace
}  // namespace chorus
