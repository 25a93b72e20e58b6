// What NCCL (or RCCL) finds when it opens a communicator on `nodes` nodes of a machine preset: the GPU generation,
// the links it sees, and per algorithm the channels its topology search builds and their bandwidth. These are the
// inputs of the library's cost model (cost_model.hpp).
//
//   CommSystem s = comm_system(machine::machine("dgx-h100"), 2);   // 16 ranks, NCCL, Hopper
//   s.graphs[Ring].channels == 16, s.graphs[Ring].bw_inter == 25    // one ring per NIC, duplicated
//
// How the search's outcome is derived (a restatement of its result, not of its search; docs/nccl.md):
// - the GPU's intra-node bandwidth is its links times the bandwidth the library assumes per link (NCCL: 20 GB/s
//   Ampere, 20.6 Hopper, 40.1 Blackwell per NVLink; RCCL: 48 GB/s per MI300 xGMI link, scaled by the documented
//   link rate for later parts);
// - one node: the fastest search speed that fits, as many channels as the links carry at it, then duplicated as
//   ncclTopoDupChannels does; several nodes: one ring per NIC, duplicated, each at its NIC's share;
// - NVLS on NVSwitch machines with NVLink SHARP (Hopper and later): the heads of NCCL's NVLS search, one per GPU
//   (across nodes, per GPU with a NIC) up to 32, each at the fastest speed at which every head fits the links.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "chorus/machine/machine.hpp"
#include "chorus/nccl/tuner_constants.hpp"

namespace chorus::nccl {

// One algorithm's channels: their number and each one's bandwidth, GB/s, inside a node and across nodes.
struct Graph {
  uint32_t channels = 0;
  double bw_intra = 0;
  double bw_inter = 0;
};

// Multipliers a calibration fits (chorus calibrate nccl); 1 for an uncalibrated preset.
struct Scales {
  double intra_bandwidth = 1;
  double inter_bandwidth = 1;
  double latency = 1;
  double overhead_us = 0;  // added to every call: launch and host overhead the library's model leaves out
};

struct CommSystem {
  const TunerConstants* constants = nullptr;
  std::string machine;
  Generation generation = Generation::kHopper;
  bool amd = false;
  bool arm_host = false;  // the GPUs' host CPUs are Arm (Grace in GB200), not x86
  uint32_t nodes = 1;
  uint32_t gpus_per_node = 1;
  uint32_t ranks = 1;
  double intra_bw = 0;  // per GPU, GB/s, all its scale-up links as the library sees them
  uint32_t nics_per_node = 0;
  double nic_bw = 0;  // one NIC, GB/s
  std::array<Graph, kAlgorithms> graphs{};
  Scales scales;

  const Graph& graph(Algorithm a) const { return graphs[static_cast<int>(a)]; }
  double ppn() const { return static_cast<double>(ranks) / nodes; }
};

// `gpus_per_node`: the ranks on each node (0: all the node's GPUs). Throws chorus::Error on `field` for a machine
// NCCL and RCCL do not run on (TPU pods), on nodes outside 1..max_nodes and on more GPUs per node than it has.
CommSystem comm_system(const machine::Machine& m, uint32_t nodes, const Scales& scales = {}, uint32_t gpus_per_node = 0,
                       const std::string& field = "machine");

}  // namespace chorus::nccl
