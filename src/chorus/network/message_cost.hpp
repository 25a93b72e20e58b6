// Message costs of the congestion-unaware model: how long one message takes when nothing else competes.
//
// - DimensionalCost: ASTRA-sim's analytical rule for multi-dimensional networks. A message is charged to the
//   first dimension in which source and destination differ: hops * latency + bytes / bandwidth, with
//   hops = 1 (FullyConnected), 2 (Switch: up and down), ring distance (Ring: the shorter way; UniRing: forward),
//   |delta| (Mesh). In ASTRA-sim mode the sum is truncated to whole ns exactly as ASTRA-sim does
//   (bandwidth in GiB/s converted to B/ns); otherwise it is exact to the picosecond.
// - RoutedCost: any topology. The message follows the RouteTable's route (the one the contention models use:
//   dimension-order on dimensional topologies, BFS otherwise); it pays the sum of the link latencies plus its
//   size over the slowest link on the path (cut-through, no contention).
// make_message_cost() is the one place that picks between them.
#pragma once

#include <memory>
#include <unordered_map>

#include "chorus/collective/astra_compat.hpp"
#include "chorus/core/units.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

class RouteTable;

class MessageCost {
 public:
  virtual ~MessageCost() = default;
  virtual Time delay(NodeId src, NodeId dst, Bytes bytes) const = 0;
};

class DimensionalCost final : public MessageCost {
 public:
  DimensionalCost(const Topology& topology, AstraCompat astra);
  Time delay(NodeId src, NodeId dst, Bytes bytes) const override;
  // The same rule between two members `from`, `to` of one group along network dimension `dim`.
  Time member_delay(size_t dim, uint32_t from, uint32_t to, Bytes bytes) const;

 private:
  const Topology& topology_;
  AstraCompat astra_;
};

class RoutedCost final : public MessageCost {
 public:
  explicit RoutedCost(const Topology& topology);
  ~RoutedCost() override;
  Time delay(NodeId src, NodeId dst, Bytes bytes) const override;

 private:
  struct Path {
    Time latency;
    Bandwidth bottleneck;
  };
  const Path& path(NodeId src, NodeId dst) const;

  const Topology& topology_;
  std::unique_ptr<RouteTable> routes_;
  mutable std::unordered_map<uint64_t, Path> cache_;  // (src, dst) -> path summary; not thread-safe
};

// ASTRA-sim's DimensionalCost (whole-ns rounding) when `astra.whole_ns_rounding` and the topology has dimensions, else
// the physical RoutedCost.
std::unique_ptr<MessageCost> make_message_cost(const Topology& topology, AstraCompat astra);

}  // namespace chorus
