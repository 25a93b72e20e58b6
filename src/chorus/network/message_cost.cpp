// Message cost rules of the congestion-unaware model (see message_cost.hpp).
#include "chorus/network/message_cost.hpp"

#include <algorithm>
#include <cstdlib>

#include "chorus/core/assert.hpp"
#include "chorus/topology/route_table.hpp"

namespace chorus {

namespace {

uint32_t hops_in_dimension(const Dimension& dim, uint32_t from, uint32_t to) {
  const uint32_t forward = (to + dim.size - from) % dim.size;
  switch (dim.kind) {
    case BlockKind::FullyConnected:
      return 1;
    case BlockKind::Switch:
      return 2;
    case BlockKind::Ring:
      return std::min(forward, dim.size - forward);
    case BlockKind::UniRing:
      return forward;
    case BlockKind::Mesh:
      return from > to ? from - to : to - from;
  }
  return 1;
}

}  // namespace

DimensionalCost::DimensionalCost(const Topology& topology, AstraCompat astra) : topology_(topology), astra_(astra) {
  CHORUS_ASSERT(topology.is_dimensional(), "DimensionalCost on topology '{}' without dimensions", topology.name());
}

Time DimensionalCost::member_delay(size_t dim_index, uint32_t from, uint32_t to, Bytes bytes) const {
  const Dimension& dim = topology_.dimensions()[dim_index];
  const uint32_t hops = hops_in_dimension(dim, from, to);
  if (astra_.whole_ns_rounding) {
    // ASTRA-sim: bandwidth_Bpns = GB/s * 2^30 / 1e9, delay = (int)(hops * latency_ns + bytes / bandwidth_Bpns).
    const double bandwidth_bpns = dim.bandwidth.bytes_per_second() / 1e9;
    const double latency_ns = static_cast<double>(dim.latency.picoseconds()) / 1e3;
    const double ns = hops * latency_ns + static_cast<double>(bytes.count()) / bandwidth_bpns;
    return Time::ns(static_cast<int64_t>(ns));
  }
  return dim.latency * hops + transfer_time(bytes, dim.bandwidth);
}

Time DimensionalCost::delay(NodeId src, NodeId dst, Bytes bytes) const {
  for (size_t d = 0; d < topology_.dimensions().size(); ++d) {
    const uint32_t a = topology_.coordinate(src, d);
    const uint32_t b = topology_.coordinate(dst, d);
    if (a != b)
      return member_delay(d, a, b, bytes);
  }
  CHORUS_ASSERT(false, "message from NPU {} to itself", src.value);
  return Time::zero();
}

RoutedCost::RoutedCost(const Topology& topology)
    : topology_(topology), routes_(std::make_unique<RouteTable>(topology)) {}

RoutedCost::~RoutedCost() = default;

const RoutedCost::Path& RoutedCost::path(NodeId src, NodeId dst) const {
  const uint64_t key = (uint64_t{src.value} << 32) | dst.value;
  auto it = cache_.find(key);
  if (it != cache_.end())
    return it->second;
  Path p{Time::zero(), Bandwidth::bytes_per_s(0)};
  bool first = true;
  for (LinkId l : routes_->route(src, dst)) {
    p.latency += topology_.link_latency(l);
    if (first || topology_.link_bandwidth(l) < p.bottleneck)
      p.bottleneck = topology_.link_bandwidth(l);
    first = false;
  }
  return cache_.emplace(key, p).first->second;
}

Time RoutedCost::delay(NodeId src, NodeId dst, Bytes bytes) const {
  const Path& p = path(src, dst);
  return p.latency + transfer_time(bytes, p.bottleneck);
}

std::unique_ptr<MessageCost> make_message_cost(const Topology& topology, AstraCompat astra) {
  if (astra.whole_ns_rounding && topology.is_dimensional())
    return std::make_unique<DimensionalCost>(topology, astra);
  return std::make_unique<RoutedCost>(topology);
}

}  // namespace chorus
