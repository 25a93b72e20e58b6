// Tests of HLO timing: roofline bounds, critical paths, loops, collectives and replica groups, by hand calculation.
#include <gtest/gtest.h>

#include <string>

#include "chorus/core/error.hpp"
#include "chorus/hlo/analysis.hpp"
#include "chorus/hlo/parser.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus::hlo {
namespace {

// Round numbers: 1 TFLOP/s matrix, 0.1 TFLOP/s vector, 100 GB/s memory, 10 GB/s network, no latency.
System round_system() {
  System s;
  s.name = "round";
  s.matrix_flops = {{"f32", 1e12}};
  s.vector_flops = 1e11;
  s.memory_bandwidth = 1e11;
  s.network_bandwidth = 1e10;
  return s;
}

Analysis run(const std::string& text, AnalysisOptions o = {}) {
  const Module m = parse_module(text, "t.hlo");  // the analysis keeps indices into it, no references
  return analyze(m, round_system(), o);
}

const InstructionReport& find(const Analysis& a, int index) {
  for (const InstructionReport& r : a.instructions)
    if (r.index == index && r.computation == a.computations.back().index)
      return r;
  throw std::runtime_error("no such instruction");
}

TEST(HloAnalysis, RooflinePicksTheSlowerOfComputeAndMemory) {
  const Analysis a =
      run("HloModule r\nENTRY %e {\n  %a = f32[1000] parameter(0)\n  %s = f32[1000] add(f32[1000] %a, f32[1000] %a)\n"
          "  %x = f32[128,512] parameter(1)\n  %y = f32[512,256] parameter(2)\n"
          "  ROOT %d = f32[128,256] dot(f32[128,512] %x, f32[512,256] %y), lhs_contracting_dims={1}, "
          "rhs_contracting_dims={0}\n}\n");
  // add: 1000 FLOPs / 1e11 = 10 ns; 12000 bytes / 1e11 = 120 ns -> memory bound.
  EXPECT_NEAR(find(a, 1).time_s, 120e-9, 1e-15);
  EXPECT_EQ(find(a, 1).bound, "memory");
  EXPECT_EQ(find(a, 1).category, "non-fusion elementwise");
  // dot: 2*128*256*512 FLOPs / 1e12 = 33.554 us; 917504 bytes / 1e11 = 9.18 us -> compute bound.
  EXPECT_NEAR(find(a, 4).time_s, 2.0 * 128 * 256 * 512 / 1e12, 1e-15);
  EXPECT_EQ(find(a, 4).bound, "compute");
}

TEST(HloAnalysis, CriticalPathFollowsOperandEdges) {
  // negate (80 ns) and exponential (memory 80 ns) in parallel, then add (120 ns): path 200 ns, serial 280 ns.
  const Analysis a =
      run("HloModule r\nENTRY %e {\n  %a = f32[1000] parameter(0)\n  %b = f32[1000] negate(f32[1000] %a)\n"
          "  %c = f32[1000] exponential(f32[1000] %a)\n  ROOT %d = f32[1000] add(f32[1000] %b, f32[1000] %c)\n}\n");
  ASSERT_EQ(a.computations.size(), 1u);
  EXPECT_NEAR(a.computations[0].critical_path_s, 200e-9, 1e-15);
  EXPECT_NEAR(a.computations[0].serial_s, 280e-9, 1e-15);
  EXPECT_EQ(a.computations[0].role, "entry");
}

const char* kLoop =
    "HloModule w\n%cond (p: (f32[1000])) -> pred[] {\n  %p = (f32[1000]) parameter(0)\n  ROOT %t = pred[] "
    "constant(true)\n}\n"
    "%body (p: (f32[1000])) -> (f32[1000]) {\n  %p = (f32[1000]) parameter(0)\n"
    "  %g = f32[1000] get-tuple-element((f32[1000]) %p), index=0\n  %n = f32[1000] negate(f32[1000] %g)\n"
    "  ROOT %t = (f32[1000]) tuple(f32[1000] %n)\n}\n"
    "ENTRY %e {\n  %a = (f32[1000]) parameter(0)\n  ROOT %w = (f32[1000]) while((f32[1000]) %a), condition=%cond, "
    "body=%body";

TEST(HloAnalysis, WhileLoopTimesBodyByTripCount) {
  // Body: one negate of 8000 bytes = 80 ns. Stated trip count 5: 400 ns; unstated with --iterations 3: 240 ns.
  const Analysis stated = run(std::string(kLoop) + ", backend_config={\"known_trip_count\":{\"n\":\"5\"}}\n}\n");
  EXPECT_NEAR(stated.computations.back().critical_path_s, 400e-9, 1e-15);
  EXPECT_EQ(stated.computations[1].role, "while body");
  const Analysis unstated = run(std::string(kLoop) + "\n}\n", {.npus = 0, .iterations = 3});
  EXPECT_NEAR(unstated.computations.back().critical_path_s, 240e-9, 1e-15);
}

TEST(HloAnalysis, AllReduceIsTwoRingPhasesOverTheNetwork) {
  // 4000 bytes over 4 devices: 2 * 3/4 * 4000 / 1e10 = 600 ns; HBM 8000 bytes = 80 ns -> network bound.
  const Analysis a =
      run("HloModule r\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
          "  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n}\nENTRY %e {\n  %a = f32[1000] parameter(0)\n"
          "  ROOT %r = f32[1000] all-reduce(f32[1000] %a), replica_groups={{0,1,2,3},{4,5,6,7}}, to_apply=%add\n}\n",
          {.npus = 8});
  const InstructionReport& r = find(a, 1);
  EXPECT_NEAR(r.time_s, 600e-9, 1e-15);
  EXPECT_EQ(r.bound, "network");
  EXPECT_EQ(r.group_size, 4);
  EXPECT_DOUBLE_EQ(r.flops, 1000);
  ASSERT_EQ(a.collectives.size(), 1u);
  EXPECT_DOUBLE_EQ(a.collectives[0].bytes, 4000);
}

// A tiled all-reduce: the network carries the 4000 logical bytes (600 ns, as above); HBM reads and writes the
// arrays padded to whole tiles, 2 x 1024 x 4 = 8192 bytes (81.92 ns), and the per-group figure is half of that.
TEST(HloAnalysis, TiledAllReduceSendsLogicalBytesAndMovesPaddedOnes) {
  const Analysis a =
      run("HloModule r\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
          "  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n}\nENTRY %e {\n  %a = f32[1000]{0:T(1024)} parameter(0)\n"
          "  ROOT %r = f32[1000]{0:T(1024)} all-reduce(f32[1000]{0:T(1024)} %a), replica_groups={{0,1,2,3}}, "
          "to_apply=%add\n}\n",
          {.npus = 4});
  const InstructionReport& r = find(a, 1);
  EXPECT_NEAR(r.time_s, 600e-9, 1e-15);
  EXPECT_DOUBLE_EQ(r.bytes, 8192);
  EXPECT_DOUBLE_EQ(r.flops, 1000);
  ASSERT_EQ(a.collectives.size(), 1u);
  EXPECT_DOUBLE_EQ(a.collectives[0].bytes, 4096);
}

TEST(HloAnalysis, ReplicaGroupsMustFitTheDeviceCount) {
  const std::string text =
      "HloModule r\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
      "  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n}\nENTRY %e {\n  %a = f32[1000] parameter(0)\n"
      "  ROOT %r = f32[1000] all-reduce(f32[1000] %a), replica_groups={{0,1,2,3},{4,5,6,7}}, to_apply=%add\n}\n";
  try {
    run(text, {.npus = 4});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "t.hlo: line 9, column 3: replica_groups of %r names device 4; expected ids below --npus 4");
  }
}

TEST(HloAnalysis, IotaReplicaGroups) {
  const Module m = parse_module(
      "HloModule r\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
      "  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n}\nENTRY %e {\n  %a = f32[1000] parameter(0)\n"
      "  ROOT %r = f32[1000] all-reduce(f32[1000] %a), replica_groups=[2,4]<=[8], to_apply=%add\n}\n",
      "t.hlo");
  const Instruction& r = m.computations[1].instructions[1];
  EXPECT_EQ(replica_group_size(m, r, 8), 4);
  EXPECT_EQ(replica_group_size(m, r, 0), 4);
  EXPECT_THROW(replica_group_size(m, r, 4), Error);
}

// An all-reduce of f32[1048576] (4 MiB = 4194304 B) over replica groups {0,1,2,3} and {4,5,6,7}.
const char* kGroupedAllReduce =
    "HloModule r\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
    "  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n}\nENTRY %e {\n  %a = f32[1048576] parameter(0)\n"
    "  ROOT %r = f32[1048576] all-reduce(f32[1048576] %a), replica_groups={{0,1,2,3},{4,5,6,7}}, to_apply=%add\n}\n";

TEST(HloAnalysis, AllReduceOnANetworkIsTheRingOfItsReplicaGroup) {
  // switch:8, 50 GB/s and 500 ns per link. A member-to-member message crosses 2 links: 1000 ns + bytes / 50 GB/s.
  // Each group of 4 is a logical ring; the ring All-Reduce is 2 (n - 1) = 6 steps of S / n = 1048576 B:
  // 6 * (1000 ns + 20971.52 ns) = 131829.12 ns (HBM: 8 MiB at 100 GB/s = 83.9 us, below it).
  // Lower bound on the group's star (4 links up, 4 down): 2 * 3/4 * S / B = 125829.12 ns.
  const Module m = parse_module(kGroupedAllReduce, "t.hlo");
  CollectiveNetwork net(switch_star(8, {Bandwidth::gb_per_s(50), Time::ns(500)}), "switch:8", NetworkModelKind::Unaware,
                        std::nullopt);
  const Analysis a = analyze(m, round_system(), {.npus = 0, .iterations = 1, .network = &net});
  const InstructionReport& r = a.instructions.back();
  EXPECT_NEAR(r.time_s * 1e9, 131829.12, 1e-3);
  EXPECT_NEAR(r.lower_bound_s * 1e9, 125829.12, 1e-3);
  EXPECT_FALSE(r.below_bound);
  EXPECT_EQ(r.bound, "network");
  EXPECT_EQ(r.group_size, 4);
  EXPECT_NE(a.network.find("switch:8 (8 NPUs, unaware model"), std::string::npos) << a.network;
}

TEST(HloAnalysis, WithoutANetworkCollectivesKeepTheRingFormulas) {
  // 2 * 3/4 * 4194304 B / 10 GB/s = 629145.6 ns, as without the network option; no lower bound is reported.
  const Analysis a = run(kGroupedAllReduce, {.npus = 8});
  EXPECT_NEAR(a.instructions.back().time_s * 1e9, 629145.6, 1e-3);
  EXPECT_LT(a.instructions.back().lower_bound_s, 0);
  EXPECT_NE(a.network.find("ring formulas"), std::string::npos) << a.network;
}

TEST(HloAnalysis, NetworkMustHoldTheReplicas) {
  const Module m = parse_module(kGroupedAllReduce, "t.hlo");
  CollectiveNetwork net(switch_star(4, {Bandwidth::gb_per_s(50), Time::ns(500)}), "switch:4", NetworkModelKind::Unaware,
                        std::nullopt);
  // replica_groups name devices 4..7 of a 4-NPU network.
  EXPECT_THROW(analyze(m, round_system(), {.npus = 0, .iterations = 1, .network = &net}), Error);
  EXPECT_THROW(analyze(m, round_system(), {.npus = 8, .iterations = 1, .network = &net}), Error);
}

TEST(HloAnalysis, ReplicaGroupMembersOfEveryForm) {
  const std::string head =
      "HloModule r\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
      "  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n}\nENTRY %e {\n  %a = f32[8] parameter(0)\n"
      "  ROOT %r = f32[8] all-reduce(f32[8] %a), replica_groups=";
  auto members = [&](const std::string& groups, int npus) {
    const Module m = parse_module(head + groups + ", to_apply=%add\n}\n", "t.hlo");
    return replica_group_members(m, m.computations[1].instructions[1], npus);
  };
  using Groups = std::vector<std::vector<uint32_t>>;
  EXPECT_EQ(members("{{0,1},{2,3}}", 4), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(members("{}", 3), (Groups{{0, 1, 2}}));
  EXPECT_EQ(members("[2,4]<=[8]", 8), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  // iota over [4,2] = {{0,1},{2,3},{4,5},{6,7}}, transposed to [2,4] = {{0,2,4,6},{1,3,5,7}}.
  EXPECT_EQ(members("[2,4]<=[4,2]T(1,0)", 8), (Groups{{0, 2, 4, 6}, {1, 3, 5, 7}}));
  EXPECT_THROW(members("{{0,0},{1,2}}", 4), Error);
  EXPECT_THROW(members("[2,4]<=[4,2]T(0,0)", 8), Error);
  EXPECT_THROW(members("[2,4]<=[6]", 8), Error);
}

TEST(HloAnalysis, DlrmModuleHasTimesAndCategories) {
  const Module m =
      read_module(std::string(CHORUS_SOURCE_DIR) + "/tests/data/hlo/dlrm_tpuv3_after_optimizations.hlo.txt");
  const Analysis a = analyze(m, system_by_name("tpuv3"), {.npus = 64, .iterations = 1});
  // The entry's critical path is positive and no longer than the sum of its op times.
  bool entry = false;
  for (const ComputationReport& c : a.computations)
    if (c.role == "entry") {
      entry = true;
      EXPECT_GT(c.critical_path_s, 0);
      EXPECT_LE(c.critical_path_s, c.serial_s * (1 + 1e-12));
    }
  EXPECT_TRUE(entry);
}

}  // namespace
}  // namespace chorus::hlo
