// Reader of NCCL's topology XML (the file NCCL writes with NCCL_TOPO_DUMP_FILE, and reads with NCCL_TOPO_FILE),
// facts from NCCL's src/graph/topo.cc and topo.h (docs/formats.md has the element-by-element mapping):
//
//   <system version>
//     <cpu numaid affinity arch vendor familyid modelid>          -> a switch (the root complex); CPUs of the
//                                                                    file are joined pairwise (QPI/UPI/xGMI)
//       <pci busid class vendor device link_speed link_width>     -> a PCI switch (class 0x0604.. or other), or the
//         <gpu dev sm rank gdr>                                       GPU's / NIC's own PCIe link to its parent:
//           <nvlink target count tclass/>                            width x GT/s-per-lane / 80 GB/s
//         <nic><net name dev speed port latency guid maxconn gdr/></nic>
//
// - GPUs are the NPUs, numbered by their `rank` (NPU 0 = the lowest rank).
// - NVLink: `count` links of NCCL's per-link bandwidth for the GPU's `sm` (topo.h: sm60 18, sm70 20, sm80 20,
//   sm86 12, sm90 20.6, sm100 40.1 GB/s); to a GPU (tclass 0x03....) one direction, as each GPU lists its own;
//   to an NVSwitch (any other tclass but the CPU's 0x068001) both directions, through one NVSwitch node.
// - NICs: a switch node on the PCIe tree, joined to one "network" switch by the sum of its <net> speeds
//   (Mb/s / 8000 GB/s; speed <= 0 counts as 10,000, as NCCL does), with the <net>'s latency (us).
// - The dump has no latencies otherwise: every other link has latency 0.
//
// Throws chorus::Error(path, element/attribute, ...) on malformed input: no <system>, no GPU, a GPU without rank
// or sm, two GPUs with one rank, an NVLink to a bus id that is no GPU of the file, numbers that do not parse.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "chorus/topology/topology.hpp"

namespace chorus {

Topology parse_nccl_topology(std::string_view text, const std::string& file);

// What a node's dump says about its GPUs and NICs, for a machine built from it (nccl/calibrated_machine.hpp): the
// GPUs, the smallest compute capability, the fewest NVLinks of a GPU (to NVSwitches or GPUs, not the CPU), whether
// they go through NVSwitches, and the NICs with <net> ports (the slowest one's speed, GB/s). Same checks as above.
struct NcclNodeSummary {
  uint32_t gpus = 0;
  int sm = 0;
  uint32_t nvlinks_per_gpu = 0;
  bool nvswitch = false;
  uint32_t nics = 0;
  double nic_gbps = 0;
};
NcclNodeSummary summarize_nccl_topology(std::string_view text, const std::string& file);
Topology load_nccl_topology(const std::string& path);

// NCCL's NVLink bandwidth per link for a GPU of compute capability `sm` (e.g. 80), in GB/s (topo.h).
double nccl_nvlink_gbps(int sm);
// NCCL's PCIe bandwidth for a link_speed string ("16.0 GT/s PCIe") and width, in GB/s (unknown speeds: 8 GT/s).
double nccl_pci_gbps(std::string_view link_speed, int width);

}  // namespace chorus
