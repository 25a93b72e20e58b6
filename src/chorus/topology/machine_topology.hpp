// The topology of `nodes` nodes of a machine preset (machine/machine.hpp): each node's GPUs on their scale-up fabric,
// and GPU g of every node on NIC rail g. NVSwitch nodes (DGX, HGX, NVL72) are a Switch dimension of the node's GPUs,
// Infinity Fabric nodes (MI300X, MI355X) a FullyConnected one whose links carry one peer's share; the rails are a
// Switch dimension across nodes. So `--machine dgx-h100 --nodes 2` is `dims:switch8,switch2` at 450 and 50 GB/s.
//
//   Topology t = machine_topology(machine::machine("dgx-h100"), 2, {});   // 16 GPUs, default latencies
#pragma once

#include <cstdint>
#include <vector>

#include "chorus/core/units.hpp"
#include "chorus/machine/machine.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

// `latencies`: none (the machine model's defaults, machine/calibration.hpp), one (the scale-up links) or two
// (scale-up, NIC). Throws chorus::Error on `--nodes` outside 1..max_nodes, on a machine whose fabric has no
// per-link bandwidth (the TPU pods: their documents give an all-reduce bandwidth per chip) and on more latencies
// than tiers.
Topology machine_topology(const machine::Machine& m, uint32_t nodes, const std::vector<Time>& latencies);

}  // namespace chorus
