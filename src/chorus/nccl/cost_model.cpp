// NCCL's per-algorithm, per-protocol cost model (cost_model.hpp), restated from NCCL 2.30.7's src/graph/tuning.cc
// and applied to the communicator chorus derives for a machine.
#include "chorus/nccl/cost_model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace chorus::nccl {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr int kSendRecvChannels = 32;
constexpr double kSimpleSliceBytes = 1 << 20;  // NCCL's p2p channels per peer pair on NVLink machines

int log2_floor(uint64_t v) {
  return v == 0 ? -1 : std::bit_width(v) - 1;
}

int index_of(Algorithm a) {
  return static_cast<int>(a);
}
int index_of(Protocol p) {
  return static_cast<int>(p);
}

// Which algorithms the library implements for a collective, and the protocols an algorithm runs.
std::string supports(CollectiveKind kind, Algorithm a, Protocol p) {
  const bool gather_scatter = kind == CollectiveKind::AllGather || kind == CollectiveKind::ReduceScatter;
  const bool rooted = kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce;
  if (rooted && a != Algorithm::kRing)
    return "only Ring runs Broadcast and Reduce";
  if (gather_scatter && a != Algorithm::kRing && a != Algorithm::kPat && a != Algorithm::kNvls &&
      a != Algorithm::kCollNetDirect)
    return "not implemented for All-Gather / Reduce-Scatter";
  if (kind == CollectiveKind::AllReduce && a == Algorithm::kPat)
    return "PAT runs All-Gather and Reduce-Scatter only";
  if ((a == Algorithm::kNvls || a == Algorithm::kNvlsTree || a == Algorithm::kPat) && p != Protocol::kSimple)
    return "runs the Simple protocol only";
  return {};
}

// Why the communicator cannot use the algorithm or protocol at all (empty when it can).
std::string availability(const CommSystem& s, Algorithm a, Protocol p) {
  const TunerConstants& c = *s.constants;
  if (a == Algorithm::kCollNetDirect || a == Algorithm::kCollNetChain)
    return "CollNet needs in-network reduction on the scale-out fabric (SHARP), which the machine does not state";
  if (a == Algorithm::kNvls || a == Algorithm::kNvlsTree) {
    if (s.graph(a).channels == 0)
      return "NVLS needs NVSwitch with NVLink SHARP (Hopper or later)";
    if (a == Algorithm::kNvlsTree && s.nodes == 1)
      return "NVLSTree is disabled on one node";
    if (a == Algorithm::kNvls && s.nodes > 1)
      return "NVLS across nodes needs CollNet (SHARP)";
  }
  if (a == Algorithm::kPat && s.ranks != s.nodes)
    return "PAT needs one GPU per node";
  if (p == Protocol::kLL128 && !c.ll128_supported)
    return "LL128 is not enabled on this GPU";
  return {};
}

int steps_of(CollectiveKind kind, uint32_t ranks) {
  if (kind == CollectiveKind::AllReduce)
    return 2 * (static_cast<int>(ranks) - 1);
  if (kind == CollectiveKind::AllGather || kind == CollectiveKind::ReduceScatter)
    return static_cast<int>(ranks) - 1;
  return static_cast<int>(ranks);
}

int node_column(uint32_t nodes) {
  return nodes <= 2 ? static_cast<int>(nodes) - 1 : 2;
}

// The bus bandwidth of all channels (GB/s), as ncclTopoTuneModel refines it, before the conversion to algorithm
// bandwidth.
double bus_bandwidth(const CommSystem& s, CollectiveKind kind, Algorithm a, Protocol p) {
  const TunerConstants& c = *s.constants;
  const Graph& g = s.graph(a);
  const int gen = static_cast<int>(s.generation);
  const int col = node_column(s.nodes);
  const double ch = g.channels;
  // NCCL takes the intra-node speed up to 2 nodes and the inter-node speed beyond; chorus's channels carry both
  // (their search result has bw_intra >= bw_inter), so the slower of the two bounds a channel.
  double bw = s.nodes == 1 ? g.bw_intra : std::min(g.bw_intra, g.bw_inter);
  if (a == Algorithm::kNvls || a == Algorithm::kNvlsTree) {
    if (g.channels < 2)
      return 0;
    double intra = g.bw_intra * c.nvls_efficiency[gen] * (ch - 1) / ch;
    intra *= kind == CollectiveKind::AllReduce ? 2.0 : (s.ppn() - 1) / s.ppn();
    const double inter = g.bw_inter * ((s.nodes <= 2 && a == Algorithm::kNvlsTree) ? 2 : 1);
    const double cap = a == Algorithm::kNvlsTree ? c.nvls_tree_max_bw_per_channel[gen][col] : kInfinity;
    // chorus's addition: in-switch reduction still moves (ppn + 1) / ppn of an All-Reduce's buffer through each
    // GPU's links (its share to every slice, its slice's reduced copy, its multicast), so the bus bandwidth of one
    // channel is at most 2 (ppn - 1) / (ppn + 1) of the channel's links; an All-Gather's at most the links. NCCL's
    // model exceeds this for small groups (2 GPUs: 102 against 80 GB/s on an H100 node).
    const double links =
        kind == CollectiveKind::AllReduce ? g.bw_intra * 2 * (s.ppn() - 1) / (s.ppn() + 1) : g.bw_intra;
    bw = std::min({intra, inter, cap, links});
  }
  double bus = ch * bw;
  const int ll_row = s.nodes == 1 ? gen : 0;  // several nodes: the CPU vendor's row (Intel x86 by default)
  const double ll_max = c.ll_max_bw[ll_row][col];
  if (a == Algorithm::kRing && p == Protocol::kLL)
    bus = std::min(ll_max, bus * .5);
  if (a == Algorithm::kRing && p == Protocol::kLL128)
    bus = std::min(bus * .92, ch * c.ring_ll128_max_bw_per_channel[gen][col]);
  if (a == Algorithm::kTree && kind == CollectiveKind::AllReduce)
    bus = std::min(bus * .92, ch * c.tree_max_bw_per_channel[gen][col]);
  if (a == Algorithm::kTree && p == Protocol::kLL)
    bus = std::min(bus / 3.8, ll_max);
  if (a == Algorithm::kTree && p == Protocol::kLL128)
    bus = std::min(bus * (s.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), ch * c.tree_ll128_max_bw_per_channel[gen][col]);
  if (a == Algorithm::kPat)
    bus *= .75;
  return bus;
}

// Algorithm bandwidth from bus bandwidth: rings and NVLS move nsteps/ranks of the buffer per rank, trees half.
double algorithm_bandwidth(const CommSystem& s, CollectiveKind kind, Algorithm a, double bus) {
  const bool gather_scatter = kind == CollectiveKind::AllGather || kind == CollectiveKind::ReduceScatter;
  if (a != Algorithm::kRing && gather_scatter)
    return bus;
  if (a == Algorithm::kRing || a == Algorithm::kNvls || a == Algorithm::kNvlsTree)
    return bus * static_cast<double>(s.ranks) / steps_of(kind, s.ranks);
  return bus * .5;
}

double latency(const CommSystem& s, CollectiveKind kind, Algorithm a, Protocol p) {
  const TunerConstants& c = *s.constants;
  const int ai = index_of(a);
  const int pi = index_of(p);
  const int intra_hop = 0;  // NVLink / xGMI inside every machine chorus models
  const int net = static_cast<int>(Hop::kNet);
  double lat = c.base_latency_us[ai][pi];
  double intra = c.hop_latency_us[intra_hop][ai][pi];
  const double inter =
      s.ppn() == 1 ? c.hop_latency_us[net][index_of(Algorithm::kTree)][pi] : c.hop_latency_us[net][ai][pi];
  const int nsteps = steps_of(kind, s.ranks);
  const double ppn_minus_1 = static_cast<double>(s.ranks / s.nodes) - 1;
  const int log_nodes = log2_floor(s.nodes);
  switch (a) {
    case Algorithm::kRing: {
      if (kind == CollectiveKind::Broadcast || kind == CollectiveKind::Reduce)
        return lat + c.hop_latency_us[s.nodes == 1 ? intra_hop : net][ai][pi];
      double net_overhead = 0;
      if (s.nodes > 1)
        net_overhead = kNcclNetOverheadUs * (p == Protocol::kSimple ? 3 : 1);
      intra = std::max(intra, net_overhead);
      const int inter_steps = s.nodes == 1                        ? 0
                              : kind == CollectiveKind::AllReduce ? 2 * (static_cast<int>(s.nodes) - 1)
                                                                  : static_cast<int>(s.nodes) - 1;
      return lat + (nsteps - inter_steps) * intra + inter_steps * inter;
    }
    case Algorithm::kTree:
      return lat + 2 * (ppn_minus_1 * intra + log_nodes * inter);
    case Algorithm::kNvls:
      return intra + (s.nodes > 1 ? inter : 0);
    case Algorithm::kNvlsTree:
      return lat + intra + 2 * log_nodes * inter;
    case Algorithm::kPat:
      return lat + log_nodes * (inter / 3.5) + s.ranks * 2.8;
    case Algorithm::kCollNetDirect:
      return lat + 2 * (std::min(1.0, ppn_minus_1) * intra + ppn_minus_1 * 0.4) + inter;
    case Algorithm::kCollNetChain:
      return lat + 2 * ppn_minus_1 * intra + inter;
  }
  return lat;
}

// The Simple protocol moves a channel's data in slices through a pipeline of `depth` stages (the tree's chain and
// levels, up and down; the switch's in and out); the first slice crosses every stage before the last one enters,
// which NCCL's cost model leaves out. A ring has no such fill: every link of it carries a slice at every step. A slice
// is NCCL's step (4 MiB buffer / 8 steps) times 2 slice steps, 1 MiB, shrunk for small buffers so that each channel
// still sees 2 slices per rank (NCCL halves its chunk until every channel has work for each step).
double pipeline_fill_us(const CommSystem& s, CollectiveKind kind, Algorithm a, Protocol p, int64_t bytes, double bus) {
  if (p != Protocol::kSimple || kind == CollectiveKind::AllToAll)
    return 0;
  const Graph& g = s.graph(a);
  const double log_nodes = std::max(0, log2_floor(s.nodes));
  const double ppn = s.ppn();
  double depth = 0;
  switch (a) {
    case Algorithm::kTree:
      depth = 2 * (ppn - 1 + log_nodes);
      break;
    case Algorithm::kNvls:
      depth = 2;
      break;
    case Algorithm::kNvlsTree:
      depth = 2 + 2 * log_nodes;
      break;
    case Algorithm::kPat:
      depth = log_nodes;
      break;
    default:
      return 0;
  }
  const double slice = std::min(kSimpleSliceBytes, static_cast<double>(bytes) / (g.channels * s.ranks * 2.0));
  const double per_channel = bus / g.channels;
  return std::max(0.0, depth - 1) * slice / (1000 * per_channel) * s.scales.latency;
}

Candidate price(const CommSystem& s, CollectiveKind kind, int64_t bytes, Algorithm a, Protocol p) {
  Candidate k;
  k.algorithm = algorithm_name(a);
  k.protocol = protocol_name(p);
  k.channels = s.graph(a).channels;
  k.disabled = supports(kind, a, p);
  if (k.disabled.empty())
    k.disabled = availability(s, a, p);
  if (!k.disabled.empty())
    return k;
  const double bus = bus_bandwidth(s, kind, a, p);
  double bw = algorithm_bandwidth(s, kind, a, bus);
  double lat = latency(s, kind, a, p);
  if (bw <= 0) {
    k.disabled = "no bandwidth in the tuner's tables";
    return k;
  }
  const int log_size = log2_floor(static_cast<uint64_t>(bytes) >> 6);
  const auto& correction = s.constants->tree_correction[index_of(p)];
  // ncclTopoGetAlgoTime: Tree below 2^23 x 64 B; NVLSTree below 2^24 x 64 B on Blackwell with x86 hosts only.
  const bool tree = a == Algorithm::kTree && log_size < 23;
  const bool nvls_tree =
      a == Algorithm::kNvlsTree && log_size < 24 && s.generation == Generation::kBlackwell && !s.arm_host;
  if (kind == CollectiveKind::AllReduce && log_size >= 0 && (tree || nvls_tree))
    bw *= correction[log_size];
  const uint32_t ring_channels = s.graph(Algorithm::kRing).channels;
  if (a == Algorithm::kRing && p == Protocol::kSimple && s.nodes > 1 && kind == CollectiveKind::AllReduce &&
      static_cast<double>(bytes) / (static_cast<double>(ring_channels) * s.ranks) >= 64)
    lat *= s.generation < Generation::kAmpere ? 1.9 : 1.4;  // the ring's plateau
  lat = lat * s.scales.latency + s.scales.overhead_us;
  k.latency_us = lat;
  k.bandwidth_GBps = bw;
  k.fill_us = pipeline_fill_us(s, kind, a, p, bytes, bus);
  k.time_us = lat + static_cast<double>(bytes) / (1000 * bw) + k.fill_us;
  return k;
}

// All-to-All as ncclSend/ncclRecv to every peer: each GPU's bytes for the other GPUs of its node cross its NVLink,
// those for other nodes its share of the node's NICs; the busier of the two bounds the call.
Candidate price_all_to_all(const CommSystem& s, int64_t bytes) {
  const TunerConstants& c = *s.constants;
  const int ring = index_of(Algorithm::kRing);
  const int simple = index_of(Protocol::kSimple);
  const double n = s.ranks;
  const double ppn = s.ppn();
  const double intra_us = bytes * (ppn - 1) / n / (1000 * s.intra_bw);
  const double nic_share = s.nics_per_node * s.nic_bw / ppn;
  const double inter_us = s.nodes > 1 ? bytes * (n - ppn) / n / (1000 * nic_share) : 0;
  Candidate k;
  k.algorithm = "SendRecv";
  k.protocol = "Simple";
  k.channels = kSendRecvChannels;
  const int hop = s.nodes > 1 ? static_cast<int>(Hop::kNet) : 0;
  k.latency_us =
      (c.base_latency_us[ring][simple] + c.hop_latency_us[hop][ring][simple]) * s.scales.latency + s.scales.overhead_us;
  const double transfer_us = std::max(intra_us, inter_us);
  k.bandwidth_GBps = transfer_us > 0 ? bytes / (1000 * transfer_us) : 0;
  k.time_us = k.latency_us + transfer_us;
  return k;
}

}  // namespace

double Choice::algbw_GBps() const {
  return time_us > 0 ? static_cast<double>(bytes) / (time_us * 1e3) : 0;
}

double Choice::busbw_GBps(uint32_t ranks) const {
  return algbw_GBps() * bus_factor(kind, ranks);
}

Choice choose(const CommSystem& s, CollectiveKind kind, int64_t bytes, std::string_view only_algorithm) {
  Choice choice;
  choice.kind = kind;
  choice.bytes = bytes;
  if (kind == CollectiveKind::AllToAll) {
    choice.candidates.push_back(price_all_to_all(s, bytes));
  } else {
    for (int a = 0; a < kAlgorithms; ++a) {
      for (int p = 0; p < kProtocols; ++p)
        choice.candidates.push_back(price(s, kind, bytes, static_cast<Algorithm>(a), static_cast<Protocol>(p)));
    }
  }
  if (!only_algorithm.empty() && kind != CollectiveKind::AllToAll) {
    for (Candidate& k : choice.candidates) {
      if (k.enabled() && k.algorithm != only_algorithm)
        k.disabled = "not the algorithm asked for";
    }
  }
  double best = kInfinity;
  for (size_t i = 0; i < choice.candidates.size(); ++i) {
    const Candidate& k = choice.candidates[i];
    if (k.enabled() && k.time_us < best) {
      best = k.time_us;
      choice.chosen = i;
    }
  }
  choice.time_us = best;
  return choice;
}

}  // namespace chorus::nccl
