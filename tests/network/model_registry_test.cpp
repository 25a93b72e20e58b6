// The network-model interface and registry: names, capabilities, and hand-computed times through run().
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "chorus/collective/schedule.hpp"
#include "chorus/core/assert.hpp"
#include "chorus/network/model_registry.hpp"
#include "chorus/topology/generators.hpp"
#include "tests/support/cli_runner.hpp"

namespace chorus {
namespace {

// Whether this build has ns-3 and so the packet model (CMake option CHORUS_WITH_NS3, libns3-dev installed).
bool has_packet_model() {
  return network_models().find("packet") != nullptr;
}

TEST(NetworkModelRegistry, BuiltinModelsInOrderWithUnawareFirst) {
  EXPECT_EQ(network_models().names(), has_packet_model() ? "unaware, aware, flow, packet" : "unaware, aware, flow");
  EXPECT_EQ(network_models().models().size(), has_packet_model() ? 4u : 3u);
  EXPECT_EQ(parse_network_model("aware"), NetworkModelKind::Aware);
  EXPECT_EQ(parse_network_model("fluid"), std::nullopt);
  EXPECT_EQ(to_string(NetworkModelKind::Flow), "flow");
}

TEST(NetworkModelRegistry, CapabilitiesSayWhatEachModelDoes) {
  const NetworkModelInfo& unaware = network_models().get(NetworkModelKind::Unaware).info();
  const NetworkModelInfo& aware = network_models().get(NetworkModelKind::Aware).info();
  const NetworkModelInfo& flow = network_models().get(NetworkModelKind::Flow).info();
  EXPECT_FALSE(unaware.contention || unaware.link_stats || unaware.fair_sharing);
  EXPECT_TRUE(aware.contention && aware.link_stats && !aware.fair_sharing);
  EXPECT_TRUE(flow.contention && flow.link_stats && flow.fair_sharing);
}

TEST(NetworkModelRegistry, AddingTheSameNameTwiceIsAnInternalError) {
  NetworkModelRegistry r;
  register_builtin_models(r);
  EXPECT_THROW(register_builtin_models(r), InternalError);
}

// Two 1 MB messages from NPU 0 to NPU 1 at once over one 50 GB/s, 500 ns link: 20 us of serialisation each.
// unaware: both 0.5 + 20 us. aware: the second waits for the first: 20 + 0.5 + 20 us. flow: both in flight
// 0.5 us, then 25 GB/s each for 40 us.
struct Expected {
  NetworkModelKind kind;
  Time first, second;
};

TEST(NetworkModel, TwoMessagesOnOneLinkByHand) {
  const Topology t = ring(4, LinkParams{Bandwidth::gb_per_s(50), Time::ns(500)});
  Schedule s;
  s.add_transfer(NodeId{0}, NodeId{1}, Bytes(1'000'000), Time::zero(), {}, 0);
  s.add_transfer(NodeId{0}, NodeId{1}, Bytes(1'000'000), Time::zero(), {}, 1);
  uint32_t link01 = t.link_count();
  for (uint32_t l = 0; l < t.link_count(); ++l) {
    if (t.link_src(LinkId{l}).value == 0 && t.link_dst(LinkId{l}).value == 1)
      link01 = l;
  }
  ASSERT_LT(link01, t.link_count());
  const Time half_us = Time::ns(500);
  for (const Expected& e : {Expected{NetworkModelKind::Unaware, half_us + Time::us(20), half_us + Time::us(20)},
                            Expected{NetworkModelKind::Aware, half_us + Time::us(20), half_us + Time::us(40)},
                            Expected{NetworkModelKind::Flow, half_us + Time::us(40), half_us + Time::us(40)}}) {
    const NetworkModel& m = network_models().get(e.kind);
    SCOPED_TRACE(std::string(m.info().name));
    NetworkRunOptions options;
    options.collect_link_stats = true;
    const NetworkRunResult r = m.run(s, t, options);
    ASSERT_EQ(r.finish.size(), 2u);
    EXPECT_EQ(r.finish[0], e.first);
    EXPECT_EQ(r.finish[1], e.second);
    EXPECT_EQ(r.makespan, e.second);
    EXPECT_EQ(r.links.has_value(), m.info().link_stats);
    if (r.links) {
      EXPECT_DOUBLE_EQ(r.links->bytes[link01], 2e6);
    }
  }
}

TEST(NetworkModelCli, HelpListsEveryRegisteredModel) {
  for (const char* command : {"collective", "sim"}) {
    const testing_support::CliRun r = testing_support::run_chorus({command, "--help"}, false);
    EXPECT_EQ(r.status, 0) << command;
    for (const auto& m : network_models().models()) {
      EXPECT_NE(r.out.find(std::string(m->info().name)), std::string::npos) << command;
      EXPECT_NE(r.out.find(std::string(m->info().description)), std::string::npos) << command;
    }
  }
}

TEST(NetworkModelCli, UnknownModelNamesTheFieldAndTheChoices) {
  const testing_support::CliRun r =
      testing_support::run_chorus({"collective", "--topology", "ring:4", "--bandwidth", "50GB/s", "--latency", "500ns",
                                   "--collective", "all_reduce", "--size", "1MiB", "--model", "fluid"},
                                  true);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--model"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("expected one of unaware, aware, flow"), std::string::npos) << r.out;
}

TEST(NetworkModelCli, PacketWithoutNs3SaysHowToInstallIt) {
  if (has_packet_model())
    GTEST_SKIP() << "this build has ns-3: tests/network/packet_model_test.cpp runs the model";
  for (const char* command : {"collective", "sim"}) {
    std::vector<std::string> args = {command,     "--topology", "ring:4",  "--bandwidth", "50GB/s",
                                     "--latency", "500ns",      "--model", "packet"};
    if (std::string(command) == "collective") {
      args.insert(args.end(), {"--collective", "all_reduce", "--size", "1MiB"});
    } else {
      args.insert(args.end(), {"--workload", "no-such-trace"});
    }
    const testing_support::CliRun r = testing_support::run_chorus(args, true);
    EXPECT_EQ(r.status, 2) << command;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_NE(r.out.find("apt-get install libns3-dev"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace chorus
