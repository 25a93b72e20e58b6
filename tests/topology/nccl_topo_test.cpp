// NCCL topology XML (NCCL_TOPO_DUMP_FILE) as a Topology: hand-written dumps of a DGX-A100-like node and a
// PCIe-only node (tests/data/nccl/README.md), with the All-Gather cut bound worked out by hand, and the errors.
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/core/error.hpp"
#include "chorus/topology/load.hpp"
#include "chorus/topology/nccl_topo.hpp"

namespace chorus {
namespace {

const std::string kData = std::string(CHORUS_SOURCE_DIR) + "/tests/data/nccl/";

double ns(Time t) {
  return static_cast<double>(t.picoseconds()) / 1e3;
}

// The largest bandwidth of a link from `a` to `b` (0 when none).
double gbps(const Topology& t, NodeId a, NodeId b) {
  double best = 0;
  for (const LinkId l : t.out_links(a)) {
    if (t.link_dst(l) == b)
      best = std::max(best, t.link_bandwidth(l).bytes_per_second() / 1e9);
  }
  return best;
}

TEST(NcclTopology, NcclBandwidthTables) {
  // NCCL topo.h: per-NVLink GB/s by compute capability; PCIe = lanes x (100 Mb/s units per lane) / 80.
  EXPECT_DOUBLE_EQ(nccl_nvlink_gbps(60), 18.0);
  EXPECT_DOUBLE_EQ(nccl_nvlink_gbps(70), 20.0);
  EXPECT_DOUBLE_EQ(nccl_nvlink_gbps(80), 20.0);
  EXPECT_DOUBLE_EQ(nccl_nvlink_gbps(86), 12.0);
  EXPECT_DOUBLE_EQ(nccl_nvlink_gbps(90), 20.6);
  EXPECT_DOUBLE_EQ(nccl_nvlink_gbps(100), 40.1);
  EXPECT_DOUBLE_EQ(nccl_pci_gbps("8.0 GT/s PCIe", 16), 12.0);   // Gen3 x16: 16 x 60 / 80
  EXPECT_DOUBLE_EQ(nccl_pci_gbps("16.0 GT/s PCIe", 16), 24.0);  // Gen4 x16: 16 x 120 / 80
  EXPECT_DOUBLE_EQ(nccl_pci_gbps("32.0 GT/s PCIe", 8), 24.0);   // Gen5 x8
  EXPECT_DOUBLE_EQ(nccl_pci_gbps("16.0 GT/s PCIe", 0), 24.0);   // width 0: NCCL assumes 16
  EXPECT_DOUBLE_EQ(nccl_pci_gbps("weird", 16), 12.0);           // unknown speed: NCCL's fallback, 8 GT/s
}

// 2 AMD CPUs x 2 PCIe Gen4 switches x (2 A100 GPUs + 1 NIC of 200 Gb/s); every GPU has 6 <nvlink> elements of
// count 2 to the NVSwitch chips: 12 x 20 GB/s = 240 GB/s to one NVSwitch node, each way.
TEST(NcclTopology, DgxLikeNode) {
  const Topology t = load_nccl_topology(kData + "dgx_a100_like.xml");
  EXPECT_EQ(t.npu_count(), 8u);
  // Switch nodes: 2 CPUs, 4 PCIe switches, 4 NICs (in file order), the NVSwitch, the network switch behind the NICs.
  EXPECT_EQ(t.node_count(), 8u + 2 + 4 + 4 + 1 + 1);
  // Links: 8 GPU + 4 NIC + 4 switch PCIe links, 1 CPU-CPU link, 4 NIC-network links, 8 NVLink bundles: 29 duplex.
  EXPECT_EQ(t.link_count(), 2u * 29);
  const NodeId nvswitch{18};
  for (uint32_t g = 0; g < 8; ++g) {
    EXPECT_DOUBLE_EQ(gbps(t, NodeId{g}, nvswitch), 240.0);
    EXPECT_DOUBLE_EQ(gbps(t, nvswitch, NodeId{g}), 240.0);
  }
  // All-Gather of M = 8 GB: each GPU must receive the 7/8 M it lacks through its own in-links, NVLink 240 GB/s plus
  // PCIe 24 GB/s; no other cut is tighter (two GPUs of one PCIe switch with the switch: 6/8 M over 2 x 240 +
  // 24 + 24 GB/s). Bound = 7e9 B / 264e9 B/s = 26,515,151.5 ns.
  const LowerBound bound = lower_bound(t, Collective{CollectiveKind::AllGather, Bytes(8'000'000'000), 8});
  EXPECT_NEAR(ns(bound.bandwidth_bound), 7e9 / 264e9 * 1e9, 1.0);
}

// 1 Intel Skylake CPU, 2 PCIe Gen3 switches with 2 T4-like GPUs each (no NVLink), a 100 Gb/s NIC on a Gen3 x8
// link under the second switch.
TEST(NcclTopology, PcieOnlyNode) {
  const Topology t = load_nccl_topology(kData + "pcie_t4_like.xml");
  EXPECT_EQ(t.npu_count(), 4u);
  EXPECT_EQ(t.node_count(), 4u + 1 + 2 + 1 + 1);  // CPU, 2 switches, NIC, network switch
  // Switch nodes follow the GPUs in file order (cpu, sw0, sw1, nic), then the network switch.
  const NodeId cpu{4}, sw0{5}, sw1{6}, nic{7}, net{8};
  EXPECT_DOUBLE_EQ(gbps(t, NodeId{0}, sw0), 12.0);
  EXPECT_DOUBLE_EQ(gbps(t, sw0, cpu), 12.0);
  EXPECT_DOUBLE_EQ(gbps(t, sw1, NodeId{3}), 12.0);
  EXPECT_DOUBLE_EQ(gbps(t, nic, sw1), 6.0);   // Gen3 x8
  EXPECT_DOUBLE_EQ(gbps(t, nic, net), 12.5);  // 100,000 Mb/s / 8000
  // All-Gather of M = 4 GB: a GPU receives 3/4 M through its one 12 GB/s PCIe link: 3e9 / 12e9 s = 250 ms. The
  // switch uplinks carry at most 2/4 M (2e9 / 12e9 s).
  const LowerBound bound = lower_bound(t, Collective{CollectiveKind::AllGather, Bytes(4'000'000'000), 4});
  EXPECT_NEAR(ns(bound.bandwidth_bound), 250e6, 1.0);
}

// Two V100-like GPUs (sm 70) joined by 2 NVLinks each way, on one PCIe Gen3 switch.
TEST(NcclTopology, GpuToGpuNvlinks) {
  const std::string xml = R"(<system version="1"><cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6"
    modelid="79"><pci busid="0000:01:00.0" class="0x060400" link_speed="8.0 GT/s PCIe" link_width="16">
    <pci busid="0000:1A:00.0" class="0x030200" link_speed="8.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="70" rank="1" gdr="1"><nvlink target="0000:1b:00.0" count="2" tclass="0x030200"/></gpu></pci>
    <pci busid="0000:1b:00.0" class="0x030200" link_speed="8.0 GT/s PCIe" link_width="16">
      <gpu dev="1" sm="70" rank="0" gdr="1"><nvlink target="0000:1a:00.0" count="2" tclass="0x030200"/></gpu></pci>
    </pci></cpu></system>)";
  const Topology t = parse_nccl_topology(xml, "v100.xml");
  EXPECT_EQ(t.npu_count(), 2u);
  EXPECT_DOUBLE_EQ(gbps(t, NodeId{0}, NodeId{1}), 40.0);  // 2 links x 20 GB/s (sm70)
  EXPECT_DOUBLE_EQ(gbps(t, NodeId{1}, NodeId{0}), 40.0);
  // All-Gather of 2 GB: each GPU receives 1 GB over NVLink 40 + PCIe 12 GB/s: 1e9 / 52e9 s.
  const LowerBound bound = lower_bound(t, Collective{CollectiveKind::AllGather, Bytes(2'000'000'000), 2});
  EXPECT_NEAR(ns(bound.bandwidth_bound), 1e9 / 52e9 * 1e9, 1.0);
}

TEST(NcclTopology, LoadTopologyPicksTheXmlReader) {
  TopologyRequest r;
  r.spec = kData + "pcie_t4_like.xml";
  EXPECT_EQ(load_topology(r).npu_count(), 4u);
  r.bandwidths = {Bandwidth::gb_per_s(1)};
  EXPECT_THROW(load_topology(r), Error);  // the file sets the bandwidths
}

struct BadFile {
  const char* file;
  const char* where;
  const char* message;
};

// Names the parameter by its file in test listings.
void PrintTo(const BadFile& bad, std::ostream* out) {
  *out << bad.file;
}

class NcclBadInput : public ::testing::TestWithParam<BadFile> {};

TEST_P(NcclBadInput, NamesFileAndElement) {
  const std::string path = kData + "bad/" + GetParam().file;
  std::string error;
  try {
    load_nccl_topology(path);
  } catch (const Error& e) {
    error = e.what();
  }
  EXPECT_NE(error.find(path + ": " + GetParam().where), std::string::npos) << error;
  EXPECT_NE(error.find(GetParam().message), std::string::npos) << error;
}

INSTANTIATE_TEST_SUITE_P(
    Files, NcclBadInput,
    ::testing::Values(BadFile{"no_gpus.xml", "gpu", "none found"},
                      BadFile{"unknown_nvlink_target.xml", "pci 0000:20:00.0 gpu nvlink: target",
                              "'0000:99:00.0' is no GPU of the file"},
                      BadFile{"duplicate_rank.xml", "pci 0000:40:00.0 gpu: rank", "2 is the rank of two GPUs"},
                      BadFile{"gpu_without_sm.xml", "pci 0000:30:00.0 gpu: sm", "missing"},
                      BadFile{"no_system.xml", "system", "missing"},
                      // Found by the nccl_topo fuzz harness: a 26-digit width overflowed int
                      // in the bandwidth formula before its range was checked.
                      BadFile{"huge_link_width.xml", "pci 0000:40:00.0: link_width", "to 32 lanes"}),
    [](const auto& info) {
      std::string name = info.param.file;
      return name.substr(0, name.find('.'));
    });

}  // namespace
}  // namespace chorus
