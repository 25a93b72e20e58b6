// Physical lower bounds of a workload's collectives, for the reports: a group's collective is bounded on the
// physical links its members' traffic can use, not on the logical ring it is timed on.
//
// - The group of every NPU: chorus's lower bound (collective/lower_bound.hpp) on the whole network, as
//   `chorus bound` computes it.
// - A smaller group: the same bound on the subnetwork made of the links of the shortest routes (RouteTable, as
//   every model routes) between every ordered pair of members; the members are its NPUs (the terminals) and
//   every other node on those routes, NPU or switch, only forwards. A TP group of 8 behind one switch gets
//   that switch's star, a group spanning a FullyConnected dimension that dimension's full mesh.
// Subnetworks are cached per group and deduplicated by their shape (links, bandwidths and latencies relative to
// the member order), bounds per (shape, collective, size): translated copies of a group cost one bound.
//
//   GroupBounds bounds(topology);
//   Time t = bounds.bound(chakra::CommType::AllReduce, Bytes::mib(64), group.npus);
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "chorus/chakra/trace.hpp"
#include "chorus/topology/route_table.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

class GroupBounds {
 public:
  explicit GroupBounds(const Topology& topology);
  // `bytes` is Chakra's comm_size (All-Gather: each member's contribution). The simulated kinds only
  // (All-Reduce, All-Gather, Reduce-Scatter, All-to-All); a lower bound rounded down to whole picoseconds.
  Time bound(chakra::CommType type, Bytes bytes, const std::vector<uint32_t>& members);
  // The subnetwork a group's bound is computed on (the whole network for a group of every NPU).
  const Topology& network_of(const std::vector<uint32_t>& members);

 private:
  // One link of a subnetwork: local ends (members first, in member order), bandwidth (B/s), latency (ps).
  using ShapeLink = std::tuple<uint32_t, uint32_t, double, int64_t>;
  size_t shape_of(const std::vector<uint32_t>& members);  // index into shapes_, -1 (SIZE_MAX): the whole network

  const Topology& topology_;
  RouteTable routes_;
  std::map<std::vector<uint32_t>, size_t> group_shape_;
  std::map<std::vector<ShapeLink>, size_t> shape_index_;
  std::vector<Topology> shapes_;
  std::map<std::tuple<size_t, chakra::CommType, Bytes>, Time> bounds_;
};

}  // namespace chorus
