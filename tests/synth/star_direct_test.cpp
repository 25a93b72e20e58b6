// The direct exchange through a star's switch (synth/star_direct.hpp) as a synthesis candidate: times worked out
// by hand in the store-and-forward model and, for the MSCCL program, under the flow model; the certificates; and
// where it does not apply.
#include <gtest/gtest.h>

#include "chorus/sim/synth_msccl.hpp"
#include "chorus/synth/star_direct.hpp"
#include "chorus/synth/synthesize.hpp"
#include "chorus/synth/verify.hpp"
#include "chorus/topology/generators.hpp"
#include "tests/support/synth_options.hpp"

namespace chorus {
namespace {

const Bandwidth kBw = Bandwidth::gib_per_s(50);
const LinkParams kLink{kBw, Time::ns(500)};
// One 1 MiB chunk crosses a link in tau = 0.5 us + 1 MiB / 50 GiB/s = 20.03125 us.
const Time kTau = Time::ns(500) + transfer_time(Bytes::mib(1), kBw);

SynthResult certified(const Topology& t, const SynthOptions& o) {
  const SynthResult r = synthesize(t, o);
  const SynthCheck c = check_synthesis(t, r);
  EXPECT_TRUE(c.ok) << c.problem;
  EXPECT_EQ(c.aware_time, r.time);
  return r;
}

// switch:6, All-Gather of 6 MiB, one 1 MiB chunk per GPU, no multicast (as for --out). Each uplink carries its GPU's
// chunk 5 times, round-robin to the 5 others (in round r GPU o sends to o + 1 + r mod 6, so the 6 sends of a round
// go to 6 different downlinks); the last round's chunks cross their downlinks from 5 tau to 6 tau. 6 tau = 120.1875
// us, the least any schedule takes in this model (5 chunks leave every uplink, then one more hop). The matching
// engine took 7 tau here (it forwarded copies through other GPUs and left uplinks idle).
TEST(StarDirect, AllGatherThroughTheSwitchTakesNTau) {
  const SynthResult r =
      certified(switch_star(6, kLink), synth_options(CollectiveKind::AllGather, Bytes::mib(6), 1, false));
  EXPECT_TRUE(r.direct);
  EXPECT_EQ(r.time, kTau * 6);
  EXPECT_EQ(r.schedule.transfer_count(), 60u);  // 30 GPU pairs, two hops each
  // GPU 0's uplink sends its chunk to GPUs 1, 2, 3, 4, 5 in that order: the second hops' receivers, by start time.
  std::vector<std::pair<Time, uint32_t>> from_zero;
  for (uint32_t i = 0; i < r.schedule.size(); ++i) {
    const OpId op{i};
    if (r.schedule.is_transfer(op) && r.schedule.src(op).value == 6 && r.schedule.chunk(op) == 0)
      from_zero.push_back({r.ops[i].start, r.schedule.dst(op).value});
  }
  std::sort(from_zero.begin(), from_zero.end());
  ASSERT_EQ(from_zero.size(), 5u);
  for (uint32_t k = 0; k < 5; ++k) {
    EXPECT_EQ(from_zero[k].second, k + 1);
    EXPECT_EQ(from_zero[k].first, kTau * (k + 1));
  }
  // A tenant of six on a larger switch is the same star.
  SynthOptions tenant = synth_options(CollectiveKind::AllGather, Bytes::mib(6), 1, false);
  tenant.graph.group = {0, 1, 2, 3, 4, 5};
  const SynthResult sub = certified(switch_star(8, kLink), tenant);
  EXPECT_TRUE(sub.direct);
  EXPECT_EQ(sub.time, kTau * 6);
}

// Reduce-Scatter is the All-Gather reversed: 6 tau. All-Reduce: the reversed Reduce-Scatter completes every chunk
// at its owner at 6 tau (its last partials cross the owners' downlinks from 5 tau to 6 tau), then the All-Gather's
// uplinks (free since 5 tau) start at 6 tau: 12 tau = 240.375 us. The MSCCL program, read back and run under the
// flow model (cut-through, a GPU's five concurrent sends sharing its uplink): each half moves 5 MiB through every
// uplink and downlink at once, 5 x 19.53125 us plus the two hops' latencies, twice: 197.3125 us; the bound is 5/6 x
// 2 x 6 MiB / 50 GiB/s = 195.3125 us.
TEST(StarDirect, ReductionsReverseTheGatherAndTheProgramRunsNearTheBound) {
  const Topology t = switch_star(6, kLink);
  const SynthResult rs = certified(t, synth_options(CollectiveKind::ReduceScatter, Bytes::mib(6), 1, false));
  EXPECT_TRUE(rs.direct);
  EXPECT_EQ(rs.time, kTau * 6);
  const SynthResult ar = certified(t, synth_options(CollectiveKind::AllReduce, Bytes::mib(6), 1, false));
  EXPECT_TRUE(ar.direct);
  EXPECT_EQ(ar.time, kTau * 12);
  const SynthMscclRun program = run_synth_msccl(t, ar, msccl_xml(ar, "direct", MscclXmlOptions{false}));
  EXPECT_TRUE(program.checked);
  EXPECT_EQ(program.flow, transfer_time(Bytes::mib(5), kBw) * 2 + Time::ns(2000));
}

// Where the matching engine keeps the job: a switch that multicasts (All-Gather), a rooted collective (the root's
// uplink would carry every copy), a graph that is not a single star.
TEST(StarDirect, OnlyWhereItApplies) {
  const Topology star = switch_star(6, kLink);
  EXPECT_FALSE(synthesize(star, synth_options(CollectiveKind::AllGather, Bytes::mib(6), 1, true)).direct);
  EXPECT_FALSE(synthesize(star, synth_options(CollectiveKind::Broadcast, Bytes::mib(6), 1, false)).direct);
  EXPECT_FALSE(synthesize(ring(6, kLink), synth_options(CollectiveKind::AllGather, Bytes::mib(6), 1, false)).direct);
  const Topology two_switches =
      compose({{BlockKind::Switch, 3, kBw, Time::ns(500)}, {BlockKind::Switch, 2, kBw, Time::ns(500)}});
  EXPECT_FALSE(synthesize(two_switches, synth_options(CollectiveKind::AllGather, Bytes::mib(6), 1, false)).direct);
  SpreadProblem p;
  const SynthGraph g = make_synth_graph(star, {});
  p.graph = &g;
  p.tau.assign(g.link_count(), kTau);
  p.chunks = 6;
  p.origin = {0, 1, 2, 3, 4, 5};
  p.relays_replicate = true;
  EXPECT_FALSE(star_direct(p).has_value());
  p.relays_replicate = false;
  EXPECT_TRUE(star_direct(p).has_value());
  p.origin = {0, 0, 2, 3, 4, 5};  // uneven: GPU 1 originates nothing
  EXPECT_FALSE(star_direct(p).has_value());
}

}  // namespace
}  // namespace chorus
