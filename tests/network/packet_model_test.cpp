// The packet-level model on ns-3: closed forms for one message, agreement with the flow model where both models
// say the same thing (a bandwidth-bound transfer within 5%, a latency-bound one within one packet time), the
// bottleneck bound under incast, loss on small drop-tail buffers, determinism, serialised concurrent use, and the
// CLI's options and bad input. Without ns-3 in the build the model tests skip (the transport's state machines and
// the bad-input lines still run).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "chorus/core/error.hpp"
#include "chorus/network/model_registry.hpp"
#include "chorus/network/packet/go_back_n.hpp"
#include "chorus/network/packet/packet_options.hpp"
#include "chorus/network/packet/rate_control.hpp"
#include "chorus/sim/collective_run.hpp"
#include "chorus/topology/generators.hpp"
#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

const NetworkModel* packet_model() {
  return network_models().find("packet");
}

#define REQUIRE_PACKET_MODEL()   \
  if (packet_model() == nullptr) \
  GTEST_SKIP() << "chorus was built without ns-3 (libns3-dev)"

const LinkParams kLink{Bandwidth::gb_per_s(50), Time::us(1)};
// One full packet on the wire at 50 GB/s: (4096 + 62) B / 50e9 B/s = 83.16 ns.
constexpr Time kPacketTime = Time::ps(83'160);

// Runs `s` under `model` with link statistics and the packet model's `packet` queues.
NetworkRunResult run_model(const NetworkModel& model, const Schedule& s, const Topology& t, PacketOptions packet = {}) {
  NetworkRunOptions options;
  options.collect_link_stats = true;
  options.packet = packet;
  return model.run(s, t, options);
}

double ns(Time t) {
  return t.nanoseconds();
}

LinkId link_between(const Topology& t, uint32_t src, uint32_t dst) {
  for (uint32_t l = 0; l < t.link_count(); ++l) {
    if (t.link_src(LinkId{l}).value == src && t.link_dst(LinkId{l}).value == dst)
      return LinkId{l};
  }
  ADD_FAILURE() << "no link " << src << " -> " << dst;
  return LinkId{0};
}

TEST(PacketModel, BandwidthBoundMessageByHandAndWithinFivePercentOfFlow) {
  REQUIRE_PACKET_MODEL();
  // 64 MiB = 16384 full packets from NPU 0 through the switch to NPU 1. The sender paces at line rate, so its
  // last packet has left after 16384 packet times; the switch forwards it in one more, plus 1 us per link:
  // 16385 x 83.16 ns + 2 us = 1,364,576.6 ns. Flow: 2 us + 2^26 B / 50 GB/s = 1,344,177.28 ns (1.5% less: the
  // 62 header bytes per 4096 and one store-and-forward packet time).
  const Topology t = switch_star(2, kLink);
  Schedule s;
  s.add_transfer(NodeId{0}, NodeId{1}, Bytes::mib(64), Time::zero(), {}, 0);
  const NetworkRunResult packet = run_model(*packet_model(), s, t);
  const NetworkRunResult flow = run_model(network_models().get(NetworkModelKind::Flow), s, t);
  EXPECT_NEAR(ns(packet.makespan), 16385 * 83.16 + 2000, 1.0);
  EXPECT_DOUBLE_EQ(ns(flow.makespan), 1'344'177.28);
  EXPECT_LT(std::abs(ns(packet.makespan) / ns(flow.makespan) - 1), 0.05);
  // Link statistics: 16384 packets of 4158 B crossed each link, none was lost.
  ASSERT_TRUE(packet.links.has_value());
  EXPECT_DOUBLE_EQ(packet.links->bytes[link_between(t, 0, 2).value], 16384.0 * 4158);
  EXPECT_DOUBLE_EQ(packet.links->bytes[link_between(t, 2, 1).value], 16384.0 * 4158);
}

TEST(PacketModel, LatencyBoundMessageWithinOnePacketTimeOfFlow) {
  REQUIRE_PACKET_MODEL();
  // 1 KiB: one packet of 1086 B on the wire, serialised on both links: 2 us + 2 x 21.72 ns = 2043.44 ns.
  // Flow: 2 us + 1024 B / 50 GB/s = 2020.48 ns; 22.96 ns apart, less than one full packet time (83.16 ns).
  const Topology t = switch_star(2, kLink);
  Schedule s;
  s.add_transfer(NodeId{0}, NodeId{1}, Bytes::kib(1), Time::zero(), {}, 0);
  const Time packet = run_model(*packet_model(), s, t).makespan;
  const Time flow = run_model(network_models().get(NetworkModelKind::Flow), s, t).makespan;
  EXPECT_NEAR(ns(packet), 2043.44, 0.01);
  EXPECT_LT(std::abs(ns(packet) - ns(flow)), ns(kPacketTime));
}

TEST(PacketModel, EmptyMessageIsOneHeaderPacketAndDependentsWait) {
  REQUIRE_PACKET_MODEL();
  // A 0-byte transfer still sends its headers: 2 us + 2 x 62 B / 50 GB/s = 2002.48 ns. The local step after it
  // (10 ns) ends at 2012.48 ns; the 1 KiB transfer back waits for it, then its 5 ns pre-delay, then takes
  // 2043.44 ns as above: 2012.48 + 5 + 2043.44 = 4060.92 ns.
  const Topology t = switch_star(2, kLink);
  Schedule s;
  const OpId a = s.add_transfer(NodeId{0}, NodeId{1}, Bytes(0), Time::zero(), {}, 0);
  const OpId b = s.add_local(NodeId{1}, Time::ns(10), {&a, 1}, 0);
  s.add_transfer(NodeId{1}, NodeId{0}, Bytes::kib(1), Time::ns(5), {&b, 1}, 0);
  const NetworkRunResult r = run_model(*packet_model(), s, t);
  ASSERT_EQ(r.finish.size(), 3u);
  EXPECT_NEAR(ns(r.finish[0]), 2002.48, 0.01);
  EXPECT_NEAR(ns(r.finish[1]), 2012.48, 0.01);
  EXPECT_NEAR(ns(r.finish[2]), 2012.48 + 5 + 2043.44, 0.01);
}

// Two 8 MiB messages into NPU 2 at once (incast of two) on a 3-NPU star.
Schedule incast_of_two() {
  Schedule s;
  s.add_transfer(NodeId{0}, NodeId{2}, Bytes::mib(8), Time::zero(), {}, 0);
  s.add_transfer(NodeId{1}, NodeId{2}, Bytes::mib(8), Time::zero(), {}, 1);
  return s;
}

TEST(PacketModel, IncastWithRoomyBuffersRunsAtTheBottleneckRate) {
  REQUIRE_PACKET_MODEL();
  // 4096 packets share the switch's port to NPU 2; with a 64 MiB buffer none is lost and the port never idles
  // after the first arrival: 2 us + 4097 x 83.16 ns = 342,706.52 ns. Flow: both at 25 GB/s, 2 us + 16 MiB /
  // 50 GB/s = 337,544.32 ns. Round-robin arrivals interleave the two, so both end within a few packet times.
  const Topology t = switch_star(3, kLink);
  const Schedule s = incast_of_two();
  const NetworkRunResult packet = run_model(*packet_model(), s, t, PacketOptions{Bytes::mib(64), false});
  const NetworkRunResult flow = run_model(network_models().get(NetworkModelKind::Flow), s, t);
  EXPECT_NEAR(ns(packet.makespan), 2000 + 4097 * 83.16, 1.0);
  EXPECT_DOUBLE_EQ(ns(flow.makespan), 337'544.32);
  for (size_t op = 0; op < 2; ++op)
    EXPECT_LT(std::abs(ns(packet.finish[op]) / ns(flow.finish[op]) - 1), 0.05) << op;
  EXPECT_LT(ns(packet.finish[1]) - ns(packet.finish[0]), 3 * ns(kPacketTime));
  EXPECT_DOUBLE_EQ(packet.links->bytes[link_between(t, 3, 2).value], 4096.0 * 4158);  // nothing resent
}

TEST(PacketModel, SmallDropTailBuffersLoseAndResendButNeverBeatTheBottleneck) {
  REQUIRE_PACKET_MODEL();
  // With 64 KiB per port the same incast overflows the switch's port: packets are dropped and resent
  // (go-back-N), so more than the 4096 x 4158 B needed cross the senders' links, and the makespan stays above
  // the bottleneck bound of 4096 packet times plus the two links' latency.
  const Topology t = switch_star(3, kLink);
  const Schedule s = incast_of_two();
  const NetworkRunResult drop_tail = run_model(*packet_model(), s, t, PacketOptions{Bytes::kib(64), false});
  const double sent =
      drop_tail.links->bytes[link_between(t, 0, 3).value] + drop_tail.links->bytes[link_between(t, 1, 3).value];
  EXPECT_GT(sent, 4096.0 * 4158);
  EXPECT_GT(ns(drop_tail.makespan), 2000 + 4096 * 83.16);
  // The port held at most its buffer: 64 KiB / 4156 B per queued packet = 15 packets.
  EXPECT_LE(drop_tail.links->peak_flows[link_between(t, 3, 2).value], 15u);
  // RED/ECN on the same buffer: senders slow down on marks; the bound still holds.
  const NetworkRunResult ecn = run_model(*packet_model(), s, t, PacketOptions{Bytes::kib(64), true});
  EXPECT_GT(ns(ecn.makespan), 2000 + 4096 * 83.16);
}

TEST(PacketModel, RingAllReduceWithinFivePercentOfFlow) {
  REQUIRE_PACKET_MODEL();
  // Ring All-Reduce of 16 MiB on an 8-NPU ring: 14 steps of 2 MiB per link, each bandwidth-bound (512 packets);
  // nothing competes, so packet and flow differ only by headers and one packet time per step (under 2%).
  const Topology t = ring(8, kLink);
  CollectiveRunOptions options;
  options.plan.algorithms = {AlgorithmChoice{AlgorithmKind::Ring, 0}};
  const Collective c{CollectiveKind::AllReduce, Bytes::mib(16), 8};
  options.model = NetworkModelKind::Flow;
  const Time flow = run_collective(t, c, options).time;
  options.model = NetworkModelKind::Packet;
  const CollectiveRunResult packet = run_collective(t, c, options);
  EXPECT_EQ(packet.evaluation, "schedule");
  EXPECT_GT(packet.time, flow);
  EXPECT_LT(ns(packet.time) / ns(flow) - 1, 0.05);
}

TEST(PacketModel, SameInputSameOutputAlsoFromConcurrentThreads) {
  REQUIRE_PACKET_MODEL();
  // RED draws random numbers: runs must still repeat exactly, one after the other and from two threads at once
  // (ns-3 has one simulator per process; the model serialises its runs).
  const Topology t = switch_star(3, kLink);
  const Schedule s = incast_of_two();
  const PacketOptions red{Bytes::kib(64), true};
  const NetworkRunResult first = run_model(*packet_model(), s, t, red);
  std::vector<NetworkRunResult> threaded(2);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < threaded.size(); ++i)
    threads.emplace_back([&, i] { threaded[i] = run_model(*packet_model(), s, t, red); });
  for (std::thread& th : threads)
    th.join();
  for (const NetworkRunResult& r : threaded) {
    EXPECT_EQ(r.finish, first.finish);
    EXPECT_EQ(r.links->bytes, first.links->bytes);
  }
}

// --- the transport's state machines (no ns-3) ---

TEST(GoBackN, GapIsNakedOnceAndTheSenderResendsFromIt) {
  GoBackNSender s(4);
  GoBackNReceiver r(4);
  EXPECT_EQ(r.on_packet(s.take_next()), GoBackNReceiver::Arrival::InOrder);  // 0
  s.take_next();                                                             // 1 is lost
  EXPECT_EQ(r.on_packet(s.take_next()), GoBackNReceiver::Arrival::Gap);      // 2
  EXPECT_TRUE(r.take_nak(2));
  EXPECT_EQ(r.on_packet(s.take_next()), GoBackNReceiver::Arrival::Gap);  // 3, sent before the NAK arrived
  EXPECT_FALSE(r.take_nak(3));                                           // one NAK per loss
  s.on_nak(r.expected());
  EXPECT_EQ(s.acked(), 1u);
  EXPECT_EQ(s.take_next(), 1u);
  EXPECT_EQ(r.on_packet(1), GoBackNReceiver::Arrival::InOrder);
  EXPECT_EQ(r.on_packet(s.take_next()), GoBackNReceiver::Arrival::InOrder);   // 2
  EXPECT_EQ(r.on_packet(s.take_next()), GoBackNReceiver::Arrival::Complete);  // 3
  EXPECT_EQ(r.on_packet(3), GoBackNReceiver::Arrival::Duplicate);
  s.on_ack(r.expected());
  EXPECT_TRUE(s.done());
}

TEST(GoBackN, AResentPacketLostAgainIsNakedAgain) {
  // 1 is lost; 2 and 3 arrive (one NAK). The resent 1 is lost again; the resent 2 arrives: it is no newer than
  // what the receiver had seen at its NAK (up to 3), so it reveals the second loss: NAK(1) again.
  GoBackNReceiver r(5);
  EXPECT_EQ(r.on_packet(0), GoBackNReceiver::Arrival::InOrder);
  EXPECT_EQ(r.on_packet(2), GoBackNReceiver::Arrival::Gap);
  EXPECT_TRUE(r.take_nak(2));
  EXPECT_EQ(r.on_packet(3), GoBackNReceiver::Arrival::Gap);
  EXPECT_FALSE(r.take_nak(3));
  EXPECT_EQ(r.on_packet(4), GoBackNReceiver::Arrival::Gap);  // sent before the NAK arrived: silent
  EXPECT_FALSE(r.take_nak(4));
  EXPECT_EQ(r.on_packet(2), GoBackNReceiver::Arrival::Gap);  // resent
  EXPECT_TRUE(r.take_nak(2));
  EXPECT_EQ(r.expected(), 1u);
}

TEST(GoBackN, TimeoutResendsFromTheLastAcknowledgement) {
  GoBackNSender s(3);
  for (int i = 0; i < 3; ++i)
    s.take_next();
  s.on_ack(1);
  EXPECT_FALSE(s.has_next());
  s.on_timeout();
  EXPECT_EQ(s.take_next(), 1u);
}

TEST(DcqcnRate, CutsByHalfAlphaThenRecoversToTheLineRate) {
  // alpha starts at 1: the first CNP halves the rate (50 -> 25 GB/s) and sets the target to 50. Fast recovery
  // halves the distance to the target each period: 37.5, 43.75 GB/s.
  DcqcnRate r(Bandwidth::gb_per_s(50));
  EXPECT_FALSE(r.recovering());
  r.on_congestion();
  EXPECT_DOUBLE_EQ(r.rate().gb_per_second(), 25);
  EXPECT_TRUE(r.recovering());
  r.on_period(false);
  EXPECT_DOUBLE_EQ(r.rate().gb_per_second(), 37.5);
  r.on_period(false);
  EXPECT_DOUBLE_EQ(r.rate().gb_per_second(), 43.75);
  r.on_period(true);  // a CNP in the period: no increase
  EXPECT_DOUBLE_EQ(r.rate().gb_per_second(), 43.75);
  for (int i = 0; i < 100; ++i)
    r.on_period(false);
  EXPECT_FALSE(r.recovering());
  EXPECT_DOUBLE_EQ(r.rate().gb_per_second(), 50);
}

TEST(DcqcnRate, LossHalvesAndRecoversOnlyAdditively) {
  // 50 -> 25 GB/s, target 25: the next period raises the target by 1% of the line rate (0.5 GB/s) and moves
  // halfway to it: 25.25 GB/s.
  DcqcnRate r(Bandwidth::gb_per_s(50));
  r.on_loss();
  EXPECT_DOUBLE_EQ(r.rate().gb_per_second(), 25);
  r.on_period(false);
  EXPECT_DOUBLE_EQ(r.rate().gb_per_second(), 25.25);
}

TEST(DcqcnRate, LossHalvesAndTheRateHasAFloor) {
  // 50 GB/s / 1024 = 48.828125 MB/s is the least a sender falls to.
  DcqcnRate r(Bandwidth::gb_per_s(50));
  for (int i = 0; i < 40; ++i)
    r.on_loss();
  EXPECT_DOUBLE_EQ(r.rate().bytes_per_second(), 50e9 / 1024);
}

TEST(PacketOptions, QueueMustHoldOnePacketAndOnlyThePacketModelTakesIt) {
  EXPECT_EQ(packet_options_argument("", false, true).queue, Bytes::mib(1));
  EXPECT_EQ(packet_options_argument("4158", true, true).queue, Bytes(4158));
  EXPECT_THROW(packet_options_argument("0", false, true), Error);
  EXPECT_THROW(packet_options_argument("4157", false, true), Error);
  EXPECT_THROW(packet_options_argument("2GiB", false, true), Error);
  EXPECT_THROW(packet_options_argument("1MiB", false, false), Error);
  EXPECT_THROW(packet_options_argument("", true, false), Error);
}

// --- the CLI ---

std::vector<std::string> collective_args(std::vector<std::string> extra) {
  std::vector<std::string> args = {"collective", "--topology",   "ring:4",     "--bandwidth", "50GB/s", "--latency",
                                   "500ns",      "--collective", "all_reduce", "--size",      "1MiB"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(PacketModelCli, BadQueueOptionsAreOneLineAndExitTwo) {
  struct Case {
    std::vector<std::string> extra;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"--model", "packet", "--queue", "0"}, "--queue: is 0 B; an output port must hold at least one full packet"},
      {{"--model", "packet", "--queue", "1000"}, "--queue: is 1000 B"},
      {{"--model", "packet", "--queue", "2GiB"}, "--queue: is 2 GiB; at most 1 GiB per output port"},
      {{"--model", "packet", "--queue", "lots"}, "--queue"},
      {{"--model", "flow", "--ecn"}, "--ecn: applies only with --model packet"},
      {{"--model", "flow", "--queue", "1MiB"}, "--queue: applies only with --model packet"},
      {{"--model", "packet", "--algorithm", "synth", "--queue", "1MiB"}, "--queue"},
  };
  for (const Case& c : cases) {
    const testing_support::CliRun r = testing_support::run_chorus(collective_args(c.extra), true);
    SCOPED_TRACE(c.expected);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    // Without ns-3, --model packet stops first, at the model (PacketWithoutNs3SaysHowToInstallIt).
    if (packet_model() != nullptr || c.extra[1] != "packet") {
      EXPECT_NE(r.out.find(c.expected), std::string::npos) << r.out;
    }
  }
}

TEST(PacketModelCli, SimRefusesBadQueuesToo) {
  // The options are read before the workload, so a missing trace does not hide them.
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--model", "packet", "--queue", "0"}, std::vector<std::string>{"--ecn"}}) {
    std::vector<std::string> args = {"sim",         "--workload", "no-such-trace", "--topology", "ring:4",
                                     "--bandwidth", "50GB/s",     "--latency",     "500ns"};
    args.insert(args.end(), extra.begin(), extra.end());
    const testing_support::CliRun r = testing_support::run_chorus(args, true);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    const bool model_missing = packet_model() == nullptr && extra[0] == "--model";
    EXPECT_NE(r.out.find(model_missing ? "--model" : extra[extra.size() == 1 ? 0 : 2]), std::string::npos) << r.out;
  }
}

TEST(PacketModelCli, CollectiveAndSimRunOnPackets) {
  REQUIRE_PACKET_MODEL();
  const testing_support::CliRun c =
      testing_support::run_chorus(collective_args({"--model", "packet", "--queue", "256KiB", "--ecn", "--json"}), true);
  EXPECT_EQ(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("\"model\":\"packet\""), std::string::npos) << c.out;
  const std::string dir = ::testing::TempDir() + "packet_sim_trace";
  const testing_support::CliRun g = testing_support::run_chorus(
      {"generate", "microbench", "--collective", "all_reduce", "--npus", "4", "--size", "1MiB", "--out", dir}, true);
  ASSERT_EQ(g.status, 0) << g.out;
  const testing_support::CliRun s =
      testing_support::run_chorus({"sim", "--workload", dir, "--topology", "ring:4", "--bandwidth", "50GB/s",
                                   "--latency", "500ns", "--model", "packet", "--queue", "256KiB", "--json"},
                                  false);
  EXPECT_EQ(s.status, 0) << s.out;
  EXPECT_NE(s.out.find("\"model\":\"packet\""), std::string::npos) << s.out;
}

}  // namespace
}  // namespace chorus
