// Tests of HLO timing: roofline bounds, critical paths, loops, collectives and replica groups, by hand calculation.
#include <gtest/gtest.h>

#include <string>

#include "chorus/core/error.hpp"
#include "chorus/hlo/analysis.hpp"
#include "chorus/hlo/parser.hpp"

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
