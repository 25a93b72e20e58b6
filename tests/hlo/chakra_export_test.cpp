// Tests of HLO -> Chakra conversion: node kinds, dependencies through tuples and unrolled loops, replica groups,
// and that chorus's workload loader and `chorus sim` accept the result.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "chorus/chakra/trace.hpp"
#include "chorus/hlo/chakra_export.hpp"
#include "chorus/hlo/parser.hpp"
#include "chorus/workload/workload.hpp"
#include "tests/support/cli_runner.hpp"

namespace chorus::hlo {
namespace {

const char* kModule =
    "HloModule x\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
    "  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n}\n"
    "%cond (p: (f32[1000])) -> pred[] {\n  %p = (f32[1000]) parameter(0)\n  ROOT %t = pred[] constant(true)\n}\n"
    "%body (p: (f32[1000])) -> (f32[1000]) {\n  %p = (f32[1000]) parameter(0)\n"
    "  %g = f32[1000] get-tuple-element((f32[1000]) %p), index=0\n  %n = f32[1000] negate(f32[1000] %g)\n"
    "  ROOT %t = (f32[1000]) tuple(f32[1000] %n)\n}\n"
    "ENTRY %e {\n  %a = f32[1000] parameter(0)\n  %b = f32[1000] negate(f32[1000] %a)\n"
    "  %r = f32[1000] all-reduce(f32[1000] %b), replica_groups={{0,1},{2,3}}, to_apply=%add\n"
    "  %t = (f32[1000]) tuple(f32[1000] %r)\n"
    "  %w = (f32[1000]) while((f32[1000]) %t), condition=%cond, body=%body\n"
    "  %g = f32[1000] get-tuple-element((f32[1000]) %w), index=0\n"
    "  ROOT %d = f32[1000] add(f32[1000] %g, f32[1000] %b)\n}\n";

System round_system() {
  System s;
  s.name = "round";
  s.matrix_flops = {{"f32", 1e12}};
  s.vector_flops = 1e11;
  s.memory_bandwidth = 1e11;
  s.network_bandwidth = 1e10;
  return s;
}

std::string out_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("chorus_hlo_export_" + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

TEST(HloChakraExport, UnrolledLoopChainsItsBodiesAndCollectivesUseTheirGroups) {
  const Module m = parse_module(kModule, "x.hlo");
  const Analysis a = analyze(m, round_system(), {.npus = 4, .iterations = 3});
  const std::string dir = out_dir("unrolled");
  const std::string prefix = write_chakra_traces(m, a, dir, {.npus = 4, .iterations = 3});
  const chakra::ChakraTrace t = chakra::read_chakra_trace(prefix + ".2.et");
  // negate, all-reduce, three loop negates, add.
  ASSERT_EQ(t.nodes.size(), 6u);
  EXPECT_EQ(t.nodes[0].type, chakra::NodeType::Comp);
  EXPECT_EQ(t.nodes[0].num_ops, 1000);
  EXPECT_EQ(t.nodes[0].tensor_size, 8000);
  EXPECT_EQ(t.nodes[1].type, chakra::NodeType::CommColl);
  EXPECT_EQ(t.nodes[1].comm_size, 4000);
  EXPECT_EQ(t.nodes[1].pg_name, "hlo_g0_1");  // rank 2 is in the second group {2,3}
  EXPECT_EQ(t.nodes[1].data_deps, (std::vector<uint64_t>{0}));
  EXPECT_EQ(t.nodes[2].data_deps, (std::vector<uint64_t>{1}));
  EXPECT_EQ(t.nodes[3].data_deps, (std::vector<uint64_t>{2}));
  EXPECT_EQ(t.nodes[4].data_deps, (std::vector<uint64_t>{3}));
  EXPECT_EQ(t.nodes[5].data_deps, (std::vector<uint64_t>{0, 4}));
  nlohmann::json groups;
  std::ifstream(dir + "/comm_groups.json") >> groups;
  EXPECT_EQ(groups, nlohmann::json::parse(R"({"hlo_g0_0":[0,1],"hlo_g0_1":[2,3]})"));
  const Workload w = load_workload(prefix, dir + "/comm_groups.json");
  EXPECT_EQ(w.npus.size(), 4u);
  std::filesystem::remove_all(dir);
}

// [2,4]<=[4,2]T(1,0): iota over 8 devices laid out 4x2, transposed to 2x4, cut into 2 groups of 4; row-major
// over the transposed array the groups are {0,2,4,6} and {1,3,5,7}.
TEST(HloChakraExport, TransposedIotaReplicaGroupsAreExpandedWithTheirTranspose) {
  const char* text =
      "HloModule x\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
      "  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n}\n"
      "ENTRY %e {\n  %a = f32[1000] parameter(0)\n"
      "  ROOT %r = f32[1000] all-reduce(f32[1000] %a), replica_groups=[2,4]<=[4,2]T(1,0), to_apply=%add\n}\n";
  const Module m = parse_module(text, "x.hlo");
  const Analysis a = analyze(m, round_system(), {.npus = 8});
  const std::string dir = out_dir("iota_transpose");
  (void)write_chakra_traces(m, a, dir, {.npus = 8});
  nlohmann::json groups;
  std::ifstream(dir + "/comm_groups.json") >> groups;
  EXPECT_EQ(groups, nlohmann::json::parse(R"({"hlo_g0_0":[0,2,4,6],"hlo_g0_1":[1,3,5,7]})"));
  std::filesystem::remove_all(dir);
}

TEST(HloChakraExport, SummarizedLoopIsOneNodeOfTheLoopTime) {
  const Module m = parse_module(kModule, "x.hlo");
  // One summary node for the loop, carrying the FLOPs of one trip (the body's negate: 1000), as XLA counts a while.
  const Analysis a = analyze(m, round_system(), {.npus = 4, .iterations = 5});
  const std::string dir = out_dir("summary");
  const std::string prefix = write_chakra_traces(m, a, dir, {.npus = 4, .iterations = 0});
  const chakra::ChakraTrace t = chakra::read_chakra_trace(prefix + ".0.et");
  ASSERT_EQ(t.nodes.size(), 4u);
  EXPECT_EQ(t.nodes[2].name, "w");
  EXPECT_EQ(t.nodes[2].type, chakra::NodeType::Comp);
  EXPECT_EQ(t.nodes[2].num_ops, 1000);
  EXPECT_EQ(t.nodes[2].data_deps, (std::vector<uint64_t>{1}));
  EXPECT_EQ(t.nodes[3].data_deps, (std::vector<uint64_t>{0, 2}));
  std::filesystem::remove_all(dir);
}

TEST(HloChakraExport, SimRunsTheConvertedDlrmModule) {
  const std::string dir = out_dir("dlrm");
  const auto convert = testing_support::run_chorus(
      {"hlo", "convert", std::string(CHORUS_SOURCE_DIR) + "/tests/data/hlo/dlrm_tpuv3_after_optimizations.hlo.txt",
       "--system", "tpuv3", "--npus", "64", "--out", dir},
      true);
  ASSERT_EQ(convert.status, 0) << convert.out;
  const auto sim = testing_support::run_chorus(
      {"sim", "--workload", dir + "/hlo", "--comm-groups", dir + "/comm_groups.json", "--network",
       std::string(CHORUS_SOURCE_DIR) + "/examples/networks/tpuv3_4x4x4.yml", "--no-bounds"},
      true);
  EXPECT_EQ(sim.status, 0) << sim.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace chorus::hlo
