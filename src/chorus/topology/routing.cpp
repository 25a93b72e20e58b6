// BFS shortest-path routing with per-source cached predecessor trees (see routing.hpp).
#include "chorus/topology/routing.hpp"

#include <limits>

#include <fmt/format.h>

#include "chorus/core/assert.hpp"
#include "chorus/core/error.hpp"

namespace chorus {

namespace {

constexpr uint32_t kNoLink = std::numeric_limits<uint32_t>::max();

std::string describe(const Topology& topology, NodeId node) {
  return fmt::format("{} {}", topology.is_npu(node) ? "NPU" : "switch", node.value);
}

std::vector<uint32_t> bfs_tree(const Topology& topology, NodeId src) {
  std::vector<uint32_t> predecessor(topology.node_count(), kNoLink);
  std::vector<bool> seen(topology.node_count(), false);
  std::vector<uint32_t> frontier{src.value};
  seen[src.value] = true;
  // The vector doubles as the FIFO queue: nodes are appended in discovery order and read from `head`.
  for (size_t head = 0; head < frontier.size(); ++head) {
    for (LinkId link : topology.out_links(NodeId{frontier[head]})) {
      const uint32_t next = topology.link_dst(link).value;
      if (seen[next])
        continue;
      seen[next] = true;
      predecessor[next] = link.value;
      frontier.push_back(next);
    }
  }
  return predecessor;
}

}  // namespace

Router::Router(const Topology& topology) : topology_(&topology) {}

const std::vector<uint32_t>& Router::predecessors(NodeId src) const {
  auto it = trees_.find(src.value);
  if (it == trees_.end())
    it = trees_.emplace(src.value, bfs_tree(*topology_, src)).first;
  return it->second;
}

std::vector<LinkId> Router::route(NodeId src, NodeId dst) const {
  const uint32_t nodes = topology_->node_count();
  CHORUS_ASSERT(src.value < nodes && dst.value < nodes, "route {} -> {} in a topology of {} nodes", src.value,
                dst.value, nodes);
  if (src == dst)
    return {};
  const std::vector<uint32_t>& predecessor = predecessors(src);
  if (predecessor[dst.value] == kNoLink) {
    throw Error("", "route",
                fmt::format("no path from {} to {}", describe(*topology_, src), describe(*topology_, dst)));
  }
  std::vector<LinkId> path;
  for (NodeId at = dst; at != src; at = topology_->link_src(path.back()))
    path.push_back(LinkId{predecessor[at.value]});
  return {path.rbegin(), path.rend()};
}

uint32_t Router::hop_count(NodeId src, NodeId dst) const {
  return static_cast<uint32_t>(route(src, dst).size());
}

}  // namespace chorus
