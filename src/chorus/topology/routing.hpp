// Shortest-path routing by hop count over a Topology's directed links.
//
// - route(src, dst) is a breadth-first search from src over out_links; ties go to the path found first, i.e.
//   to the lowest position in each node's out_links order, so routes are deterministic.
// - Any node may be an interior hop: switches forward, and so do NPUs in direct networks (torus, mesh).
// - One BFS predecessor tree per source is computed on first use and cached, so a Router is cheap to query
//   repeatedly. The cache is mutable state behind const methods: a Router is NOT thread-safe; give each
//   thread its own. It holds a reference: the Topology must outlive it.
//
//   Router router(topology);
//   for (LinkId l : router.route(NodeId{0}, NodeId{5})) ...
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "chorus/topology/topology.hpp"

namespace chorus {

class Router {
 public:
  explicit Router(const Topology& topology);

  // The links of a shortest path from src to dst, in order; empty if src == dst.
  // Throws chorus::Error("", "route", ...) if dst cannot be reached.
  std::vector<LinkId> route(NodeId src, NodeId dst) const;
  uint32_t hop_count(NodeId src, NodeId dst) const;

 private:
  // For every node, the link by which the BFS from `src` first reached it (kNoLink if unreached or src).
  const std::vector<uint32_t>& predecessors(NodeId src) const;

  const Topology* topology_;  // not owned
  // Keyed by source node. A map, not a vector per node: most users route from a few sources of a big graph.
  mutable std::unordered_map<uint32_t, std::vector<uint32_t>> trees_;
};

}  // namespace chorus
