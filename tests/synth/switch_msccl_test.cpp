// MSCCL XML for schedules through switches (synth/switch_collapse.hpp, synth/msccl_xml.hpp): every path GPU ->
// switch -> GPU is one send/receive pair, read back by chorus's own MSCCL reader as a program that computes the
// collective, with transfer counts and times worked out by hand; and the runtime limit that a large switch group
// exceeds, named in the error.
#include <string>

#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/msccl/read_msccl.hpp"
#include "chorus/msccl/schedule.hpp"
#include "chorus/synth/msccl_xml.hpp"
#include "chorus/synth/switch_collapse.hpp"
#include "chorus/synth/synthesize.hpp"
#include "chorus/topology/generators.hpp"
#include "tests/support/synth_options.hpp"

namespace chorus {
namespace {

const Bandwidth kBw = Bandwidth::gib_per_s(50);
const LinkParams kLink{kBw, Time::ns(500)};

MscclAlgorithm read_back(const SynthResult& r) {
  return make_msccl_algorithm(parse_msccl_xml(msccl_xml(r, "sw"), "sw.xml"));
}

TEST(SwitchMsccl, AllGatherThroughOneSwitchIsOneSendPerPeer) {
  // switch:8, All-Gather of 8 MiB, one 1 MiB chunk per GPU. Without multicast every chunk reaches each of the 7
  // other GPUs over its own path GPU -> switch -> GPU: 56 paths, 112 synthesized hops, 56 GPU pairs in the XML.
  // Every uplink carries 7 chunks and every downlink 7, so the synthesizer's time is 7 tau up plus the last chunk's
  // tau down: 8 tau, tau = 0.5 us + 1 MiB / 50 GiB/s, which is optimal in its model (a downlink's 7 chunks follow
  // at least one uplink hop).
  const Topology t = switch_star(8, kLink);
  const SynthResult r = synthesize(t, synth_options(CollectiveKind::AllGather, Bytes::mib(8), 1, false));
  const Time tau = Time::ns(500) + transfer_time(Bytes::mib(1), kBw);
  EXPECT_EQ(r.schedule.transfer_count(), 112u);
  EXPECT_EQ(r.time, tau * 8);
  ASSERT_TRUE(passes_through_switches(r));
  const SynthResult gpu = collapse_switches(r);
  EXPECT_FALSE(passes_through_switches(gpu));
  EXPECT_EQ(gpu.schedule.transfer_count(), 56u);
  const MscclAlgorithm a = read_back(r);
  EXPECT_TRUE(a.checked);  // the reader's semantic check: every GPU ends with every chunk
  EXPECT_EQ(a.program.kind, CollectiveKind::AllGather);
  EXPECT_EQ(a.dag.transfers, 56u);
}

TEST(SwitchMsccl, MulticastAtTheSwitchBecomesASendPerReceiver) {
  // With multicast the switch receives each chunk once and copies it to 7 GPUs: 8 + 56 hops. MSCCL has no
  // multicast, so the XML sends each copy from the chunk's own GPU: 56 GPU pairs again.
  const SynthResult r =
      synthesize(switch_star(8, kLink), synth_options(CollectiveKind::AllGather, Bytes::mib(8), 1, true));
  EXPECT_EQ(r.schedule.transfer_count(), 64u);
  const MscclAlgorithm a = read_back(r);
  EXPECT_TRUE(a.checked);
  EXPECT_EQ(a.dag.transfers, 56u);
}

TEST(SwitchMsccl, ReductionsThroughASwitchReduceAtTheGpus) {
  // Reduce-Scatter and All-Reduce on switch:6: the switch forwards each partial once (it never reduces), so every
  // path is a GPU pair with recv-reduce-copy at the receiver. Reduce-Scatter: each chunk gathers 5 partials, one
  // path each (30 pairs); All-Reduce adds the All-Gather's 30.
  const Topology t = switch_star(6, kLink);
  const MscclAlgorithm rs =
      read_back(synthesize(t, synth_options(CollectiveKind::ReduceScatter, Bytes::mib(6), 1, false)));
  EXPECT_TRUE(rs.checked);
  EXPECT_EQ(rs.dag.transfers, 30u);
  const MscclAlgorithm ar = read_back(synthesize(t, synth_options(CollectiveKind::AllReduce, Bytes::mib(6), 1, false)));
  EXPECT_TRUE(ar.checked);
  EXPECT_EQ(ar.dag.transfers, 60u);
}

TEST(SwitchMsccl, TooManyPeersThroughASwitchNameTheThreadBlockLimit) {
  // All-to-All of 110 GPUs on one switch: every pair's chunk takes its own path GPU -> switch -> GPU (two hops; a
  // relay GPU would make it four), so each GPU sends to and receives from 109 peers, one thread block per peer and
  // direction: 218 > 216 (MSCCL_MAX_NUM_THREAD_BLOCKS). With 100 GPUs, 198 thread blocks fit.
  const SynthResult r =
      synthesize(switch_star(110, kLink), synth_options(CollectiveKind::AllToAll, Bytes::mib(110), 1, false));
  try {
    msccl_xml(r, "big");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("MSCCL_MAX_NUM_THREAD_BLOCKS"), std::string::npos) << what;
    EXPECT_NE(what.find("through a switch"), std::string::npos) << what;
  }
  const SynthResult fits =
      synthesize(switch_star(100, kLink), synth_options(CollectiveKind::AllToAll, Bytes::mib(100), 1, false));
  const MscclAlgorithm a = read_back(fits);
  EXPECT_TRUE(a.checked);
  EXPECT_EQ(a.dag.transfers, 100u * 99u);
}

}  // namespace
}  // namespace chorus
