// Fused operators inside a workload run (runtime/fused_ops.hpp, workload/fusion_marks.hpp) on hand-made 2-NPU
// workloads whose times are worked out in each test.
#include <gtest/gtest.h>

#include "../runtime/workload_builder.hpp"
#include "chorus/core/error.hpp"
#include "chorus/runtime/runtime.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {
namespace {

using chakra::CommType;
using testing::WorkloadBuilder;

// Ring All-Reduce of S bytes on 2 fully connected NPUs (1 GB/s, 250 ns): a Reduce-Scatter and an All-Gather step
// of S/2 bytes, 2 * (0.25 us + S/2 ns) = 0.5 us + S ns.
const Topology& network() {
  static const Topology t = fully_connected(2, LinkParams{Bandwidth::gb_per_s(1), Time::ns(250)});
  return t;
}

void mark(chakra::TraceNode& n, const std::string& op, int64_t tiles) {
  n.other_attrs.push_back({"fused_op", std::nullopt, op});
  n.other_attrs.push_back({"fused_tiles", tiles, ""});
}

// Each NPU: an 8 us compute, then an All-Reduce of 8000 B that depends on it alone.
WorkloadBuilder gemv_all_reduce(const std::string& name, std::optional<int64_t> tiles,
                                const std::string& op = "gemv-all-reduce") {
  WorkloadBuilder b(name, 2);
  for (uint32_t npu = 0; npu < 2; ++npu) {
    b.comp(npu, 1, 8);
    chakra::TraceNode& ar = b.coll(npu, 2, CommType::AllReduce, 8000, {1});
    if (tiles)
      mark(ar, op, *tiles);
  }
  return b;
}

RunReport simulate(const WorkloadBuilder& b) {
  const Workload w = load_workload(b.write(), "");
  RuntimeOptions options;
  options.lower_bounds = false;
  return run_workload(w, network(), options);
}

std::string error_of(const WorkloadBuilder& b) {
  try {
    simulate(b);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(RuntimeFusion, UnfusedIsComputeThenCollective) {
  // 8 us + (0.5 us + 8000 ns) = 16.5 us.
  EXPECT_EQ(simulate(gemv_all_reduce("fusion_none", std::nullopt)).finish, Time::ns(16'500));
}

TEST(RuntimeFusion, FusedPairRunsTheTilePipeline) {
  // 4 tiles: c = 8 us / 4 = 2 us; x = All-Reduce of 2000 B = 0.5 + 2 = 2.5 us, of which the latency
  // L = 2 x(2000) - x(4000) = 5 - 4.5 = 0.5 us overlaps the next tiles: o = 2 us;
  // fused = c + max(c, o) * 3 + x = 2 + 6 + 2.5 = 10.5 us (unfused 16.5 us).
  const RunReport r = simulate(gemv_all_reduce("fusion_four", 4));
  EXPECT_EQ(r.finish, Time::ns(10'500));
  ASSERT_EQ(r.fused_ops.size(), 1u);
  const FusedOpReport& f = r.fused_ops[0];
  EXPECT_EQ(f.op, "gemv-all-reduce");
  EXPECT_EQ(f.tiles, 4u);
  EXPECT_EQ(f.compute, Time::us(8));
  EXPECT_EQ(f.collective, Time::ns(8'500));
  EXPECT_EQ(f.fused, Time::ns(10'500));
  EXPECT_EQ(f.unfused(), Time::ns(16'500));
  // The compute keeps its span; the collective carries the 2.5 us the pipeline adds after it.
  EXPECT_EQ(r.npus[0].compute, Time::us(8));
  ASSERT_EQ(r.collectives.size(), 1u);
  EXPECT_TRUE(r.collectives[0].fused);
  EXPECT_EQ(r.collectives[0].end - r.collectives[0].start, Time::ns(2'500));
}

TEST(RuntimeFusion, OneTileIsUnfused) {
  EXPECT_EQ(simulate(gemv_all_reduce("fusion_one", 1)).finish, Time::ns(16'500));
}

TEST(RuntimeFusionBadInput, CollectiveWithAnotherInputIsRefused) {
  WorkloadBuilder b("fusion_two_inputs", 2);
  for (uint32_t npu = 0; npu < 2; ++npu) {
    b.comp(npu, 1, 8);
    b.comp(npu, 3, 1);
    mark(b.coll(npu, 2, CommType::AllReduce, 8000, {1, 3}), "gemv-all-reduce", 4);
  }
  EXPECT_NE(error_of(b).find("fusion requested, but the collective depends on 2 nodes"), std::string::npos)
      << error_of(b);
}

TEST(RuntimeFusionBadInput, ZeroTilesWrongOperatorAndDisagreeingRanks) {
  EXPECT_NE(error_of(gemv_all_reduce("fusion_zero", 0)).find("node 2: fused_tiles"), std::string::npos);
  EXPECT_NE(error_of(gemv_all_reduce("fusion_wrong_op", 4, "embedding-all-to-all")).find("ends with ALL_TO_ALL"),
            std::string::npos);
  EXPECT_NE(error_of(gemv_all_reduce("fusion_unknown_op", 4, "gemv-all-gather")).find("unknown fused operator"),
            std::string::npos);
  WorkloadBuilder b("fusion_one_rank", 2);
  for (uint32_t npu = 0; npu < 2; ++npu) {
    b.comp(npu, 1, 8);
    chakra::TraceNode& ar = b.coll(npu, 2, CommType::AllReduce, 8000, {1});
    if (npu == 1)
      mark(ar, "gemv-all-reduce", 4);
  }
  EXPECT_NE(error_of(b).find("fusion marks differ"), std::string::npos) << error_of(b);
}

}  // namespace
}  // namespace chorus
