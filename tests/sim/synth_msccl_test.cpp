// The MSCCL XML chorus writes for a synthesized algorithm, read back by chorus's MSCCL reader and run
// (sim/synth_msccl.hpp): it computes the collective, and its time under the flow and aware models is worked out by
// hand; through a switch, the layout that orders a GPU's sends is kept only where it runs faster.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "chorus/core/error.hpp"
#include "chorus/sim/synth_msccl.hpp"
#include "chorus/synth/msccl_xml.hpp"
#include "chorus/synth/synthesize.hpp"
#include "chorus/topology/generators.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/synth_options.hpp"

namespace chorus {
namespace {

const Bandwidth kBw = Bandwidth::gib_per_s(50);
const Time kLatency = Time::ns(500);
const LinkParams kLink{kBw, kLatency};

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

TEST(SynthMscclRun, AllToAllIsWrittenOutOfPlaceAndComputesTheExchange) {
  // In place, a GPU receiving peer s's chunk into output chunk s*k + j overwrote the input chunk it still had to
  // send to s; the reader's semantic check caught it on a 3-cube (multi-hop routes, relays through scratch). Out of
  // place, each GPU copies its own k chunks locally: 8 GPUs x 2 "cpy" steps.
  const Topology t = hypercube(3, {kLink, kLink, kLink});
  const SynthResult r = synthesize(t, synth_options(CollectiveKind::AllToAll, Bytes::mib(16), 2));
  const std::string xml = msccl_xml(r, "a2a");
  EXPECT_NE(xml.find("inplace=\"0\" outofplace=\"1\""), std::string::npos);
  EXPECT_EQ(count(xml, "type=\"cpy\""), 16u);
  const SynthMscclRun run = run_synth_msccl(t, r, xml);
  EXPECT_TRUE(run.checked);
  // Without switches every thread block is one link and runs its transfers in the synthesized order, each waiting
  // for the receive that brought its chunk, so the aware model (store-and-forward, the synthesizer's own model)
  // runs the program in the synthesizer's time, and one message per link at a time makes flow the same.
  EXPECT_EQ(run.aware, r.time);
  EXPECT_EQ(run.flow, r.time);
}

TEST(SynthMscclRun, ALinkBeyond256StepsKeepsItsOrderAcrossChannels) {
  // uniring:3, All-Gather of 64 MiB in 200 chunks per NPU: each chunk crosses 2 of the 3 links, so every link
  // carries 2 x 200 = 400 transfers back to back, 400 tau. MSCCL allows 256 steps per thread block, so each link's
  // transfers continue on a second channel, a thread block of its own; its first send waits for the first
  // channel's last one, or the two channels would share the link (the read-back took 1.0398 ms, not 1.0333 ms).
  const Topology t = uniring(3, kLink);
  const SynthResult r = synthesize(t, synth_options(CollectiveKind::AllGather, Bytes::mib(64), 200));
  const Time tau = kLatency + transfer_time(r.chunk_bytes, kBw);
  EXPECT_EQ(r.chunk_bytes.count(), (int64_t{64} << 20) / 600 + 1);  // 111,848.1 B, rounded up
  EXPECT_EQ(r.time, tau * 400);
  const std::string xml = msccl_xml(r, "ag");
  EXPECT_NE(xml.find("nchannels=\"2\""), std::string::npos);
  const SynthMscclRun run = run_synth_msccl(t, r, xml);
  EXPECT_TRUE(run.checked);
  EXPECT_EQ(run.aware, r.time);
  EXPECT_EQ(run.flow, r.time);
}

TEST(SynthMscclRun, OrderedSendsThroughASwitchRunAGpusLinkBackToBack) {
  // switch:8, All-Gather of 8 MiB, one 1 MiB chunk per GPU, no multicast (MSCCL has none): every GPU sends 7
  // chunks through its one link into the switch. Ordered as synthesized, each send waits for the previous one to
  // arrive; under the flow model (cut-through) a send over GPU -> switch -> GPU takes 2 latencies + 1 MiB / 50 GiB/s
  // = 1 us + 19.53125 us, and no two sends share a link at a time: 7 x 20.53125 us = 143.71875 us. Left to the
  // runtime the sends start together and the GPUs' links are shared in an order nobody planned: slower. (The
  // matching engine's schedule; the direct exchange, which ties it at 8 tau and is kept, is the next test.)
  const Topology t = switch_star(8, kLink);
  SynthOptions matching = synth_options(CollectiveKind::AllGather, Bytes::mib(8), 1, false);
  matching.direct_through_switch = false;
  const SynthResult r = synthesize(t, matching);
  EXPECT_FALSE(r.direct);
  const SynthMscclRun ordered = run_synth_msccl(t, r, msccl_xml(r, "ag", MscclXmlOptions{true}));
  EXPECT_TRUE(ordered.checked);
  EXPECT_EQ(ordered.flow, (kLatency * 2 + transfer_time(Bytes::mib(1), kBw)) * 7);
  const SynthMscclLayout layout = choose_synth_msccl_layout(t, r);
  ASSERT_TRUE(layout.ordered && layout.unordered);
  EXPECT_EQ(layout.ordered->flow, ordered.flow);
  EXPECT_GT(layout.unordered->flow, ordered.flow);
  EXPECT_TRUE(layout.options.order_switch_sends);
}

TEST(SynthMscclRun, DirectExchangeThroughASwitchIsLeftToTheRuntime) {
  // The same All-Gather as the direct exchange (synth/star_direct.hpp): each GPU sends its chunk to the 7 others,
  // round-robin, so left to the runtime each uplink carries 7 flows to 7 different downlinks and each downlink 7
  // flows from 7 uplinks: all at 1/7 of 50 GiB/s, ending after 7 MiB / 50 GiB/s + 2 latencies = 137.71875 us, the
  // uplink's cut plus the path's latency. Ordered, the sends run back to back: 143.71875 us as above.
  const Topology t = switch_star(8, kLink);
  const SynthResult r = synthesize(t, synth_options(CollectiveKind::AllGather, Bytes::mib(8), 1, false));
  EXPECT_TRUE(r.direct);
  const SynthMscclLayout layout = choose_synth_msccl_layout(t, r);
  ASSERT_TRUE(layout.ordered && layout.unordered);
  EXPECT_EQ(layout.unordered->flow, transfer_time(Bytes::mib(7), kBw) + kLatency * 2);
  EXPECT_EQ(layout.ordered->flow, (kLatency * 2 + transfer_time(Bytes::mib(1), kBw)) * 7);
  EXPECT_FALSE(layout.options.order_switch_sends);
}

TEST(SynthMscclRun, AllToAllThroughASwitchIsLeftToTheRuntime) {
  // switch:8, All-to-All of 16 MiB per GPU, one 2 MiB chunk per pair. Left to the runtime every GPU's 7 sends start
  // at once; each GPU link into and out of the switch carries 7 flows at 1/7 of 50 GiB/s, so all end together
  // after 14 MiB / 50 GiB/s + 2 latencies = 273.4375 us + 1 us. That is the cut bound plus latency: ordering the
  // sends cannot beat it, so the runtime layout is kept.
  const Topology t = switch_star(8, kLink);
  const SynthResult r = synthesize(t, synth_options(CollectiveKind::AllToAll, Bytes::mib(16), 1, false));
  const SynthMscclLayout layout = choose_synth_msccl_layout(t, r);
  ASSERT_TRUE(layout.ordered && layout.unordered);
  EXPECT_TRUE(layout.unordered->checked);
  EXPECT_EQ(layout.unordered->flow, transfer_time(Bytes::mib(14), kBw) + kLatency * 2);
  EXPECT_GE(layout.ordered->flow, layout.unordered->flow);
  EXPECT_FALSE(layout.options.order_switch_sends);
}

TEST(SynthMscclRun, NoSwitchNoChoiceAndSubgroupsAreNotRun) {
  // Without a switch there is one layout; a group that is not every NPU cannot be run as MSCCL ranks 0..n-1.
  const Topology t = ring(4, kLink);
  const SynthResult r = synthesize(t, synth_options(CollectiveKind::AllGather, Bytes::mib(4), 1));
  const SynthMscclLayout layout = choose_synth_msccl_layout(t, r);
  EXPECT_FALSE(layout.unordered || layout.ordered);
  EXPECT_FALSE(layout.options.order_switch_sends);
  SynthOptions sub = synth_options(CollectiveKind::AllGather, Bytes::mib(3), 1);
  sub.graph.group = {0, 1, 2};
  const SynthResult part = synthesize(t, sub);
  EXPECT_FALSE(synth_msccl_runnable(t, part));
  EXPECT_THROW(run_synth_msccl(t, part, msccl_xml(part, "sub")), Error);
}

TEST(SynthMscclCli, OutWithVerifyReadsTheProgramBack) {
  // The CLI form of the switch:8 All-Gather above, the direct exchange: the runtime layout is written, and --verify
  // reads the file back: it computes the All-Gather in 137.71875 us under the flow model (143.71875 us ordered).
  // The synthesizer's own estimate (store-and-forward through the switch, 8 x (0.5 us + 19.53125 us)) is 160.25 us.
  const std::string xml = (std::filesystem::temp_directory_path() / "chorus_synth_msccl_cli.xml").string();
  const testing_support::CliRun run = testing_support::run_chorus(
      {"synth", "--topology", "switch:8", "--bandwidth", "50GiB/s", "--latency", "0.5us", "--collective", "all_gather",
       "--size", "8MiB", "--chunks", "1", "--out", xml, "--verify", "--json"},
      false);
  ASSERT_EQ(run.status, 0) << run.out;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  EXPECT_DOUBLE_EQ(j["time_ns"].get<double>(), 160250.0);
  EXPECT_TRUE(j["msccl_checked"].get<bool>());
  EXPECT_EQ(j["direct"], true);
  EXPECT_DOUBLE_EQ(j["msccl_flow_ns"].get<double>(), 137718.75);
  EXPECT_EQ(j["msccl_switch_sends"], "runtime");
  EXPECT_DOUBLE_EQ(j["msccl_flow_ordered_ns"].get<double>(), 143718.75);
  std::filesystem::remove(xml);
}

}  // namespace
}  // namespace chorus
