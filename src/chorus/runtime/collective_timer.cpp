// Timing one collective of a workload on its group (see collective_timer.hpp).
#include "chorus/runtime/collective_timer.hpp"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "chorus/core/error.hpp"
#include "chorus/network/model_registry.hpp"
#include "chorus/sim/collective_request.hpp"
#include "chorus/synth/synthesize.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {

using chakra::CommType;

std::optional<CollectiveKind> simulated_kind(CommType type) {
  switch (type) {
    case CommType::AllReduce:
      return CollectiveKind::AllReduce;
    case CommType::AllGather:
      return CollectiveKind::AllGather;
    case CommType::ReduceScatter:
      return CollectiveKind::ReduceScatter;
    case CommType::AllToAll:
      return CollectiveKind::AllToAll;
    default:
      return std::nullopt;
  }
}

namespace {

// The message a hop's bandwidth is measured with: large enough that latency is a rounding error beside it.
constexpr int64_t kProbeBytes = int64_t{1} << 30;

// Channel c of a group in blocks of `block`: its i-th member is this position of the member list (each block's
// members rotated by c, so each channel leaves a block by a different member).
uint32_t channel_ring_position(uint32_t i, uint32_t block, uint32_t c) {
  return i / block * block + (i % block + c) % block;
}

}  // namespace

CollectiveTimer::CollectiveTimer(const Topology& topology, CollectiveTimerOptions options)
    : topology_(topology),
      options_(options),
      cost_(make_message_cost(topology, options.system != nullptr ? AstraCompat::full() : AstraCompat{})) {}

CollectiveTimer::~CollectiveTimer() = default;

CollectiveTimer::RingShape CollectiveTimer::ring_shape(const std::vector<uint32_t>& members) const {
  const HopTimes hops = hop_times(members);
  RingShape shape = slowest_hop_shape(hops);
  if (!ring_hops_share_links())
    return shape;
  const double one_ring = std::min(shape.bytes_per_s, shared_hop_bytes_per_s({members}));
  const uint32_t block = ring_block(hops.transfer_s);
  const double channels = block > 1 ? channel_rings_bytes_per_s(members, block, shape.bytes_per_s) : 0.0;
  if (channels > one_ring) {
    shape.bytes_per_s = channels;
    shape.channels = block;
  } else {
    shape.bytes_per_s = one_ring;
  }
  return shape;
}

uint32_t CollectiveTimer::ring_block(const std::vector<double>& transfer) {
  // The members in equal consecutive blocks whose hop to the next block is slower than every hop inside a block
  // (a data-parallel group with several members per node): what NCCL runs as one ring per member NIC.
  const auto n = static_cast<uint32_t>(transfer.size());
  if (n < 4)
    return 0;
  const double fastest = *std::min_element(transfer.begin(), transfer.end());
  auto slow = [&](uint32_t i) { return transfer[i] > fastest * (1 + 1e-6); };
  uint32_t block = 0;
  while (block < n && !slow(block))
    ++block;
  ++block;  // the first slow hop leaves the first block
  if (block <= 1 || block >= n || n % block != 0)
    return 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (slow(i) != ((i + 1) % block == 0))
      return 0;
  }
  return block;
}

double CollectiveTimer::channel_rings_bytes_per_s(const std::vector<uint32_t>& members, uint32_t block,
                                                  double hop_bytes_per_s) const {
  // One ring per member of a block, each entering every block at a different member (so leaving by a different
  // member's links), every ring carrying its share of the data at once: k rings move k times a ring's rate, as
  // long as the links they share allow (each link's bandwidth split between the hops of all rings crossing it).
  const auto n = static_cast<uint32_t>(members.size());
  std::vector<std::vector<uint32_t>> rings(block, std::vector<uint32_t>(n));
  for (uint32_t c = 0; c < block; ++c) {
    for (uint32_t i = 0; i < n; ++i)
      rings[c][i] = members[channel_ring_position(i, block, c)];
  }
  return block * std::min(hop_bytes_per_s, shared_hop_bytes_per_s(rings));
}

CollectiveTimer::HopTimes CollectiveTimer::hop_times(const std::vector<uint32_t>& members) const {
  HopTimes hops;
  hops.transfer_s.resize(members.size());
  for (size_t i = 0; i < members.size(); ++i) {
    const NodeId a{members[i]};
    const NodeId b{members[(i + 1) % members.size()]};
    const Time latency = cost_->delay(a, b, Bytes(0));
    hops.latency = std::max(hops.latency, latency);
    hops.transfer_s[i] = (cost_->delay(a, b, Bytes(kProbeBytes)) - latency).seconds();
  }
  return hops;
}

CollectiveTimer::RingShape CollectiveTimer::slowest_hop_shape(const HopTimes& hops) {
  // The slowest hop of the logical ring sets the pace of a ring algorithm, so every hop is charged like it.
  const double slowest = *std::max_element(hops.transfer_s.begin(), hops.transfer_s.end());
  return RingShape{static_cast<uint32_t>(hops.transfer_s.size()), hops.latency,
                   static_cast<double>(kProbeBytes) / slowest};
}

bool CollectiveTimer::ring_hops_share_links() const {
  // The congestion-aware models, natively: ASTRA-sim's logical ring (the compatible mode) ignores it, as does the
  // unaware model by definition.
  return options_.system == nullptr &&
         (options_.model == NetworkModelKind::Aware || options_.model == NetworkModelKind::Flow);
}

double CollectiveTimer::shared_hop_bytes_per_s(const std::vector<std::vector<uint32_t>>& rings) const {
  // Every hop of a ring algorithm sends at once, each on its physical route: hops whose routes cross the same
  // link split its bandwidth (a ring of every other NPU on a physical ring sends two hops over each link).
  if (!routes_)
    routes_ = std::make_unique<RouteTable>(topology_);
  std::unordered_map<uint32_t, uint32_t> hops_on;
  for (const auto& members : rings) {
    for (size_t i = 0; i < members.size(); ++i) {
      for (LinkId l : routes_->route(NodeId{members[i]}, NodeId{members[(i + 1) % members.size()]}))
        ++hops_on[l.value];
    }
  }
  double slowest = std::numeric_limits<double>::infinity();
  for (const auto& [link, hops] : hops_on) {
    const double share = topology_.link_bandwidth(LinkId{link}).bytes_per_second() / hops;
    slowest = std::min(slowest, share);
  }
  return slowest;
}

namespace {

// Members of a group in equal consecutive blocks of `block` (1 < block < n) whose in-block transfers are all faster
// than every cross-block one: `transfer[i][j]` seconds for the probe between members i and j. 0 when there is none.
uint32_t fast_block(const std::vector<std::vector<double>>& transfer) {
  const auto n = static_cast<uint32_t>(transfer.size());
  double slowest = 0;
  for (uint32_t j = 1; j < n; ++j)
    slowest = std::max(slowest, transfer[0][j]);
  uint32_t block = 1;
  while (block < n && transfer[0][block] < slowest * (1 - 1e-9))
    ++block;
  if (block <= 1 || block >= n || n % block != 0)
    return 0;
  double near = 0;
  double far = std::numeric_limits<double>::infinity();
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      if (i == j)
        continue;
      if (i / block == j / block)
        near = std::max(near, transfer[i][j]);
      else
        far = std::min(far, transfer[i][j]);
    }
  }
  return near < far ? block : 0;
}

}  // namespace

CollectiveTimer::RingShape CollectiveTimer::all_to_all_shape(const std::vector<uint32_t>& members) const {
  // Direct: every member sends to every other, no ring hops to share links (the runtime charges the pairs' routes).
  RingShape shape = slowest_hop_shape(hop_times(members));
  const auto n = static_cast<uint32_t>(members.size());
  constexpr uint32_t kMaxPairs = 512;  // members; a larger group keeps the slowest hop (n^2 delays)
  if (n < 3 || n > kMaxPairs)
    return shape;
  std::vector<std::vector<double>> transfer(n, std::vector<double>(n, 0.0));
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      if (i == j)
        continue;
      const NodeId a{members[i]};
      const NodeId b{members[j]};
      transfer[i][j] = (cost_->delay(a, b, Bytes(kProbeBytes)) - cost_->delay(a, b, Bytes(0))).seconds();
    }
  }
  const uint32_t block = fast_block(transfer);
  if (block == 0)
    return shape;
  // Per member: its block - 1 near shares through the fast port, its n - block far shares through the slow one, at
  // once; the slowest member sets the time, and the logical port moves the n - 1 shares in that time.
  double worst = 0;
  for (uint32_t i = 0; i < n; ++i) {
    double near = 0;
    double far = 0;
    for (uint32_t j = 0; j < n; ++j) {
      if (i == j)
        continue;
      double& slowest = i / block == j / block ? near : far;
      slowest = std::max(slowest, transfer[i][j]);
    }
    worst = std::max(worst, std::max((block - 1) * near, (n - block) * far));
  }
  shape.bytes_per_s = static_cast<double>(kProbeBytes) * (n - 1) / worst;
  return shape;
}

TimedCollective CollectiveTimer::run(CommType type, Bytes bytes, const Topology& topology, bool whole_network,
                                     uint32_t channels) const {
  const CollectiveKind kind = *simulated_kind(type);
  const uint32_t n = topology.npu_count();
  // Chakra's All-Gather comm_size is each NPU's input; chorus collectives take NCCL's gathered size.
  const Bytes size = kind == CollectiveKind::AllGather ? bytes * n : bytes;
  const Collective collective{kind, size, n};
  CollectiveRunOptions run_options;
  run_options.model = options_.model;
  run_options.packet = options_.packet;
  if (options_.system != nullptr) {
    run_options.plan = options_.system->plan_config(kind);  // ASTRA-sim compatible (plan.overheads.astra)
  }
  if (!whole_network) {
    // ASTRA-sim replaces a subgroup's per-dimension algorithms by one logical ring; an All-to-All subgroup runs
    // direct on a logical switch (subgroup_all_to_all_direct).
    const bool direct = subgroup_all_to_all_direct(type);
    run_options.plan.algorithms = {AlgorithmChoice{direct ? AlgorithmKind::Direct : AlgorithmKind::Ring, 0}};
    run_options.plan.flatten = false;
  }
  // The aware and flow evaluators (symmetric or full schedule) track links as they go: ask for the statistics
  // in the one run that times the collective rather than running it again.
  run_options.collect_link_stats = options_.link_stats && network_models().get(options_.model).info().link_stats;
  CollectiveRunResult result = run_collective(topology, collective, run_options);
  TimedCollective timed{result.time, algorithm_label(result.plan), size, std::move(result.links), {}};
  if (timed.links && !whole_network && subgroup_all_to_all_direct(type)) {
    // The logical switch's links are no member-to-member hops: each ordered pair of members carries its share on
    // its physical route, for as long as the collective lasts.
    const uint32_t members = n;
    LinkStats pairs;
    pairs.resize(size_t{members} * (members - 1));
    size_t l = 0;
    for (uint32_t a = 0; a < members; ++a) {
      for (uint32_t b = 0; b < members; ++b) {
        if (a == b)
          continue;
        pairs.bytes[l] = static_cast<double>(size.count()) / members;
        pairs.busy[l] = result.time;
        pairs.peak_flows[l] = 1;
        timed.ring_links.emplace_back(a, b);
        ++l;
      }
    }
    timed.links = std::move(pairs);
  } else if (timed.links && channels > 1) {
    // The logical ring stands for `channels` rings, each with its share of every hop's bytes on its own hops.
    LinkStats hops;
    hops.resize(size_t{topology.link_count()} * channels);
    size_t h = 0;
    for (uint32_t c = 0; c < channels; ++c) {
      for (uint32_t l = 0; l < topology.link_count(); ++l, ++h) {
        hops.bytes[h] = timed.links->bytes[l] / channels;
        hops.busy[h] = timed.links->busy[l];
        hops.peak_flows[h] = timed.links->peak_flows[l];
        timed.ring_links.emplace_back(channel_ring_position(topology.link_src(LinkId{l}).value, channels, c),
                                      channel_ring_position(topology.link_dst(LinkId{l}).value, channels, c));
      }
    }
    timed.links = std::move(hops);
  } else if (timed.links && !whole_network) {
    for (uint32_t l = 0; l < topology.link_count(); ++l)
      timed.ring_links.emplace_back(topology.link_src(LinkId{l}).value, topology.link_dst(LinkId{l}).value);
  }
  return timed;
}

const TimedCollective& CollectiveTimer::time_by_nccl(CommType type, Bytes bytes, const std::vector<uint32_t>& members) {
  auto shape_it = nccl_shapes_.find(members);
  if (shape_it == nccl_shapes_.end())
    shape_it = nccl_shapes_.emplace(members, nccl::group_shape(*options_.nccl->machine, members)).first;
  const CollectiveKind kind = *simulated_kind(type);
  // Chakra's All-Gather comm_size is each NPU's input; NCCL's is the gathered output.
  const Bytes size = kind == CollectiveKind::AllGather ? bytes * static_cast<int64_t>(members.size()) : bytes;
  const NcclKey key{type, size, shape_it->second};
  if (const auto it = nccl_cache_.find(key); it != nccl_cache_.end())
    return it->second;
  const nccl::GroupTiming t = nccl::time_group(*options_.nccl, kind, size, shape_it->second);
  return nccl_cache_.emplace(key, TimedCollective{t.duration, t.label, size, std::nullopt, {}}).first->second;
}

const TimedCollective& CollectiveTimer::time_by_synthesis(CommType type, Bytes bytes,
                                                          const std::vector<uint32_t>& members) {
  const CollectiveKind kind = *simulated_kind(type);
  const Bytes size = kind == CollectiveKind::AllGather ? bytes * static_cast<int64_t>(members.size()) : bytes;
  auto key = std::make_tuple(type, size, members);
  if (const auto it = synth_cache_.find(key); it != synth_cache_.end())
    return it->second;
  SynthOptions o;
  o.kind = kind;
  o.size = size;
  if (members.size() < topology_.npu_count())
    o.graph.group = members;
  const SynthResult r = synthesize(topology_, o);
  const Time duration = simulate_synthesized(topology_, r, options_.model);
  return synth_cache_.emplace(std::move(key), TimedCollective{duration, "synth", size, std::nullopt, {}}).first->second;
}

bool CollectiveTimer::subgroup_all_to_all_direct(CommType type) const {
  if (type != CommType::AllToAll)
    return false;
  // An ASTRA-sim system file keeps ASTRA-sim's logical ring unless it asks for direct All-to-All.
  if (options_.system == nullptr)
    return true;
  const CollectivePlanConfig plan = options_.system->plan_config(CollectiveKind::AllToAll);
  return !plan.algorithms.empty() && plan.algorithms.front().kind == AlgorithmKind::Direct;
}

const CollectiveTimer::RingShape& CollectiveTimer::cached_ring_shape(const std::vector<uint32_t>& members) {
  if (const auto it = ring_shapes_.find(members); it != ring_shapes_.end())
    return it->second;
  return ring_shapes_.emplace(members, ring_shape(members)).first->second;
}

const TimedCollective& CollectiveTimer::time(CommType type, Bytes bytes, const std::vector<uint32_t>& members) {
  if (options_.nccl)
    return time_by_nccl(type, bytes, members);
  if (options_.synthesize && members.size() > 1)
    return time_by_synthesis(type, bytes, members);
  const bool whole = members.size() == topology_.npu_count();
  const bool direct =
      subgroup_all_to_all_direct(type) && (!whole || (options_.whole_all_to_all_direct && options_.system == nullptr));
  RingShape shape;
  if (direct) {
    auto it = all_to_all_shapes_.find(members);
    if (it == all_to_all_shapes_.end())
      it = all_to_all_shapes_.emplace(members, all_to_all_shape(members)).first;
    shape = it->second;
  } else if (!whole) {
    shape = cached_ring_shape(members);
  }
  const Key key{type, bytes, whole, shape};
  if (const auto it = cache_.find(key); it != cache_.end())
    return it->second;
  if (whole && !direct)
    return cache_.emplace(key, run(type, bytes, topology_, true)).first->second;
  if (direct) {
    // Every member sends to every other through its own port: a switch whose links run at the slowest hop's
    // speed (or the near and far ports' combined speed, all_to_all_shape), each of a path's two links half the
    // hop's latency.
    const Topology logical_switch =
        compose({Dimension{BlockKind::Switch, shape.size, Bandwidth::bytes_per_s(shape.bytes_per_s),
                           Time::ps(shape.latency.picoseconds() / 2)}});
    return cache_.emplace(key, run(type, bytes, logical_switch, false)).first->second;
  }
  const LinkParams hop{Bandwidth::bytes_per_s(shape.bytes_per_s), shape.latency};
  const Topology logical_ring = ring(shape.size, hop);
  return cache_.emplace(key, run(type, bytes, logical_ring, false, shape.channels)).first->second;
}

}  // namespace chorus
