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

constexpr uint32_t kMaxSearchChannels = 32;  // MAXCHANNELS / 2 (device.h: 64) for the ring search and its duplication
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

// Rings across nodes under RCCL: one per NIC, duplicated; each carries its NIC's share across nodes and the GPU's
// links' share inside.
Graph rccl_multi_node_rings(const CommSystem& s) {
  Graph g;
  g.channels = std::min(kMaxChannels, 2 * std::max(1u, s.nics_per_node));
  g.bw_inter = s.nics_per_node * s.nic_bw / g.channels;
  g.bw_intra = s.intra_bw / g.channels;
  return g;
}

// Rings across nodes as NCCL's search builds them (search.cc, inter-node speed arrays): each ring enters a node
// through a NIC, crosses its GPUs over NVLink and leaves through a NIC, all at one speed. At a speed a NIC carries
// as many rings as fit its bandwidth, and a GPU's links those in which it is not the last GPU ((n - 1) / n of them).
// The search starts at the fastest speed a NIC carries, keeps the best channels x speed and trades speed for
// channels while the next speed is more than .49 of the best; then ncclTopoDupChannels as on one node.
Graph nccl_multi_node_rings(const CommSystem& s) {
  const auto speeds = inter_speeds(s.generation);
  const double gpus = s.gpus_per_node;
  const uint32_t nics = std::max(1u, s.nics_per_node);
  auto rings_at = [&](double speed) {
    const double per_nic = std::max(1.0, std::floor(s.nic_bw / speed + 1e-9));
    double fit = nics * per_nic;
    if (gpus > 1)
      fit = std::min(fit, std::floor(s.intra_bw * gpus / ((gpus - 1) * speed) + 1e-9));
    return static_cast<uint32_t>(std::clamp(fit, 0.0, static_cast<double>(kMaxSearchChannels)));
  };
  size_t i = 0;
  while (i + 1 < speeds.size() && (speeds[i] > s.nic_bw || speeds[i] > s.intra_bw))
    ++i;
  Graph g;
  for (; i < speeds.size(); ++i) {
    if (g.channels > 0 && speeds[i] / g.bw_intra <= .49)
      break;
    const uint32_t rings = rings_at(speeds[i]);
    if (rings * speeds[i] > g.channels * g.bw_intra) {
      g.channels = rings;
      g.bw_intra = speeds[i];
    }
    if (g.channels == kMaxSearchChannels || g.channels * g.bw_intra >= s.intra_bw)
      break;
  }
  g.channels = std::max(1u, g.channels);
  const bool hopper_or_later = s.generation >= Generation::kHopper;
  if (g.bw_intra >= 25 && !(hopper_or_later && g.bw_intra < 50 && g.channels > 4)) {
    const uint32_t dup = std::min(kMaxSearchChannels, 2 * g.channels);
    g.bw_intra /= (dup + g.channels - 1) / g.channels;
    g.channels = dup;
  }
  g.bw_inter = g.bw_intra;
  return g;
}

// NVLS as NCCL's topology search builds it (search.cc, NCCL_TOPO_PATTERN_NVLS): a channel is a head, a GPU that
// pulls the reduced data from the switch, at most one per GPU and 32 (and across nodes, one per GPU with a NIC). On
// one node the search insists on every GPU being a head; each channel loads every GPU's switch link once and its
// head's twice, so (heads + 1) x speed must fit a GPU's links. Across nodes it starts from the NIC's speed and trades
// speed for heads while the next speed is more than .49 of the best so far. Then it raises the inter-node speed alone,
// up to twice the intra-node one (and the NIC's bandwidth across nodes). The tuner reads these heads and speeds,
// not the CTAs the kernel later runs (nvls.cc's 16, 24 or 32).
Graph nvls_graph(const CommSystem& s) {
  const bool one_node = s.nodes == 1;
  const double gpus = s.gpus_per_node;
  const uint32_t max_heads =
      std::min<uint32_t>(kMaxNvlsHeads, one_node ? s.gpus_per_node : std::min(s.gpus_per_node, s.nics_per_node));
  const auto speeds = one_node ? intra_speeds(s.generation) : inter_speeds(s.generation);
  // The search's starting point (search.cc): speeds above the fastest path, or that the minimum channels could not
  // carry at the GPU's total bandwidth (scaled by n / (n - 1) for patterns other than rings), are skipped.
  const double max_bw = one_node ? s.intra_bw : s.nic_bw;
  const double total_bw = gpus > 1 ? s.intra_bw * gpus / (gpus - 1) : s.intra_bw;
  const uint32_t min_heads = one_node ? max_heads : 1;
  size_t i = 0;
  while (i + 1 < speeds.size() && (speeds[i] > max_bw || speeds[i] * min_heads > total_bw))
    ++i;
  auto heads_at = [&](double speed) {
    const double fit = std::floor(s.intra_bw / speed + 1e-9) - 1;  // heads: (heads + 1) x speed on a GPU's links
    return static_cast<uint32_t>(std::clamp(fit, 0.0, static_cast<double>(max_heads)));
  };
  Graph g;
  for (; i < speeds.size(); ++i) {
    if (g.channels > 0 && speeds[i] / g.bw_intra <= .49)
      break;
    const uint32_t heads = heads_at(speeds[i]);
    if (heads < min_heads || heads == 0)
      continue;
    if (heads > g.channels || heads * speeds[i] > g.channels * g.bw_intra) {
      g.channels = heads;
      g.bw_intra = speeds[i];
    }
    if (heads == max_heads || g.channels * g.bw_intra >= total_bw)
      break;  // every head found, or the GPU's bandwidth used up: the search stops
  }
  if (g.channels == 0)
    return g;
  // Pass 2: the inter-node speed climbs while it stays under twice the intra-node speed and, across nodes, the NIC
  // carries it.
  size_t k = 0;
  while (k + 1 < speeds.size() && speeds[k] > g.bw_intra)
    ++k;
  g.bw_inter = speeds[k];
  while (k > 0 && g.bw_inter < 2 * g.bw_intra && (one_node || speeds[k - 1] <= s.nic_bw))
    g.bw_inter = speeds[--k];
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
  s.arm_host = std::string_view(m.device_name).starts_with("gb200");  // a GB200 superchip pairs its GPUs with Grace
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

  const Graph rings = nodes == 1 ? single_node_rings(s) : s.amd ? rccl_multi_node_rings(s) : nccl_multi_node_rings(s);
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
