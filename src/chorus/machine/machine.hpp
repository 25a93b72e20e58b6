// A machine: the node a device ships in and the fabric that joins nodes. A node here is one scale-up domain (an
// 8-GPU NVSwitch or Infinity Fabric board, a 72-GPU NVLink rack, a TPU pod's ICI torus); nodes are joined by their
// NICs (the scale-out tier). Every value cites the document it comes from (Citation, device.hpp).
//
//   const Machine& m = machine::find("dgx-h100");     // throws naming the nearest preset when unknown
//   const Device& gpu = m.device();
//   double nvlink = m.scale_up_bandwidth;              // per GPU, per direction, B/s
//
// Bandwidths are per GPU and per direction (a datasheet's "900 GB/s NVLink" is both directions: 450 each way).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "chorus/machine/device.hpp"

namespace chorus::machine {

// How the GPUs of one node reach each other.
enum class ScaleUp : uint8_t {
  kSwitch,    // NVLink through NVSwitch chips: every GPU reaches every other at its full bandwidth
  kFullMesh,  // Infinity Fabric (xGMI): one direct link per GPU pair, so a peer gets one link's share
  kTorus,     // TPU ICI: a 2-D or 3-D torus of chips
};

struct Machine {
  const char* name;   // preset name, e.g. "dgx-h100"
  const char* label;  // e.g. "NVIDIA DGX H100"
  const char* device_name;
  uint32_t gpus_per_node = 0;  // GPUs in one scale-up domain
  ScaleUp scale_up = ScaleUp::kSwitch;
  // Per GPU, per direction, B/s: all its scale-up links together (a TPU pod: the chip's all-reduce bandwidth).
  double scale_up_bandwidth = 0;
  uint32_t scale_up_links = 0;        // per GPU (NVLink links, xGMI links, ICI ports)
  const char* torus_shape = "";       // kTorus: e.g. "32x32"
  bool in_network_reduction = false;  // NVLink SHARP (NVLS): the switch reduces and multicasts
  uint32_t nics_per_node = 0;         // scale-out NICs for the compute fabric (0: no scale-out tier modelled)
  double nic_bandwidth = 0;           // one NIC, per direction, B/s
  double host_gib = 0;                // host memory per GPU (the offload tier)
  double host_bandwidth = 0;          // host link per GPU, per direction, B/s
  uint32_t max_nodes = 1;             // nodes one fabric of this machine joins
  std::span<const Citation> sources;

  const Device& device() const;
  // Scale-up bandwidth between one pair of GPUs, per direction: the whole scale_up_bandwidth through a switch, one
  // link's share in a full mesh; 0 (not stated) in a torus, whose documents give only the all-reduce bandwidth.
  double peer_bandwidth() const;
};

const char* scale_up_name(ScaleUp kind);

// Every machine preset, in the order `chorus machines` lists them.
std::span<const Machine> machines();
const Machine* find_machine(std::string_view name);
// The preset called `name`; otherwise an Error on `field` naming the nearest preset and listing them all.
const Machine& machine(std::string_view name, std::string_view field = "machine");
std::vector<std::string> machine_names();
// The machine whose node a device preset is sold in (h100-80gb -> dgx-h100), or nullptr.
const Machine* home_machine(std::string_view device_name);

}  // namespace chorus::machine
