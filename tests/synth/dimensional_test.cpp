// Dimension-wise synthesis (synth/dimensional.hpp): the line schedules it composes pass the certificates, every
// line of the topology is a link-for-link copy of the synthesized line and parallel lines share no link, the time
// is the sum of stage maxima of independently synthesized lines, the transfer count matches the closed form
// 4 k X Y (X + Y - 2) of a rotated 2D All-Reduce, and the time respects the exact cut bound of lower_bound.hpp.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <gtest/gtest.h>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/core/error.hpp"
#include "chorus/network/aware_model.hpp"
#include "chorus/synth/dimensional.hpp"
#include "chorus/synth/synth_routes.hpp"
#include "chorus/synth/verify.hpp"
#include "chorus/topology/generators.hpp"
#include "tests/support/synth_options.hpp"

namespace chorus {
namespace {

const LinkParams kFast{Bandwidth::gib_per_s(50), Time::ns(500)};
const LinkParams kSlow{Bandwidth::gib_per_s(25), Time::ns(700)};

uint32_t stride_of(const Topology& t, uint32_t dim) {
  uint32_t stride = 1;
  for (uint32_t d = 0; d < dim; ++d)
    stride *= t.dimensions()[d].size;
  return stride;
}

// Every line of every dimension, its NPUs translated (line NPU i -> base + i * stride), maps each link of the
// line topology onto a distinct link of the topology with the same bandwidth and latency.
TEST(DimensionalSynth, EveryLineIsALinkDisjointCopyOfTheSynthesizedLine) {
  const Topology t = mesh2d(4, 3, kFast, kSlow);
  std::map<std::pair<uint32_t, uint32_t>, LinkId> links;
  for (uint32_t l = 0; l < t.link_count(); ++l)
    links[{t.link_src(LinkId{l}).value, t.link_dst(LinkId{l}).value}] = LinkId{l};
  std::set<uint32_t> used;
  for (uint32_t dim = 0; dim < 2; ++dim) {
    const Topology line = dimension_line(t, dim);
    const uint32_t p = t.dimensions()[dim].size, stride = stride_of(t, dim);
    for (uint32_t npu = 0; npu < t.npu_count(); ++npu) {
      if (t.coordinate(NodeId{npu}, dim) != 0)
        continue;  // npu is the base of a line
      for (uint32_t l = 0; l < line.link_count(); ++l) {
        const uint32_t a = npu + line.link_src(LinkId{l}).value * stride;
        const uint32_t b = npu + line.link_dst(LinkId{l}).value * stride;
        ASSERT_LT(line.link_src(LinkId{l}).value, p);
        const auto it = links.find({a, b});
        ASSERT_NE(it, links.end()) << a << "->" << b;
        EXPECT_EQ(t.link_bandwidth(it->second).bytes_per_second(), line.link_bandwidth(LinkId{l}).bytes_per_second());
        EXPECT_EQ(t.link_latency(it->second), line.link_latency(LinkId{l}));
        EXPECT_TRUE(used.insert(it->second.value).second) << "link shared by two lines";
      }
    }
  }
  EXPECT_EQ(used.size(), t.link_count());
}

// The time is the sum over stages of the slowest part's line time; each line schedule is certified on its line.
TEST(DimensionalSynth, TimeIsTheSumOfStageMaximaOfCertifiedLines) {
  const Topology t = mesh2d(4, 3, kFast, kSlow);
  const SynthOptions o = synth_options(CollectiveKind::AllReduce, Bytes::mib(24), 2);
  const DimensionalSynthResult r = synthesize_dimensional(t, o);
  ASSERT_EQ(r.phases.size(), 6u);  // 2 parts x (RS, AR, AG)
  std::vector<Time> stage(3, Time::zero());
  for (const DimensionalPhase& p : r.phases) {
    const Topology line = dimension_line(t, p.dimension);
    const SynthResult s = synthesize(line, synth_options(p.kind, p.size, 2));
    const SynthCheck check = check_synthesis(line, s);
    EXPECT_TRUE(check.ok) << check.problem;
    EXPECT_EQ(p.time, s.time);
    EXPECT_EQ(p.lines * p.line_npus, t.npu_count());
    stage[p.stage] = std::max(stage[p.stage], s.time);
  }
  // Two parts of 12 MiB. Part 0: RS on x (12 MiB), AR on y (3 MiB), AG on x; part 1: RS on y, AR on x (4 MiB),
  // AG on y.
  EXPECT_EQ(r.phases[0].kind, CollectiveKind::ReduceScatter);
  EXPECT_EQ(r.phases[0].size, Bytes::mib(12));
  EXPECT_EQ(r.phases[1].kind, CollectiveKind::AllReduce);
  EXPECT_EQ(r.phases[1].size, Bytes::mib(3));
  EXPECT_EQ(r.phases[4].dimension, 0u);
  EXPECT_EQ(r.phases[4].size, Bytes::mib(4));
  EXPECT_EQ(r.time, stage[0] + stage[1] + stage[2]);
}

// The composed schedule, materialized on a small mesh, runs under the aware network model (store-and-forward,
// one message per link, the synthesized links) in exactly the composed time: each stage takes its slowest line.
TEST(DimensionalSynth, AwareModelRunsTheComposedScheduleInTheComposedTime) {
  const Topology t = mesh2d(4, 3, kFast, kSlow);
  for (CollectiveKind kind : {CollectiveKind::AllReduce, CollectiveKind::AllGather, CollectiveKind::ReduceScatter}) {
    const DimensionalSynthResult d = synthesize_dimensional(t, synth_options(kind, Bytes::mib(24), 2));
    const SynthResult r = materialize_dimensional(t, d);
    const SynthResult b = materialize_dimensional(t, d, DimensionalComposition::Barriers);
    EXPECT_EQ(r.schedule.transfer_count(), d.transfers);
    const SynthRoutes routes(t, r);
    EXPECT_EQ(run_aware(r.schedule, routes, AstraCompat{}).makespan, r.time) << to_string(kind);
    // Pipelining only drops dependencies (same link order): never later than per-NPU barriers, which never wait
    // longer than whole-network ones.
    EXPECT_LE(r.time, b.time) << to_string(kind);
    EXPECT_LE(b.time, d.time) << to_string(kind);
  }
}

// A line All-Gather with k chunks delivers each of p k chunks to p - 1 NPUs once; RS is its reversal and a line
// AR both: a rotated 2D All-Reduce makes 2 parts x (2 Y X k + 2 X Y (Y-1) k) = 4 k X Y (X + Y - 2).
TEST(DimensionalSynth, TransferCountMatchesTheClosedForm) {
  const Topology t = mesh2d(5, 3, kFast, kFast);
  const DimensionalSynthResult r =
      synthesize_dimensional(t, synth_options(CollectiveKind::AllReduce, Bytes::mib(30), 2));
  EXPECT_EQ(r.transfers, uint64_t{4} * 2 * 5 * 3 * (5 + 3 - 2));
}

// Sound against the exact cut bound, and close to it: the corner NPU's two links both work in every stage.
TEST(DimensionalSynth, NearTheExactCutBoundOnAMesh) {
  const Topology t = mesh2d(8, 8, kFast, kFast);
  const SynthOptions o = synth_options(CollectiveKind::AllReduce, Bytes::gib(1), 0);
  const Time exact = lower_bound(t, Collective{CollectiveKind::AllReduce, Bytes::gib(1), 64}).bound;
  const Time cheap = dimensional_lower_bound(t, CollectiveKind::AllReduce, Bytes::gib(1));
  EXPECT_LE(cheap, exact);
  // Closed form: 2 x (1 GiB x 63/64) / (2 x 50 GiB/s) = 19.6875 ms, each phase rounded down by at most 1 ps.
  EXPECT_LE(cheap, Time::ps(19'687'500'000));
  EXPECT_GE(cheap, Time::ps(19'687'499'998));
  const DimensionalSynthResult r = synthesize_dimensional(t, o);
  EXPECT_GE(r.time, exact);
  EXPECT_LE(static_cast<double>(r.time.picoseconds()), 1.05 * static_cast<double>(exact.picoseconds()));
}

TEST(DimensionalSynth, AllGatherAndReduceScatterRunOneStagePerDimension) {
  const Topology t = torus3d(4, 2, 3, kFast, kSlow, kFast);
  for (CollectiveKind kind : {CollectiveKind::AllGather, CollectiveKind::ReduceScatter}) {
    const DimensionalSynthResult r = synthesize_dimensional(t, synth_options(kind, Bytes::mib(24), 1));
    EXPECT_EQ(r.stage_times.size(), 3u);
    EXPECT_EQ(r.phases.size(), 9u);
    EXPECT_GE(r.time, lower_bound(t, Collective{kind, Bytes::mib(24), 24}).bound);
  }
}

TEST(DimensionalSynth, AppliesOnlyWhereItIsValidAndIsChosenBeyondTheFlatLimit) {
  const SynthOptions ar = synth_options(CollectiveKind::AllReduce, Bytes::gib(1), 0);
  EXPECT_TRUE(dimensional_synthesis_applies(mesh2d(4, 4, kFast, kFast), ar));
  EXPECT_FALSE(dimensional_synthesis_needed(mesh2d(4, 4, kFast, kFast), ar));
  EXPECT_FALSE(dimensional_synthesis_applies(ring(8, kFast), ar));
  EXPECT_FALSE(dimensional_synthesis_applies(mesh2d(4, 1, kFast, kFast), ar));
  SynthOptions tenant = ar;
  tenant.graph.group = {0, 1, 2};
  EXPECT_FALSE(dimensional_synthesis_applies(mesh2d(4, 4, kFast, kFast), tenant));
  EXPECT_FALSE(dimensional_synthesis_applies(mesh2d(4, 4, kFast, kFast),
                                             synth_options(CollectiveKind::AllToAll, Bytes::gib(1), 1)));
  // 40,000 NPUs: 1.6e9 deliveries, beyond the flat engine's 2^30.
  EXPECT_TRUE(dimensional_synthesis_needed(mesh2d(200, 200, kFast, kFast), ar));
  EXPECT_THROW(synthesize_dimensional(ring(8, kFast), ar), Error);
}

}  // namespace
}  // namespace chorus
