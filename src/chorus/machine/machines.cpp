// The machine presets (machine.hpp): nodes and fabrics, every number with the document it comes from.
#include "chorus/core/assert.hpp"
#include "chorus/machine/machine.hpp"
#include "chorus/machine/preset_lookup.hpp"

namespace chorus::machine {
namespace {

constexpr double G = 1e9;  // GB/s

constexpr Citation kDgxA100[] = {
    {"gpus_per_node nics_per_node nic_bandwidth host_gib",
     "NVIDIA DGX A100 datasheet (640GB): 8 A100 80GB GPUs, 6 NVSwitches, 8 single-port ConnectX-6 200 Gb/s HDR "
     "InfiniBand for compute (25 GB/s each way), 2 TB system memory (256 GiB per GPU)"},
    {"scale_up_bandwidth scale_up_links",
     "NVIDIA A100 datasheet: third-generation NVLink, 600 GB/s per GPU both directions (300 each way) over 12 links"},
    {"host_bandwidth", "NVIDIA A100 datasheet: PCIe Gen4 64 GB/s both directions (32 each way)"},
    {"max_nodes",
     "NVIDIA DGX SuperPOD reference architecture: scalable units of 20 nodes; 140 nodes (1,120 GPUs) "
     "on a 3-level InfiniBand fat tree. chorus allows up to 1,024 nodes of any 8-GPU machine"},
};
constexpr Citation kDgxA100_320[] = {
    {"gpus_per_node nics_per_node nic_bandwidth host_gib",
     "NVIDIA DGX A100 datasheet (320GB): 8 A100 40GB GPUs, 8 single-port ConnectX-6 200 Gb/s HDR InfiniBand, 1 TB "
     "system memory (128 GiB per GPU)"},
    {"scale_up_bandwidth scale_up_links",
     "NVIDIA A100 datasheet: third-generation NVLink, 600 GB/s per GPU both directions (300 each way) over 12 links"},
    {"host_bandwidth", "NVIDIA A100 datasheet: PCIe Gen4 64 GB/s both directions (32 each way)"},
    {"max_nodes", "as dgx-a100: chorus allows up to 1,024 nodes of any 8-GPU machine"},
};
constexpr Citation kDgxH100[] = {
    {"gpus_per_node nics_per_node nic_bandwidth host_gib in_network_reduction",
     "NVIDIA DGX H100 datasheet: 8 H100 SXM GPUs, 4 third-generation NVSwitches (NVLink SHARP in-switch reduction), "
     "8 single-port ConnectX-7 400 Gb/s (50 GB/s each way) for compute, 2 TB system memory"},
    {"scale_up_bandwidth scale_up_links",
     "NVIDIA H100 datasheet, SXM: fourth-generation NVLink 900 GB/s per GPU both directions (450 each way), 18 links"},
    {"host_bandwidth", "NVIDIA H100 datasheet, SXM: PCIe Gen5 128 GB/s both directions (64 each way)"},
    {"max_nodes",
     "NVIDIA DGX SuperPOD (H100) reference architecture: scalable units of 32 nodes; chorus allows up "
     "to 1,024 nodes of any 8-GPU machine"},
};
constexpr Citation kHgxH200[] = {
    {"gpus_per_node nics_per_node nic_bandwidth host_gib in_network_reduction",
     "NVIDIA DGX H200 datasheet: 8 H200 SXM GPUs on 4 NVSwitches (NVLink SHARP), 8 ConnectX-7 400 Gb/s for "
     "compute, 2 TB system memory; HGX H200 boards carry the same GPUs and switches"},
    {"scale_up_bandwidth scale_up_links",
     "NVIDIA H200 datasheet, SXM: NVLink 900 GB/s per GPU both directions (450 each way), 18 links"},
    {"host_bandwidth", "NVIDIA H200 datasheet, SXM: PCIe Gen5 128 GB/s both directions (64 each way)"},
    {"max_nodes", "as dgx-h100: chorus allows up to 1,024 nodes of any 8-GPU machine"},
};
constexpr Citation kDgxB200[] = {
    {"gpus_per_node nics_per_node nic_bandwidth host_gib in_network_reduction",
     "NVIDIA DGX B200 datasheet: 8 B200 GPUs, 2 NVLink Switch chips (NVLink SHARP), 8 single-port ConnectX-7 "
     "400 Gb/s for compute, 2 TB system memory (up to 4 TB)"},
    {"scale_up_bandwidth scale_up_links",
     "NVIDIA DGX B200 datasheet: fifth-generation NVLink, 14.4 TB/s all GPUs together (1.8 TB/s per GPU both "
     "directions, 900 each way) over 18 links per GPU"},
    {"host_bandwidth", "DGX B200: PCIe Gen5 x16 per GPU, 64 GB/s each way"},
    {"max_nodes", "as dgx-h100: chorus allows up to 1,024 nodes of any 8-GPU machine"},
};
constexpr Citation kGb200Nvl72[] = {
    {"gpus_per_node scale_up_bandwidth scale_up_links in_network_reduction",
     "NVIDIA GB200 NVL72 datasheet: 72 Blackwell GPUs in one NVLink domain of 130 TB/s (1.8 TB/s per GPU both "
     "directions, 900 each way, 18 fifth-generation links) through 9 NVLink Switch trays (NVLink SHARP)"},
    {"nics_per_node nic_bandwidth",
     "NVIDIA GB200 NVL72 reference design: one ConnectX-7 400 Gb/s InfiniBand NIC per GPU for the compute fabric "
     "(4 per compute tray of 4 GPUs)"},
    {"host_gib host_bandwidth",
     "NVIDIA GB200 superchip: one Grace CPU with up to 480 GB LPDDR5X (240 GB per GPU) joined to its 2 GPUs by "
     "NVLink-C2C at 900 GB/s both directions (225 GB/s per GPU each way)"},
    {"max_nodes", "a node here is one NVL72 rack; chorus allows up to 256 racks (18,432 GPUs)"},
};
constexpr Citation kGcpA3Mega[] = {
    {"gpus_per_node nics_per_node nic_bandwidth host_gib",
     "Google Cloud GPU machine types, A3 Mega (a3-megagpu-8g): 8 H100 80GB, 1,872 GB host memory (234 per GPU), "
     "1,800 Gb/s of network: 8 GPU NICs of 200 Gb/s (25 GB/s each way) with GPUDirect-TCPXO, plus a host NIC"},
    {"scale_up_bandwidth scale_up_links in_network_reduction",
     "NVIDIA H100 datasheet, SXM: fourth-generation NVLink 900 GB/s per GPU both directions (450 each way), 18 "
     "links, through the HGX H100 board's NVSwitches (NVLink SHARP)"},
    {"host_bandwidth", "NVIDIA H100 datasheet, SXM: PCIe Gen5 128 GB/s both directions (64 each way)"},
    {"max_nodes", "as dgx-h100: chorus allows up to 1,024 nodes of any 8-GPU machine"},
};
constexpr Citation kMi300xNode[] = {
    {"gpus_per_node scale_up_bandwidth scale_up_links",
     "AMD Instinct MI300X data sheet: 8 GPUs per platform fully connected by Infinity Fabric, 7 links per GPU at "
     "128 GB/s both directions each (64 each way; 448 GB/s each way in all)"},
    {"nics_per_node nic_bandwidth host_gib",
     "Microsoft Azure ND MI300X v5 documentation: 8 MI300X per VM, one 400 Gb/s InfiniBand NIC per GPU, "
     "1,850 GiB memory (about 231 GiB per GPU)"},
    {"host_bandwidth", "AMD Instinct MI300X data sheet: PCIe Gen5 x16, 128 GB/s both directions (64 each way)"},
    {"max_nodes", "chorus allows up to 1,024 nodes of any 8-GPU machine"},
};
constexpr Citation kMi355xNode[] = {
    {"gpus_per_node scale_up_bandwidth scale_up_links",
     "AMD Instinct MI355X data sheet: 8 GPUs per platform fully connected by 4th-generation Infinity Fabric, 7 links "
     "per GPU at 153.6 GB/s both directions each (76.8 each way; 537.6 GB/s each way in all)"},
    {"nics_per_node nic_bandwidth",
     "AMD Instinct MI350 series platform: one 400 Gb/s scale-out NIC (AMD Pensando Pollara 400) per GPU"},
    {"host_gib", "model parameter: no platform memory is stated; 2 TB per 8-GPU node is assumed, as DGX/HGX ship"},
    {"host_bandwidth", "AMD Instinct MI355X data sheet: PCIe Gen5 x16, 128 GB/s both directions (64 each way)"},
    {"max_nodes", "chorus allows up to 1,024 nodes of any 8-GPU machine"},
};
constexpr Citation kTpuV3Pod[] = {
    {"gpus_per_node torus_shape scale_up_links",
     "Google Cloud TPU documentation, TPU v3: a pod is 1,024 chips on a 2-D torus (32 x 32), 4 ICI ports per chip"},
    {"scale_up_bandwidth",
     "Google Cloud TPU documentation, TPU v3: all-reduce bandwidth per pod 340 TB/s, 332 GB/s per chip (166 per "
     "TensorCore)"},
};
constexpr Citation kTpuV4Pod[] = {
    {"gpus_per_node torus_shape scale_up_links",
     "Google Cloud TPU documentation, TPU v4: a pod is 4,096 chips on a 3-D torus (16 x 16 x 16), 6 ICI ports per "
     "chip"},
    {"scale_up_bandwidth",
     "Google Cloud TPU documentation, TPU v4: all-reduce bandwidth per pod 1.1 PB/s, 268 GB/s per chip"},
};

// clang-format off
constexpr Machine kMachines[] = {
    // name, label, device, GPUs per node, scale-up kind, scale-up B/s per GPU per direction, links, torus shape,
    // in-network reduction, NICs per node, NIC B/s per direction, host GiB per GPU, host B/s per GPU, max nodes
    {"dgx-a100", "NVIDIA DGX A100 (640GB)", "a100-80gb", 8, ScaleUp::kSwitch, 300 * G, 12, "", false,
     8, 25 * G, 256, 32 * G, 1024, kDgxA100},
    {"dgx-a100-320gb", "NVIDIA DGX A100 (320GB)", "a100-40gb", 8, ScaleUp::kSwitch, 300 * G, 12, "", false,
     8, 25 * G, 128, 32 * G, 1024, kDgxA100_320},
    {"dgx-h100", "NVIDIA DGX H100", "h100-80gb", 8, ScaleUp::kSwitch, 450 * G, 18, "", true,
     8, 50 * G, 256, 64 * G, 1024, kDgxH100},
    {"hgx-h200", "NVIDIA HGX H200 (DGX H200)", "h200", 8, ScaleUp::kSwitch, 450 * G, 18, "", true,
     8, 50 * G, 256, 64 * G, 1024, kHgxH200},
    {"dgx-b200", "NVIDIA DGX B200", "b200", 8, ScaleUp::kSwitch, 900 * G, 18, "", true,
     8, 50 * G, 256, 64 * G, 1024, kDgxB200},
    {"gb200-nvl72", "NVIDIA GB200 NVL72 rack", "gb200", 72, ScaleUp::kSwitch, 900 * G, 18, "", true,
     72, 50 * G, 240, 225 * G, 256, kGb200Nvl72},
    {"gcp-a3-mega", "Google Cloud A3 Mega (8 H100, 8x200 Gb/s)", "h100-80gb", 8, ScaleUp::kSwitch, 450 * G, 18, "",
     true, 8, 25 * G, 234, 64 * G, 1024, kGcpA3Mega},
    {"mi300x", "AMD Instinct MI300X platform (8 GPUs)", "mi300x", 8, ScaleUp::kFullMesh, 448 * G, 7, "", false,
     8, 50 * G, 231, 64 * G, 1024, kMi300xNode},
    {"mi355x", "AMD Instinct MI355X platform (8 GPUs)", "mi355x", 8, ScaleUp::kFullMesh, 537.6 * G, 7, "", false,
     8, 50 * G, 256, 64 * G, 1024, kMi355xNode},
    {"tpu-v3-pod", "Google Cloud TPU v3 pod", "tpu-v3", 1024, ScaleUp::kTorus, 332 * G, 4, "32x32", false,
     0, 0, 0, 0, 1, kTpuV3Pod},
    {"tpu-v4-pod", "Google Cloud TPU v4 pod", "tpu-v4", 4096, ScaleUp::kTorus, 268 * G, 6, "16x16x16", false,
     0, 0, 0, 0, 1, kTpuV4Pod},
};
// clang-format on

}  // namespace

const Device& Machine::device() const {
  const Device* d = find_device(device_name);
  CHORUS_ASSERT(d != nullptr, "machine {} names unknown device {}", name, device_name);
  return *d;
}

double Machine::peer_bandwidth() const {
  switch (scale_up) {
    case ScaleUp::kSwitch:
      return scale_up_bandwidth;
    case ScaleUp::kFullMesh:
      return scale_up_links > 0 ? scale_up_bandwidth / scale_up_links : 0;
    case ScaleUp::kTorus:
      return 0;  // the documents give a chip's all-reduce bandwidth, not one ICI link's
  }
  return 0;
}

const char* scale_up_name(ScaleUp kind) {
  switch (kind) {
    case ScaleUp::kSwitch:
      return "switch";
    case ScaleUp::kFullMesh:
      return "full-mesh";
    case ScaleUp::kTorus:
      return "torus";
  }
  return "?";
}

std::span<const Machine> machines() {
  return kMachines;
}

const Machine* find_machine(std::string_view name) {
  return find_by_name(machines(), name);
}

std::vector<std::string> machine_names() {
  return names_of(machines());
}

const Machine& machine(std::string_view name, std::string_view field) {
  if (const Machine* m = find_machine(name))
    return *m;
  throw_unknown_preset("machine", name, machine_names(), field);
}

const Machine* home_machine(std::string_view device_name) {
  for (const Machine& m : kMachines) {
    if (device_name == m.device_name)
      return &m;
  }
  return nullptr;
}

}  // namespace chorus::machine
