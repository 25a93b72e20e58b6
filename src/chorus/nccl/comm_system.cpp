// Deriving the library's view of a machine (comm_system.hpp).
#include "chorus/nccl/comm_system.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus::nccl {
namespace {

constexpr uint32_t kMaxSearchChannels = 16;  // MAXCHANNELS / 2 when the search runs, before duplication
constexpr uint32_t kMaxChannels = 32;
constexpr double kMi300LinkGBps = 64;  // MI300X data sheet: 128 GB/s per xGMI link both directions

// The library and GPU generation for a device preset, or false when neither NCCL nor RCCL runs on it.
bool classify(std::string_view device, Generation& generation, bool& amd) {
  amd = device.starts_with("mi");
  if (amd) {
    generation = Generation::kHopper;  // RCCL indexes its caps as NCCL's Hopper row for MI300-class GPUs
    return true;
  }
  if (device.starts_with("a100")) {
    generation = Generation::kAmpere;
    return true;
  }
  if (device.starts_with("h100") || device.starts_with("h200")) {
    generation = Generation::kHopper;
    return true;
  }
  if (device.starts_with("b200") || device.starts_with("gb200")) {
    generation = Generation::kBlackwell;
    return true;
  }
  return false;
}

// The fastest search speed at most `limit` (the slowest when none fits).
double fastest_speed_within(Generation g, double limit) {
  const auto speeds = intra_speeds(g);
  for (const float s : speeds) {
    if (s <= limit)
      return s;
  }
  return speeds.back();
}

// Rings inside one node: channels at the fastest speed the links carry, duplicated as ncclTopoDupChannels does
// (when a channel runs at 25 GB/s or more, and on Hopper and later only when it runs at 50 or more or there are at
// most 4).
Graph single_node_rings(const CommSystem& s) {
  if (s.amd) {
    // RCCL's rings on a full mesh: one per link (each GPU's successor on its own xGMI link), duplicated.
    const double per_link = s.intra_bw / std::max(1.0, s.gpus_per_node - 1.0);
    return {std::min<uint32_t>(kMaxChannels, 2 * (s.gpus_per_node - 1)), per_link / 2, per_link / 2};
  }
  const double speed = fastest_speed_within(s.generation, s.intra_bw);
  Graph g;
  g.channels = std::clamp<uint32_t>(static_cast<uint32_t>(s.intra_bw / speed), 1, kMaxSearchChannels);
  g.bw_intra = g.bw_inter = speed;
  const bool hopper_or_later = s.generation >= Generation::kHopper;
  if (speed >= 25 && !(hopper_or_later && speed < 50 && g.channels > 4)) {
    g.channels = std::min(kMaxChannels, 2 * g.channels);
    g.bw_intra = g.bw_inter = speed / 2;
  }
  return g;
}

// Rings across nodes: one per NIC, duplicated; each carries its NIC's share across nodes and the GPU's links'
// share inside.
Graph multi_node_rings(const CommSystem& s) {
  Graph g;
  g.channels = std::min(kMaxChannels, 2 * std::max(1u, s.nics_per_node));
  g.bw_inter = s.nics_per_node * s.nic_bw / g.channels;
  g.bw_intra = s.intra_bw / g.channels;
  return g;
}

Graph nvls_graph(const CommSystem& s) {
  Graph g;
  g.channels = nvls_channels(s.generation, s.nodes);
  g.bw_intra = fastest_speed_within(s.generation, s.intra_bw / g.channels);
  // One node has no network to limit the switch's multicast.
  g.bw_inter = s.nodes > 1 ? s.nics_per_node * s.nic_bw / g.channels : std::numeric_limits<double>::infinity();
  return g;
}

void scale(Graph& g, const Scales& k) {
  g.bw_intra *= k.intra_bandwidth;
  g.bw_inter *= k.inter_bandwidth;
}

}  // namespace

CommSystem comm_system(const machine::Machine& m, uint32_t nodes, const Scales& scales, uint32_t gpus_per_node,
                       const std::string& field) {
  CommSystem s;
  if (!classify(m.device_name, s.generation, s.amd)) {
    throw Error("", Argument{field},
                fmt::format("'{}' ({}) is not a machine NCCL or RCCL runs on; --algorithm nccl needs an NVIDIA or AMD "
                            "GPU machine (chorus machines)",
                            m.name, m.device_name));
  }
  if (nodes < 1 || nodes > m.max_nodes)
    throw Error("", Argument{"nodes"}, fmt::format("is {}; {} allows 1 to {}", nodes, m.name, m.max_nodes));
  s.constants = s.amd ? &rccl_constants() : &nccl_constants();
  s.machine = m.name;
  s.nodes = nodes;
  if (gpus_per_node > m.gpus_per_node) {
    throw Error("", Argument{"gpus_per_node"},
                fmt::format("is {}; a {} node has {} GPUs", gpus_per_node, m.name, m.gpus_per_node));
  }
  s.gpus_per_node = gpus_per_node == 0 ? m.gpus_per_node : gpus_per_node;
  s.ranks = nodes * s.gpus_per_node;
  const double per_link =
      s.amd ? kRcclXgmiBwPerLink * (m.peer_bandwidth() / 1e9) / kMi300LinkGBps : nvlink_bw_per_link(s.generation);
  s.intra_bw = m.scale_up_links * per_link;
  // A communicator on part of a node reaches the network through its own GPUs' NICs (their rails).
  s.nics_per_node =
      m.nics_per_node == 0 ? 0 : std::max<uint32_t>(1, m.nics_per_node * s.gpus_per_node / m.gpus_per_node);
  s.nic_bw = m.nic_bandwidth / 1e9;
  s.scales = scales;

  const Graph rings = nodes == 1 ? single_node_rings(s) : multi_node_rings(s);
  s.graphs[static_cast<int>(Algorithm::kRing)] = rings;
  s.graphs[static_cast<int>(Algorithm::kTree)] = rings;
  s.graphs[static_cast<int>(Algorithm::kPat)] = rings;
  const bool nvls = s.constants->nvls_supported && m.in_network_reduction && s.generation >= Generation::kHopper &&
                    m.scale_up == machine::ScaleUp::kSwitch;
  if (nvls) {
    s.graphs[static_cast<int>(Algorithm::kNvls)] = nvls_graph(s);
    s.graphs[static_cast<int>(Algorithm::kNvlsTree)] = nvls_graph(s);
  }
  for (Graph& g : s.graphs)
    scale(g, scales);
  s.intra_bw *= scales.intra_bandwidth;
  s.nic_bw *= scales.inter_bandwidth;
  return s;
}

}  // namespace chorus::nccl
