// Physical lower bounds of a workload's collectives on the links their groups use (see group_bound.hpp).
#include "chorus/runtime/group_bound.hpp"

#include <unordered_map>

#include "chorus/collective/lower_bound.hpp"
#include "chorus/runtime/collective_timer.hpp"

namespace chorus {

namespace {

constexpr size_t kWholeNetwork = SIZE_MAX;

// The subnetwork of the routes between every ordered pair of members, as a list of links in a canonical order:
// members are local nodes 0..k-1, other nodes are numbered as the routes first reach them.
std::vector<std::tuple<uint32_t, uint32_t, double, int64_t>> route_union(const Topology& topology,
                                                                         const RouteTable& routes,
                                                                         const std::vector<uint32_t>& members,
                                                                         uint32_t& node_count) {
  std::unordered_map<uint32_t, uint32_t> local;
  for (const uint32_t m : members)
    local.emplace(m, static_cast<uint32_t>(local.size()));
  auto local_id = [&](NodeId n) { return local.emplace(n.value, static_cast<uint32_t>(local.size())).first->second; };
  std::vector<uint8_t> taken(topology.link_count(), 0);
  std::vector<std::tuple<uint32_t, uint32_t, double, int64_t>> links;
  for (const uint32_t a : members) {
    for (const uint32_t b : members) {
      if (a == b)
        continue;
      for (const LinkId l : routes.route(NodeId{a}, NodeId{b})) {
        if (taken[l.value])
          continue;
        taken[l.value] = 1;
        const uint32_t src = local_id(topology.link_src(l));
        const uint32_t dst = local_id(topology.link_dst(l));
        links.emplace_back(src, dst, topology.link_bandwidth(l).bytes_per_second(),
                           topology.link_latency(l).picoseconds());
      }
    }
  }
  node_count = static_cast<uint32_t>(local.size());
  return links;
}

}  // namespace

GroupBounds::GroupBounds(const Topology& topology) : topology_(topology), routes_(topology) {}

size_t GroupBounds::shape_of(const std::vector<uint32_t>& members) {
  if (members.size() == topology_.npu_count())
    return kWholeNetwork;
  if (const auto it = group_shape_.find(members); it != group_shape_.end())
    return it->second;
  uint32_t nodes = 0;
  std::vector<ShapeLink> links = route_union(topology_, routes_, members, nodes);
  auto [it, inserted] = shape_index_.try_emplace(std::move(links), shapes_.size());
  if (inserted) {
    const auto npus = static_cast<uint32_t>(members.size());
    TopologyBuilder b(topology_.name() + " (group links)", npus, topology_.name());
    for (uint32_t i = npus; i < nodes; ++i)
      b.add_switch();  // a non-member only forwards
    for (const auto& [src, dst, bytes_per_s, latency_ps] : it->first)
      b.add_link(NodeId{src}, NodeId{dst}, Bandwidth::bytes_per_s(bytes_per_s), Time::ps(latency_ps));
    shapes_.push_back(std::move(b).seal());
  }
  group_shape_.emplace(members, it->second);
  return it->second;
}

const Topology& GroupBounds::network_of(const std::vector<uint32_t>& members) {
  const size_t shape = shape_of(members);
  return shape == kWholeNetwork ? topology_ : shapes_[shape];
}

Time GroupBounds::bound(chakra::CommType type, Bytes bytes, const std::vector<uint32_t>& members) {
  const size_t shape = shape_of(members);
  const auto key = std::make_tuple(shape, type, bytes);
  if (const auto it = bounds_.find(key); it != bounds_.end())
    return it->second;
  const CollectiveKind kind = *simulated_kind(type);
  const auto n = static_cast<uint32_t>(members.size());
  // Chakra's All-Gather comm_size is each member's input; the bound takes NCCL's gathered size.
  const Bytes size = kind == CollectiveKind::AllGather ? bytes * n : bytes;
  BoundOptions options;
  options.information_bound = false;
  const Topology& network = shape == kWholeNetwork ? topology_ : shapes_[shape];
  // Zero is "no bound computed", which every time meets (physically_feasible); reports then carry no ratio.
  const Collective collective{kind, size, n};
  const Time t = bound_not_computable(network, collective, options) ? Time::zero()
                                                                    : lower_bound(network, collective, options).bound;
  bounds_.emplace(key, t);
  return t;
}

}  // namespace chorus
