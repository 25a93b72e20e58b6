// Machine presets as topologies (machine_topology.hpp).
#include "chorus/topology/machine_topology.hpp"

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/machine/calibration.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {

Topology machine_topology(const machine::Machine& m, uint32_t nodes, const std::vector<Time>& latencies) {
  if (nodes < 1 || nodes > m.max_nodes) {
    throw Error("", Argument{"nodes"},
                fmt::format("is {}; {} joins 1 to {} node{}", nodes, m.name, m.max_nodes, m.max_nodes == 1 ? "" : "s"));
  }
  if (m.scale_up == machine::ScaleUp::kTorus) {
    throw Error("", Argument{"machine"},
                fmt::format("{}: its documents give an all-reduce bandwidth per chip, not one ICI link's; describe the "
                            "torus with --topology torus2d/torus3d and --bandwidth",
                            m.name));
  }
  if (nodes > 1 && m.nics_per_node == 0)
    throw Error("", Argument{"machine"}, fmt::format("{}: no NICs; its nodes cannot be joined", m.name));
  if (latencies.size() > 2)
    throw Error("", Argument{"latency"}, fmt::format("has {} values; --machine takes intra[,inter]", latencies.size()));
  const Time intra = latencies.empty() ? Time::from_seconds(machine::kScaleUpLinkLatency) : latencies[0];
  const Time inter = latencies.size() < 2 ? Time::from_seconds(machine::kScaleOutLinkLatency) : latencies[1];
  std::vector<Dimension> dims;
  if (m.scale_up == machine::ScaleUp::kSwitch)
    dims.push_back(Dimension{BlockKind::Switch, m.gpus_per_node, Bandwidth::bytes_per_s(m.scale_up_bandwidth), intra});
  else
    dims.push_back(
        Dimension{BlockKind::FullyConnected, m.gpus_per_node, Bandwidth::bytes_per_s(m.peer_bandwidth()), intra});
  // GPU g of every node on rail g, at its share of the node's NICs: one NIC each on a DGX, half of one where two
  // GPUs share a NIC, two ports' worth where a node has twice as many ports as GPUs.
  const double rail = m.nic_bandwidth * m.nics_per_node / m.gpus_per_node;
  if (nodes > 1)
    dims.push_back(Dimension{BlockKind::Switch, nodes, Bandwidth::bytes_per_s(rail), inter});
  return compose(std::move(dims), fmt::format("{}:{}", m.name, nodes));
}

}  // namespace chorus
