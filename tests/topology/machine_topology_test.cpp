// Machine presets as topologies: the node's GPUs on their scale-up fabric and one NIC rail per GPU, counted and
// priced by hand from the presets' datasheet values.
#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/machine/machine.hpp"
#include "chorus/topology/machine_topology.hpp"
#include "tests/support/cli_runner.hpp"

#include <nlohmann/json.hpp>

namespace chorus {
namespace {

TEST(MachineTopology, TwoDgxH100NodesAreSwitchesAndRails) {
  const Topology t = machine_topology(machine::machine("dgx-h100"), 2, {});
  EXPECT_EQ(t.name(), "dgx-h100:2");
  EXPECT_EQ(t.npu_count(), 16u);
  EXPECT_EQ(t.node_count(), 16u + 2 + 8);  // 2 NVSwitch planes (one per node), 8 rail switches
  EXPECT_EQ(t.link_count(), 16u * 2 * 2);  // every GPU: a duplex link to its NVSwitch and one to its rail
  const auto out = t.out_links(NodeId{0});
  ASSERT_EQ(out.size(), 2u);
  // 450 GB/s each way into the NVSwitch at 1 us, 50 GB/s (400 Gb/s) to the rail at 5 us: the machine model's values.
  EXPECT_DOUBLE_EQ(t.link_bandwidth(out[0]).bytes_per_second(), 450e9);
  EXPECT_EQ(t.link_latency(out[0]), Time::us(1));
  EXPECT_DOUBLE_EQ(t.link_bandwidth(out[1]).bytes_per_second(), 50e9);
  EXPECT_EQ(t.link_latency(out[1]), Time::us(5));
}

TEST(MachineTopology, Mi300xNodeIsAFullMeshOfOneLinkPerPeer) {
  const Topology t = machine_topology(machine::machine("mi300x"), 1, {Time::ns(700)});
  EXPECT_EQ(t.npu_count(), 8u);
  EXPECT_EQ(t.node_count(), 8u);
  EXPECT_EQ(t.link_count(), 8u * 7);
  for (const LinkId l : t.out_links(NodeId{3})) {
    EXPECT_DOUBLE_EQ(t.link_bandwidth(l).bytes_per_second(), 64e9);  // 128 GB/s per link both ways
    EXPECT_EQ(t.link_latency(l), Time::ns(700));
  }
}

TEST(MachineTopology, RefusesWhatTheMachineCannotBe) {
  EXPECT_THROW(machine_topology(machine::machine("dgx-h100"), 0, {}), Error);
  EXPECT_THROW(machine_topology(machine::machine("dgx-h100"), 1025, {}), Error);
  EXPECT_THROW(machine_topology(machine::machine("tpu-v4-pod"), 1, {}), Error);
  EXPECT_THROW(machine_topology(machine::machine("dgx-h100"), 2, {Time::us(1), Time::us(1), Time::us(1)}), Error);
}

TEST(MachineTopologyCli, BoundOfTwoDgxH100Nodes) {
  // All-Gather of 1 GiB on 16 GPUs: each GPU receives 15/16 GiB through 450 + 50 GB/s of in-links, 2.013 ms; a node
  // receives 1/2 GiB through 8 rails of 50 GB/s, 1.342 ms. The GPU cut binds.
  const auto r = testing_support::run_chorus(
      {"bound", "--machine", "dgx-h100", "--nodes", "2", "--collective", "all_gather", "--size", "1GiB", "--json"},
      false);
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["bound_ns"].get<double>(), 15.0 / 16 * 1073741824 / 500e9 * 1e9, 1.0);
  EXPECT_EQ(j["npus"].get<int>(), 16);
}

TEST(MachineTopologyCli, BadMachineOptionsAreOneLine) {
  const auto far = testing_support::run_chorus(
      {"collective", "--machine", "dgx-h100", "--nodes", "2000", "--collective", "all_reduce", "--size", "1MiB"}, true);
  EXPECT_EQ(far.status, 2);
  EXPECT_EQ(far.out, "error: --nodes: is 2000; dgx-h100 joins 1 to 1024 nodes\n");
  const auto typo = testing_support::run_chorus(
      {"collective", "--machine", "dgx-h10", "--collective", "all_reduce", "--size", "1MiB"}, true);
  EXPECT_EQ(typo.status, 2);
  EXPECT_NE(typo.out.find("did you mean 'dgx-h100'?"), std::string::npos) << typo.out;
  const auto both = testing_support::run_chorus(
      {"collective", "--machine", "dgx-h100", "--bandwidth", "50GB/s", "--collective", "all_reduce", "--size", "1MiB"},
      true);
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.out.find("--bandwidth"), std::string::npos) << both.out;
  const auto nodes =
      testing_support::run_chorus({"collective", "--topology", "ring:8", "--bandwidth", "50GB/s", "--latency", "1us",
                                   "--nodes", "2", "--collective", "all_reduce", "--size", "1MiB"},
                                  true);
  EXPECT_EQ(nodes.status, 2);
  EXPECT_EQ(nodes.out, "error: --nodes: applies only with --machine\n");
}

}  // namespace
}  // namespace chorus
