// NCCL's cost model on machine presets, against values worked out by hand from NCCL 2.30.7's tuning.cc constants and
// the machines' documented links (docs/nccl.md gives the derivation).
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "chorus/core/error.hpp"
#include "chorus/nccl/comm_system.hpp"
#include "chorus/nccl/cost_model.hpp"
#include "chorus/nccl/group_timing.hpp"

namespace chorus::nccl {
namespace {

const Candidate& find(const Choice& c, std::string_view algorithm, std::string_view protocol) {
  for (const Candidate& k : c.candidates) {
    if (k.algorithm == algorithm && k.protocol == protocol)
      return k;
  }
  throw std::runtime_error("no candidate");
}

TEST(NcclCommSystem, DgxH100OneNodeRingsAreTwelveChannelsOfThirty) {
  // 18 NVLinks x 20.6 GB/s = 370.8; the fastest Hopper search speed that fits is 60 (6 channels), duplicated.
  const CommSystem s = comm_system(machine::machine("dgx-h100"), 1);
  EXPECT_NEAR(s.intra_bw, 370.8, 1e-9);
  EXPECT_EQ(s.graph(Algorithm::kRing).channels, 12u);
  EXPECT_DOUBLE_EQ(s.graph(Algorithm::kRing).bw_intra, 30.0);
  // NVLS (search.cc's NVLS pattern): every GPU a head, 8 channels; each loads a GPU's links once and its head's
  // twice, so 9 x speed <= 370.8: 50 needs 450, 40 needs 360. The inter-node speed then climbs to 60, the top of the
  // Hopper array (under 2 x 40).
  EXPECT_EQ(s.graph(Algorithm::kNvls).channels, 8u);
  EXPECT_DOUBLE_EQ(s.graph(Algorithm::kNvls).bw_intra, 40.0);
  EXPECT_DOUBLE_EQ(s.graph(Algorithm::kNvls).bw_inter, 60.0);
  EXPECT_EQ(s.constants->library, "NCCL 2.30.7");
}

TEST(NcclCommSystem, DgxH100TwoNodesRunOneRingPerNic) {
  // The inter-node search starts at 48, the fastest Hopper inter speed a 400 Gb/s (50 GB/s) NIC carries: one ring
  // per NIC, 8; a GPU's links carry the 7 of 8 rings it is not last in (7 x 48 = 336 <= 370.8). Not duplicated:
  // Hopper keeps more than 4 channels under 50 GB/s as they are.
  const CommSystem s = comm_system(machine::machine("dgx-h100"), 2);
  EXPECT_EQ(s.ranks, 16u);
  EXPECT_EQ(s.graph(Algorithm::kRing).channels, 8u);
  EXPECT_DOUBLE_EQ(s.graph(Algorithm::kRing).bw_inter, 48.0);
  EXPECT_DOUBLE_EQ(s.graph(Algorithm::kRing).bw_intra, 48.0);
}

TEST(NcclCommSystem, DgxA100AndMi300x) {
  // A100: 12 x 20 = 240; speed 40 gives 6 channels, duplicated to 12 of 20.
  const CommSystem a = comm_system(machine::machine("dgx-a100"), 1);
  EXPECT_EQ(a.graph(Algorithm::kRing).channels, 12u);
  EXPECT_DOUBLE_EQ(a.graph(Algorithm::kRing).bw_intra, 20.0);
  EXPECT_EQ(a.graph(Algorithm::kNvls).channels, 0u);  // no NVLink SHARP before Hopper
  // MI300X under RCCL: 7 xGMI links of 48 GB/s; one ring per link, duplicated: 14 channels of 24.
  const CommSystem m = comm_system(machine::machine("mi300x"), 1);
  EXPECT_EQ(m.constants->library, "RCCL 2.21.5");
  EXPECT_NEAR(m.intra_bw, 336.0, 1e-9);
  EXPECT_EQ(m.graph(Algorithm::kRing).channels, 14u);
  EXPECT_NEAR(m.graph(Algorithm::kRing).bw_intra, 24.0, 1e-9);
}

TEST(NcclCostModel, SmallAllReduceOnOneH100NodeIsRingLowLatency) {
  // Ring/LL latency: base 6.6 + 2(n-1) = 14 NVLink hops of 0.6 us = 15.0 us.
  const Choice c = choose(comm_system(machine::machine("dgx-h100"), 1), CollectiveKind::AllReduce, 8);
  EXPECT_EQ(c.best().algorithm, "Ring");
  EXPECT_EQ(c.best().protocol, "LL");
  EXPECT_NEAR(c.best().latency_us, 15.0, 1e-4);
  // LL bandwidth: min(llMaxBw 141, 360 x 0.5) = 141 bus, x 8/14 to algorithm bandwidth.
  EXPECT_NEAR(c.best().bandwidth_GBps, 141.0 * 8 / 14, 1e-3);
}

TEST(NcclCostModel, LargeAllReduceOnOneH100NodeIsNvls) {
  // NVLS: NCCL's 8 heads x min(40 GB/s x 0.85 efficiency x 7/8 x 2 (All-Reduce pipelines two operations) = 59.5,
  // inter 60, the links' 40 x 2 x 7/9 = 62.2) = 476 bus (nccl-tests#290 measures 476); x 8/14 = 272 algorithm.
  // Latency: the NVLink NVLS hop, 25 us; fill: one 1 MiB slice through one more stage at a channel's 59.5 GB/s.
  const int64_t bytes = int64_t{8} << 30;
  const Choice c = choose(comm_system(machine::machine("dgx-h100"), 1), CollectiveKind::AllReduce, bytes);
  EXPECT_EQ(c.best().algorithm, "NVLS");
  const double bus = 8 * 40 * 0.85 * 7 / 8 * 2;
  const double bw = bus * 8 / 14;
  EXPECT_NEAR(c.best().bandwidth_GBps, bw, 1e-3);
  const double fill = 1048576 / (1000 * bus / 8);
  EXPECT_NEAR(c.best().fill_us, fill, 1e-3);
  EXPECT_NEAR(c.time_us, 25 + bytes / (1000 * bw) + fill, 0.05);
  EXPECT_NEAR(c.busbw_GBps(8), bus * bytes / (bytes + (25 + fill) * 1e3 * bw), 0.01);
}

TEST(NcclCostModel, TreeFillGrowsWithSizeUntilTheSliceIsFull) {
  // Tree/Simple on 4 H100 nodes: 8 channels of 48; bus min(8 x 48 x 0.92 = 353.3, 8 x 36.0) = 288 GB/s, 36 per
  // channel; 2 x (7 + log2 4) = 18 stages; slice = min(1 MiB, S / (8 x 32 x 2)).
  const CommSystem s = comm_system(machine::machine("dgx-h100"), 4);
  const auto fill_at = [&](int64_t bytes) {
    return find(choose(s, CollectiveKind::AllReduce, bytes), "Tree", "Simple").fill_us;
  };
  const double per_channel = 36.0;
  EXPECT_NEAR(fill_at(int64_t{16} << 20), 17 * (16.0 * 1048576 / 512) / (1000 * per_channel), 1e-6);
  EXPECT_NEAR(fill_at(int64_t{1} << 30), 17 * 1048576.0 / (1000 * per_channel), 1e-6);  // 1 GiB / 512 > 1 MiB
  EXPECT_DOUBLE_EQ(find(choose(s, CollectiveKind::AllReduce, 1 << 30), "Ring", "Simple").fill_us, 0.0);
  EXPECT_DOUBLE_EQ(find(choose(s, CollectiveKind::AllReduce, 1 << 20), "Tree", "LL").fill_us, 0.0);
}

TEST(NcclCostModel, RingSimpleAcrossTwoNodesPaysTheNetworkHopsAndThePlateau) {
  // 16 ranks on 2 nodes: 30 steps, 2 of them across the network. Intra hop max(3.4, 3 x 1.0 net overhead) = 3.4,
  // network hop 14 us: 8.4 + 28 x 3.4 + 2 x 14 = 131.6 us, x 1.4 (the ring's plateau on Ampere and later).
  const CommSystem s = comm_system(machine::machine("dgx-h100"), 2);
  const Choice c = choose(s, CollectiveKind::AllReduce, int64_t{1} << 30, "Ring");
  const Candidate& k = find(c, "Ring", "Simple");
  EXPECT_NEAR(k.latency_us, (8.4 + 28 * 3.4 + 2 * 14) * 1.4, 1e-3);
  // 8 channels x 48 x 16/30.
  EXPECT_NEAR(k.bandwidth_GBps, 8 * 48.0 * 16 / 30, 1e-3);
  EXPECT_EQ(c.best().algorithm, "Ring");  // NCCL_ALGO=Ring leaves only Ring
}

TEST(NcclCostModel, TreeCorrectionAppliesToMediumAllReduce) {
  // 1 MiB: log2(1 MiB / 64) = 14, Tree/Simple factor 0.5.
  const CommSystem s = comm_system(machine::machine("dgx-h100"), 4);
  const Choice c = choose(s, CollectiveKind::AllReduce, int64_t{1} << 20);
  const Candidate& k = find(c, "Tree", "Simple");
  // Tree bus: min(8 x 48 x 0.92, 8 x 36.0) = 288, halved, x 0.5.
  EXPECT_NEAR(k.bandwidth_GBps, std::min(8 * 48 * 0.92, 8 * 36.0) * 0.5 * 0.5, 1e-3);
  // Latency: 8.4 + 2 x (7 x 4.0 + log2(4) x 14) = 120.4 us.
  EXPECT_NEAR(k.latency_us, 8.4 + 2 * (7 * 4.0 + 2 * 14), 1e-3);
}

TEST(NcclCostModel, DisabledCandidatesSayWhy) {
  const Choice c = choose(comm_system(machine::machine("dgx-a100"), 2), CollectiveKind::AllGather, 1 << 20);
  EXPECT_NE(find(c, "Tree", "Simple").disabled.find("not implemented"), std::string::npos);
  EXPECT_NE(find(c, "NVLS", "Simple").disabled.find("NVLink SHARP"), std::string::npos);
  EXPECT_NE(find(c, "PAT", "Simple").disabled.find("one GPU per node"), std::string::npos);
  EXPECT_NE(find(c, "CollNetDirect", "Simple").disabled.find("SHARP"), std::string::npos);
  EXPECT_EQ(c.best().algorithm, "Ring");
}

TEST(NcclCostModel, AllToAllIsBoundByTheBusierOfNvlinkAndNics) {
  // 2 MI355X nodes: 16 ranks; a GPU sends 7/16 of its buffer over xGMI (7 x 48 x 76.8/64 = 403.2 GB/s) and 8/16 over
  // its NIC (50 GB/s): the NIC bounds. Latency: RCCL base 17 + network hop 14.
  const CommSystem s = comm_system(machine::machine("mi355x"), 2);
  const int64_t bytes = int64_t{1} << 30;
  const Choice c = choose(s, CollectiveKind::AllToAll, bytes);
  EXPECT_EQ(c.best().algorithm, "SendRecv");
  EXPECT_NEAR(s.intra_bw, 403.2, 1e-9);
  EXPECT_NEAR(c.time_us, 17 + 14 + bytes * 0.5 / (1000 * 50.0), 1e-3);
  // One node: xGMI only, 7/8 of the buffer, latency 17 + 2.1.
  const Choice one = choose(comm_system(machine::machine("mi355x"), 1), CollectiveKind::AllToAll, bytes);
  EXPECT_NEAR(one.time_us, 19.1 + bytes * 7.0 / 8 / (1000 * 403.2), 1e-3);
}

TEST(NcclCostModel, ScalesMultiplyBandwidthAndLatency) {
  const Scales k{0.5, 1, 2, 4.5};
  const Choice base = choose(comm_system(machine::machine("dgx-h100"), 1), CollectiveKind::AllReduce, 8, "Ring");
  const Choice scaled = choose(comm_system(machine::machine("dgx-h100"), 1, k), CollectiveKind::AllReduce, 8, "Ring");
  EXPECT_NEAR(scaled.best().latency_us, 2 * base.best().latency_us + 4.5, 1e-9);
}

TEST(NcclCommSystem, RefusesMachinesNcclDoesNotRunOnAndBadNodeCounts) {
  EXPECT_THROW(comm_system(machine::machine("tpu-v4-pod"), 1), Error);
  EXPECT_THROW(comm_system(machine::machine("dgx-h100"), 0), Error);
  EXPECT_THROW(comm_system(machine::machine("dgx-h100"), 1025), Error);
  EXPECT_THROW(comm_system(machine::machine("dgx-h100"), 1, {}, 9), Error);
}

}  // namespace
}  // namespace chorus::nccl

namespace chorus::nccl {
namespace {

TEST(NcclCostModel, NvlsOnTwoGpusIsHeldToWhatTheirLinksCarry) {
  // 2 GPUs of an H100 node: 2 heads at the top Hopper speed, 60 (3 x 60 fits 370.8); NCCL's formula gives
  // 2 x 60 x 0.85 x 1/2 x 2 = 102 GB/s bus; each GPU's links carry 3/2 of the buffer, so a channel's bus bandwidth
  // is at most 60 x 2 x 1 / 3 = 40: 80 GB/s.
  const CommSystem s = comm_system(machine::machine("dgx-h100"), 1, {}, 2);
  EXPECT_EQ(s.graph(Algorithm::kNvls).channels, 2u);
  const Choice c = choose(s, CollectiveKind::AllReduce, int64_t{1} << 30, "NVLS");
  EXPECT_NEAR(c.best().bandwidth_GBps, 2 * 60 * 2.0 / 3 * 2 / 2, 1e-6);  // x nRanks / nsteps = 2 / 2
}

TEST(NcclCommSystem, NvlsHeadsAcrossNodesAndOnALargeDomain) {
  // 2 H100 nodes: one head per GPU with a NIC (8), searched from the NIC's speed in the inter-node array (48, 45, 42
  // need more than 370.8 for 9 loads; 40 fits), then the inter-node speed climbs to 48 (a 400 Gb/s NIC carries it).
  const CommSystem h = comm_system(machine::machine("dgx-h100"), 2);
  EXPECT_EQ(h.graph(Algorithm::kNvlsTree).channels, 8u);
  EXPECT_DOUBLE_EQ(h.graph(Algorithm::kNvlsTree).bw_intra, 40.0);
  EXPECT_DOUBLE_EQ(h.graph(Algorithm::kNvlsTree).bw_inter, 48.0);
  // NVLSTree bus: 8 x min(40 x 0.85 x 7/8 x 2 = 59.5, 2 x 48, Hopper's 2-node cap 57.7) = 461.6 (nccl-tests#309
  // measures 469 at 16 GiB); x 16/30 to algorithm bandwidth.
  const Choice c = choose(h, CollectiveKind::AllReduce, int64_t{8} << 30, "NVLSTree");
  EXPECT_NEAR(c.best().bandwidth_GBps, 8 * 57.7 * 16 / 30, 1e-3);
  // 2 B200 nodes: 48 is the first Blackwell inter speed a 50 GB/s NIC carries, and 9 x 48 fits 721.8.
  const CommSystem b = comm_system(machine::machine("dgx-b200"), 2);
  EXPECT_EQ(b.graph(Algorithm::kNvls).channels, 8u);
  EXPECT_DOUBLE_EQ(b.graph(Algorithm::kNvls).bw_intra, 48.0);
  EXPECT_DOUBLE_EQ(b.graph(Algorithm::kNvls).bw_inter, 48.0);
  // A 72-GPU NVL72 rack: 32 heads (NCCL_MAX_NVLS_ARITY); 32 x speed within 721.8 x 72/71 leaves 20, and 33 x 20
  // fits; the inter speed climbs 24, 30, 40 (not past 2 x 20).
  const CommSystem r = comm_system(machine::machine("gb200-nvl72"), 1);
  EXPECT_EQ(r.graph(Algorithm::kNvls).channels, 32u);
  EXPECT_DOUBLE_EQ(r.graph(Algorithm::kNvls).bw_intra, 20.0);
  EXPECT_DOUBLE_EQ(r.graph(Algorithm::kNvls).bw_inter, 40.0);
}

TEST(NcclGroupTiming, GroupsAreCommunicatorsOfTheNodesTheySpan) {
  const NcclContext h100{&machine::machine("dgx-h100"), {}};
  const Bytes size = Bytes::mib(64);
  // Four GPUs of node 0: one node, 4 ranks.
  const GroupTiming inside =
      time_group(h100, CollectiveKind::AllReduce, size, group_shape(*h100.machine, {0, 1, 2, 3}));
  const Choice one_node =
      choose(comm_system(machine::machine("dgx-h100"), 1, {}, 4), CollectiveKind::AllReduce, size.count());
  EXPECT_EQ(inside.duration.picoseconds(), std::llround(one_node.time_us * 1e6));
  EXPECT_EQ(inside.label,
            "nccl:" + std::string(one_node.best().algorithm) + "/" + std::string(one_node.best().protocol));
  // GPU 0 of two nodes: 2 nodes, one rank each.
  const GroupTiming across = time_group(h100, CollectiveKind::AllReduce, size, group_shape(*h100.machine, {0, 8}));
  const Choice two_nodes =
      choose(comm_system(machine::machine("dgx-h100"), 2, {}, 1), CollectiveKind::AllReduce, size.count());
  EXPECT_EQ(across.duration.picoseconds(), std::llround(two_nodes.time_us * 1e6));
  EXPECT_GT(across.duration, inside.duration);  // one NIC against NVLink
  EXPECT_EQ(time_group(h100, CollectiveKind::AllReduce, size, group_shape(*h100.machine, {5})).duration, Time::zero());
  // GPUs 2,3 of node 1 and 1,2 of node 4: 2 nodes, 2 GPUs each.
  EXPECT_EQ(group_shape(*h100.machine, {10, 11, 33, 34}), (GroupShape{2, 2}));
}

}  // namespace
}  // namespace chorus::nccl

#include "chorus/nccl/calibrated_machine.hpp"
#include "chorus/topology/machine_topology.hpp"

namespace chorus::nccl {
namespace {

TEST(NcclTopologyDump, ANodesDumpIsAMachine) {
  // tests/data/nccl/dgx_a100_like.xml: 8 sm80 GPUs, each with 6 x 2 NVLinks to NVSwitches; 4 NICs of 200 Gb/s.
  const CalibratedMachine c = resolve_machine(std::string(CHORUS_SOURCE_DIR) + "/tests/data/nccl/dgx_a100_like.xml");
  const machine::Machine& m = *c.machine;
  EXPECT_EQ(m.gpus_per_node, 8u);
  EXPECT_EQ(m.scale_up_links, 12u);
  EXPECT_EQ(m.scale_up, machine::ScaleUp::kSwitch);
  EXPECT_DOUBLE_EQ(m.scale_up_bandwidth, 300e9);  // 12 links at the A100's documented 25 GB/s each way
  EXPECT_EQ(m.nics_per_node, 4u);
  EXPECT_DOUBLE_EQ(m.nic_bandwidth, 25e9);
  EXPECT_FALSE(m.in_network_reduction);
  const CommSystem s = comm_system(m, 2);
  EXPECT_DOUBLE_EQ(s.intra_bw, 240.0);  // 12 x NCCL's 20 GB/s
  // One ring per NIC at 24 GB/s (the fastest generic inter speed a 25 GB/s NIC carries), not duplicated (under 25).
  EXPECT_EQ(s.graph(Algorithm::kRing).channels, 4u);
  // Two GPUs share a NIC: each GPU's rail carries half of one, 12.5 GB/s.
  const Topology t = machine_topology(m, 2, {});
  EXPECT_EQ(t.npu_count(), 16u);
  double slowest = 1e30;
  for (uint32_t l = 0; l < t.link_count(); ++l)
    slowest = std::min(slowest, t.link_bandwidth(LinkId{l}).gb_per_second());
  EXPECT_DOUBLE_EQ(slowest, 12.5);
  EXPECT_THROW(resolve_machine(std::string(CHORUS_SOURCE_DIR) + "/tests/data/nccl/pcie_t4_like.xml"), Error);
}

}  // namespace
}  // namespace chorus::nccl
