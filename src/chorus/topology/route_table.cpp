// Dimension-order and BFS routes with a cache (see route_table.hpp).
#include "chorus/topology/route_table.hpp"

#include "chorus/core/assert.hpp"
#include "chorus/topology/routing.hpp"

namespace chorus {

namespace {

LinkId link_between(const Topology& t, NodeId from, NodeId to) {
  for (LinkId l : t.out_links(from)) {
    if (t.link_dst(l) == to)
      return l;
  }
  CHORUS_ASSERT(false, "no link {} -> {} in '{}'", from.value, to.value, t.name());
  return LinkId{};
}

// The switch that both `from` and `to` hang off (the one of the dimension being corrected).
std::pair<LinkId, LinkId> via_switch(const Topology& t, NodeId from, NodeId to) {
  for (LinkId up : t.out_links(from)) {
    const NodeId sw = t.link_dst(up);
    if (t.kind(sw) != NodeKind::Switch)
      continue;
    for (LinkId down : t.out_links(sw)) {
      if (t.link_dst(down) == to)
        return {up, down};
    }
  }
  CHORUS_ASSERT(false, "no switch between {} and {} in '{}'", from.value, to.value, t.name());
  return {};
}

}  // namespace

RouteTable::RouteTable(const Topology& topology) : topology_(topology) {
  if (!topology.is_dimensional())
    router_ = std::make_unique<Router>(topology);
}

RouteTable::~RouteTable() = default;

std::vector<LinkId> RouteTable::dimension_order(NodeId src, NodeId dst) const {
  std::vector<LinkId> path;
  NodeId at = src;
  uint32_t stride = 1;
  for (size_t d = 0; d < topology_.dimensions().size(); ++d) {
    const Dimension& dim = topology_.dimensions()[d];
    const uint32_t a = topology_.coordinate(at, d);
    const uint32_t b = topology_.coordinate(dst, d);
    auto at_coordinate = [&](uint32_t c) { return NodeId{at.value - a * stride + c * stride}; };
    if (a != b) {
      const uint32_t forward = (b + dim.size - a) % dim.size;
      switch (dim.kind) {
        case BlockKind::FullyConnected:
          path.push_back(link_between(topology_, at, at_coordinate(b)));
          break;
        case BlockKind::Switch: {
          const auto [up, down] = via_switch(topology_, at, at_coordinate(b));
          path.push_back(up);
          path.push_back(down);
          break;
        }
        case BlockKind::Ring:
        case BlockKind::UniRing:
        case BlockKind::Mesh: {
          int step = 1;
          uint32_t hops = forward;
          if (dim.kind == BlockKind::Ring && forward > dim.size - forward) {
            step = -1;
            hops = dim.size - forward;
          }
          if (dim.kind == BlockKind::Mesh) {
            step = b > a ? 1 : -1;
            hops = b > a ? b - a : a - b;
          }
          uint32_t c = a;
          for (uint32_t h = 0; h < hops; ++h) {
            const uint32_t next = (c + dim.size + static_cast<uint32_t>(step)) % dim.size;
            path.push_back(link_between(topology_, at_coordinate(c), at_coordinate(next)));
            c = next;
          }
          break;
        }
      }
      at = at_coordinate(b);
    }
    stride *= dim.size;
  }
  return path;
}

std::span<const LinkId> RouteTable::route(NodeId src, NodeId dst) const {
  const uint64_t key = (uint64_t{src.value} << 32) | dst.value;
  auto it = cache_.find(key);
  if (it != cache_.end())
    return it->second;
  std::vector<LinkId> path = router_ ? router_->route(src, dst) : dimension_order(src, dst);
  return cache_.emplace(key, std::move(path)).first->second;
}

}  // namespace chorus
