// RouteTable: the links a message between two NPUs crosses, the same for every network model.
//
// - Dimensional topologies: dimension-order routing. Dimensions are corrected in order 0, 1, ...; inside a
//   dimension a Ring goes the shorter way (forward on a tie), a UniRing forward, a Mesh towards the target,
//   FullyConnected uses the direct link, a Switch goes up to the dimension's switch and down. This is
//   rotation-invariant, so the symmetric evaluators and the full schedule see the same links.
// - Other topologies: the Router's BFS shortest path (fewest hops).
// Routes are computed once per (src, dst) pair and cached; a RouteTable is not thread-safe.
//
//   RouteTable routes(topology);
//   for (LinkId l : routes.route(NodeId{0}, NodeId{5})) ...
#pragma once

#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "chorus/topology/topology.hpp"

namespace chorus {

class Router;

class RouteTable {
 public:
  explicit RouteTable(const Topology& topology);
  ~RouteTable();
  std::span<const LinkId> route(NodeId src, NodeId dst) const;
  const Topology& topology() const { return topology_; }

 private:
  std::vector<LinkId> dimension_order(NodeId src, NodeId dst) const;

  const Topology& topology_;
  std::unique_ptr<Router> router_;
  mutable std::unordered_map<uint64_t, std::vector<LinkId>> cache_;
};

}  // namespace chorus
