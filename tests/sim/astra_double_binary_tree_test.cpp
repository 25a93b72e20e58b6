// ASTRA-sim compatibility of `doubleBinaryTree` (ASTRA-sim 2.0's DoubleBinaryTreeAllReduce): the trees it builds,
// and finish times worked out by hand from its per-message rules, under the unaware and aware backends, through
// the library and end to end through `chorus collective --system doubleBinaryTree_1d.json`.
//
// Shared numbers (network files: 50 GB/s = 50 * 2^30 / 1e9 B/ns, 500 ns; doubleBinaryTree_1d.json: endpoint
// delay e = 10 ns, local-mem-bw 1600 GB/s, 4 splits). One chunk C = 256 KiB = 262144 B; C / B = 4882.8125 ns;
// reduction r = 3 * floor(262144 / 1600) = 3 * 163 = 489 ns, so e + r = 499 ns.
//   unaware: a message over h hops takes floor(500 h + 4882.8125) = 500 h + 4882 ns (d1 = 5382, d2 = 5882,
//            d4 = 6882, d8 = 8882 on a ring).
//   aware:   each hop takes floor(500 + 4882.8125) = 5382 ns and keeps its link busy for u = 4882 ns; a Switch
//            message crosses NPU->switch and switch->NPU, 10764 ns when no link is busy.
// Rules (one chunk, every message carries the whole chunk): a leaf sends to its parent e after the start and is
// done e after its parent's answer; an intermediate node sends up e + r after its second child's message, and
// sends to its left then right child e + r after its parent's answer (then is done); the root sends back e + r
// after its child's message (then is done). Chunks alternate between the RootMax tree (even chunks) and the
// RootMin tree (odd chunks); each NPU starts chunk c + 1 when it is done with chunk c.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "chorus/astra/system_config.hpp"
#include "chorus/collective/algorithm_names.hpp"
#include "chorus/collective/program.hpp"
#include "chorus/core/error.hpp"
#include "chorus/sim/collective_run.hpp"
#include "chorus/topology/astra_network.hpp"
#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

std::string reference(const std::string& relative) {
  return std::string(CHORUS_REFERENCE_DIR) + "/" + relative;
}

const std::string kSystem = "astra-sim-inputs/system/doubleBinaryTree_1d.json";

// doubleBinaryTree_1d.json's All-Reduce on an ASTRA-sim network file, with `splits` chunks of 256 KiB.
Time run_tree(const std::string& network, uint32_t splits, NetworkModelKind model,
              Evaluation evaluation = Evaluation::Auto) {
  const Topology topology = load_astra_network(reference("astra-sim-inputs/network/" + network + ".yml"));
  CollectiveRunOptions options;
  options.plan = load_astra_system(reference(kSystem)).plan_config(CollectiveKind::AllReduce);
  options.plan.splits = splits;
  options.model = model;
  options.evaluation = evaluation;
  return run_collective(topology, Collective{CollectiveKind::AllReduce, Bytes(262144) * splits, topology.npu_count()},
                        options)
      .time;
}

// member -> the member it sends its partial sum to (the root sends only down, to its single child).
std::map<uint32_t, uint32_t> parents(uint32_t p, uint32_t chunk) {
  PhaseSpec phase{CollectiveKind::AllReduce, AlgorithmChoice{AlgorithmKind::DoubleBinaryTree, 0}, p, Bytes(1024)};
  std::map<uint32_t, uint32_t> out;
  for (uint32_t m = 0; m < p; ++m) {
    const MemberProgram program = member_program(phase, Overheads{}, m, chunk);
    if (program.sends.at(0).to != m)
      out[m] = program.sends.at(0).to;
  }
  return out;
}

TEST(AstraDoubleBinaryTree, BuildsAstraSimsInOrderTrees) {
  // ASTRA-sim numbers a complete tree of p - 1 nodes in order (left subtree, node, right subtree) and hangs it
  // below one extra root. 8 NPUs, RootMax (chunk 0): the complete tree holds 0..6, its root is the middle one, 3,
  // with subtrees 0..2 (root 1) and 4..6 (root 5); the extra root is 7.
  EXPECT_EQ(parents(8, 0), (std::map<uint32_t, uint32_t>{{0, 1}, {1, 3}, {2, 1}, {3, 7}, {4, 5}, {5, 3}, {6, 5}}));
  // RootMin (chunk 1): the extra root is 0, the complete tree holds 1..7 with root 4 over 1..3 (2) and 5..7 (6).
  EXPECT_EQ(parents(8, 1), (std::map<uint32_t, uint32_t>{{1, 2}, {2, 4}, {3, 2}, {4, 0}, {5, 6}, {6, 4}, {7, 6}}));
  EXPECT_EQ(parents(8, 2), parents(8, 0));
  // 16 NPUs, RootMax: 0..14 in order: root 7, then 3 and 11, then 1, 5, 9, 13, leaves the even members; 15 on top.
  EXPECT_EQ(parents(16, 0), (std::map<uint32_t, uint32_t>{{0, 1},
                                                          {1, 3},
                                                          {2, 1},
                                                          {3, 7},
                                                          {4, 5},
                                                          {5, 3},
                                                          {6, 5},
                                                          {7, 15},
                                                          {8, 9},
                                                          {9, 11},
                                                          {10, 9},
                                                          {11, 7},
                                                          {12, 13},
                                                          {13, 11},
                                                          {14, 13}}));
  // RootMin: 1..15 in order: root 8, then 4 and 12, then 2, 6, 10, 14, leaves the odd members; 0 on top.
  EXPECT_EQ(parents(16, 1), (std::map<uint32_t, uint32_t>{{1, 2},
                                                          {2, 4},
                                                          {3, 2},
                                                          {4, 8},
                                                          {5, 6},
                                                          {6, 4},
                                                          {7, 6},
                                                          {8, 0},
                                                          {9, 10},
                                                          {10, 12},
                                                          {11, 10},
                                                          {12, 8},
                                                          {13, 14},
                                                          {14, 12},
                                                          {15, 14}}));
}

TEST(AstraDoubleBinaryTree, EightNpuRingUnawareByHand) {
  // One chunk, RootMax on Ring_8 (tree edges 0,2->1 and 4,6->5 are 1 hop; 1,5->3 are 2 hops; 3->7 is 4 hops):
  //   leaves send at 10, arrive at 1 and 5 at 10 + 5382 = 5392; 1 and 5 send at 5891, 3 has both at
  //   5891 + 5882 = 11773, sends at 12272; 7 has it at 12272 + 6882 = 19154, sends back at 19653;
  //   3 at 26535, sends at 27034; 1 and 5 at 32916, send at 33415; leaves at 38797, done at 38807.
  EXPECT_EQ(run_tree("Ring_8", 1, NetworkModelKind::Unaware), Time::ns(38807));
  // Chunk 1, RootMin: 2 and 6 (leaves of chunk 0, done at 38807) get their children's data no later than
  // that: leaf 1 was done at 33415, sends at 33425, which arrives at 38807; 3 and 7 were done earlier. So 2
  // and 6 send at 38807 + 499 = 39306 and the rest repeats chunk 0 from its second level on (33415 - 5891 later
  // than there: 32916 ns): 39306 + 32916 = 72222.
  EXPECT_EQ(run_tree("Ring_8", 2, NetworkModelKind::Unaware), Time::ns(72222));
}

TEST(AstraDoubleBinaryTree, SixteenNpuRingUnawareByHand) {
  // RootMax on Ring_16: leaf -> level 1 is 1 hop, level 1 -> 2 is 2 hops, 2 -> 3 (member 7) 4 hops, 7 -> 15 is 8.
  //   up: 10 + 5382 = 5392, +499 = 5891, +5882 = 11773, +499 = 12272, +6882 = 19154, +499 = 19653,
  //       +8882 = 28535 (at 15), +499 = 29034 (15 sends back, done);
  //   down: +8882 = 37916, +499 = 38415 (7), +6882 = 45297, +499 = 45796 (3, 11), +5882 = 51678,
  //         +499 = 52177 (1, 5, 9, 13), +5382 = 57559, +10 = 57569 (leaves).
  EXPECT_EQ(run_tree("Ring_16", 1, NetworkModelKind::Unaware), Time::ns(57569));
}

TEST(AstraDoubleBinaryTree, EightNpuSwitchAwareByHand) {
  // RootMax on Switch_8, aware. The two leaves of a node reach the switch together (10 + 5382 = 5392); the
  // switch->parent link takes one (at the parent at 10774) and then the other (5392 + 4882 + 5382 = 15656).
  //   1 and 5 send at 15656 + 499 = 16155; 3 has both at 16155 + 5382 + 4882 + 5382 = 31801, sends at 32300;
  //   7 has it at 32300 + 10764 = 43064, sends back at 43563; 3 at 54327, sends at 54826 to 1, then to 5 after
  //   its uplink frees: 1 at 54826 + 10764 = 65590, 5 at 54826 + 4882 + 10764 = 70472; 1 sends at 66089,
  //   5 at 70971; 5's right child 6 gets it last: 70971 + 4882 + 10764 = 86617, done at 86627.
  EXPECT_EQ(run_tree("Switch_8", 1, NetworkModelKind::Aware), Time::ns(86627));
}

TEST(AstraDoubleBinaryTree, SixteenNpuSwitchAwareByHand) {
  // As on 8 NPUs, each level up costs 5382 + 4882 + 5382 + 499 = 16145 after the first (leaves send at 10,
  // level 1 sends at 16155, level 2 (3, 11) at 32300, level 3 (7) at 48445); 15 has it at 59209, sends at
  // 59708; 7 at 70472, sends at 70971; 3 at 81735 and 11 at 86617 (second on 7's uplink), send at 82234 and
  // 87116; 13 (11's right child) at 87116 + 4882 + 10764 = 102762, sends at 103261; its right child 14 at
  // 103261 + 4882 + 10764 = 118907, done at 118917.
  EXPECT_EQ(run_tree("Switch_16", 1, NetworkModelKind::Aware), Time::ns(118917));
}

TEST(AstraDoubleBinaryTree, RefusesWhatAstraSimCannotRun) {
  // ASTRA-sim's tree needs a power-of-two group and implements only All-Reduce.
  PhaseSpec phase{CollectiveKind::AllReduce, AlgorithmChoice{AlgorithmKind::DoubleBinaryTree, 0}, 6, Bytes(1024)};
  EXPECT_THROW(member_program(phase, Overheads{}, 0), Error);
  phase.group_size = 8;
  phase.kind = CollectiveKind::ReduceScatter;
  EXPECT_THROW(member_program(phase, Overheads{}, 0), Error);
}

TEST(AstraDoubleBinaryTree, NamesSelectAstraSimsTreeOrChorussTwoTree) {
  for (const char* name : {"doubleBinaryTree", "double_binary_tree", "dbt"})
    EXPECT_EQ(parse_algorithm_name(name, "f", "k").choice.kind, AlgorithmKind::DoubleBinaryTree) << name;
  for (const char* name : {"twoTree", "two_tree"})
    EXPECT_EQ(parse_algorithm_name(name, "f", "k").choice.kind, AlgorithmKind::TwoTree) << name;
  EXPECT_EQ(to_string(AlgorithmKind::DoubleBinaryTree), "doubleBinaryTree");
  EXPECT_EQ(to_string(AlgorithmKind::TwoTree), "twoTree");
  // ASTRA-sim has no flattened tree.
  EXPECT_THROW(parse_algorithm_name("oneDoubleBinaryTree", "f", "k"), Error);
}

// ---- end to end through the CLI

nlohmann::json run_cli_json(const std::vector<std::string>& args) {
  const testing_support::CliRun run = testing_support::run_chorus(args, false);
  EXPECT_EQ(run.status, 0) << run.out;
  const nlohmann::json parsed = nlohmann::json::parse(run.out, nullptr, false);
  EXPECT_FALSE(parsed.is_discarded()) << run.out;
  return parsed.is_discarded() ? nlohmann::json::object() : parsed;
}

TEST(AstraDoubleBinaryTreeCli, RingOneMebibyteFourChunks) {
  // 1 MiB in 4 chunks of 256 KiB, trees RootMax, RootMin, RootMax, RootMin. As worked out above, chunk 0 ends
  // at 38807 and each later chunk ends 33415 ns after the previous one on Ring_8: 38807 + 3 * 33415 = 139052.
  nlohmann::json j =
      run_cli_json({"collective", "--network", reference("astra-sim-inputs/network/Ring_8.yml"), "--system",
                    reference(kSystem), "--collective", "all_reduce", "--size", "1MiB", "--json"});
  EXPECT_EQ(j["time_ns"].get<double>(), 139052.0);
  EXPECT_EQ(j["algorithm"].get<std::string>(), "doubleBinaryTree");
  EXPECT_EQ(j["chunks"].get<int>(), 4);
  EXPECT_EQ(j["transfers"].get<int>(), 4 * 2 * 7);  // each chunk: 7 messages up, 7 down
  // Ring_16: chunk 0 ends at 57569; in the next tree the second level (leaves of the previous one) sends 499 ns
  // after it, and the rest takes 57569 - 5891 = 51678 ns as in chunk 0: 52177 ns a chunk.
  j = run_cli_json({"collective", "--network", reference("astra-sim-inputs/network/Ring_16.yml"), "--system",
                    reference(kSystem), "--collective", "all_reduce", "--size", "1MiB", "--json"});
  EXPECT_EQ(j["time_ns"].get<double>(), 57569.0 + 3 * 52177.0);
}

class TempDir {
 public:
  TempDir() : path_(std::filesystem::temp_directory_path() / ("chorus_dbt_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name, const std::string& text) const {
    const std::filesystem::path p = path_ / name;
    std::ofstream(p) << text;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

TEST(AstraDoubleBinaryTreeCli, AwareSwitchOneChunk) {
  // doubleBinaryTree_1d.json with one split, 256 KiB on Switch_8 under the aware backend: one chunk, the
  // 86627 ns worked out in EightNpuSwitchAwareByHand.
  const TempDir dir;
  std::ifstream in(reference(kSystem));
  nlohmann::json system = nlohmann::json::parse(in);
  system["preferred-dataset-splits"] = 1;
  const nlohmann::json j = run_cli_json({"collective", "--network", reference("astra-sim-inputs/network/Switch_8.yml"),
                                         "--system", dir.file("one_split.json", system.dump()), "--collective",
                                         "all_reduce", "--size", "256KiB", "--model", "aware", "--json"});
  EXPECT_EQ(j["time_ns"].get<double>(), 86627.0);
  EXPECT_EQ(j["algorithm"].get<std::string>(), "doubleBinaryTree");
}

TEST(AstraDoubleBinaryTreeCli, LastDimensionOfTwoByFour) {
  // FullyConnected 2 x 4 (50 GB/s, 500 ns each), All-Reduce ["ring", "doubleBinaryTree"], localBWAware, one
  // split of 512 KiB: RS on dim 0, the tree All-Reduce on dim 1 (members NPU b, b + 2, b + 4, b + 6), AG on dim 0.
  //   RS, ring of 2 over 256 KiB messages: 10 + 5382 + 10 + 489 = 5891 on every NPU.
  //   Tree over 4 members on 256 KiB (RootMax: 3 -> 1 -> {0, 2}, 1 hop each): leaves send at 5901, 1 has both
  //   at 11283, sends at 11782; 3 at 17164, sends back at 17663; 1 at 23045, sends at 23544; leaves (members
  //   0 and 2: NPUs 0, 1, 4, 5) at 28926, done at 28936.
  //   AG, ring of 2 sending the 256 KiB each holds: 10 + 5382 + 10 after the pair's entry: 28936 + 5402 = 34338.
  const TempDir dir;
  const std::string network = dir.file("fc2x4.yml",
                                       "topology: [ FullyConnected, FullyConnected ]\nnpus_count: [ 2, 4 ]\n"
                                       "bandwidth: [ 50.0, 50.0 ]\nlatency: [ 500.0, 500.0 ]\n");
  std::ifstream in(reference(kSystem));
  nlohmann::json system = nlohmann::json::parse(in);
  system["preferred-dataset-splits"] = 1;
  system["all-reduce-implementation"] = {"ring", "doubleBinaryTree"};
  const nlohmann::json j =
      run_cli_json({"collective", "--network", network, "--system", dir.file("two_dims.json", system.dump()),
                    "--collective", "all_reduce", "--size", "512KiB", "--json"});
  EXPECT_EQ(j["time_ns"].get<double>(), 34338.0);
  EXPECT_EQ(j["algorithm"].get<std::string>(), "ring,doubleBinaryTree");
}

TEST(AstraDoubleBinaryTreeCli, BadUsesExitTwoNamingFileAndField) {
  const TempDir dir;
  const std::string six =
      dir.file("six.yml", "topology: [ Ring ]\nnpus_count: [ 6 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n");
  testing_support::CliRun run = testing_support::run_chorus(
      {"collective", "--network", six, "--system", reference(kSystem), "--collective", "all_reduce", "--size", "1MiB"},
      true);
  EXPECT_EQ(run.status, 2) << run.out;
  EXPECT_NE(run.out.find("doubleBinaryTree_1d.json"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("all-reduce-implementation"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("power-of-two"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find('\n'), run.out.size() - 1) << run.out;
  // A Reduce-Scatter with doubleBinaryTree: ASTRA-sim's tree implements All-Reduce only.
  std::ifstream in(reference(kSystem));
  nlohmann::json system = nlohmann::json::parse(in);
  system["reduce-scatter-implementation"] = {"doubleBinaryTree"};
  const std::string rs = dir.file("rs.json", system.dump());
  run = testing_support::run_chorus({"collective", "--network", reference("astra-sim-inputs/network/Ring_8.yml"),
                                     "--system", rs, "--collective", "reduce_scatter", "--size", "1MiB"},
                                    true);
  EXPECT_EQ(run.status, 2) << run.out;
  EXPECT_NE(run.out.find("rs.json"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("reduce-scatter-implementation"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find('\n'), run.out.size() - 1) << run.out;
}

}  // namespace
}  // namespace chorus
