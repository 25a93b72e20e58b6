// Topology: an immutable, validated graph of NPUs, switches and directed links.
//
// - NodeId / LinkId are strong 32-bit handles into arenas. NPUs are always nodes 0..npu_count()-1;
//   switches (forwarding only, no compute) follow them.
// - Links are directed and carry a Bandwidth and a latency. A full-duplex cable is two links.
// - dimensions() optionally describes the topology as ASTRA-sim-style dimensions (Ring, FullyConnected,
//   Switch, ...), NPU id = mixed-radix address with dimension 0 fastest. Hierarchical collective
//   algorithms and the ASTRA-sim-compatible network model use it; graph algorithms use the links only.
// - Built in two phases: a mutable TopologyBuilder, then seal() validates and freezes it (adjacency in CSR).
//
//   TopologyBuilder b("pair", 2);
//   b.add_duplex(NodeId{0}, NodeId{1}, Bandwidth::gb_per_s(50), Time::ns(500));
//   Topology t = std::move(b).seal();
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "chorus/core/units.hpp"

namespace chorus {

struct NodeId {
  uint32_t value = 0;
  constexpr auto operator<=>(const NodeId&) const = default;
};

struct LinkId {
  uint32_t value = 0;
  constexpr auto operator<=>(const LinkId&) const = default;
};

enum class NodeKind : uint8_t { Npu, Switch };

// Building blocks of one network dimension, as ASTRA-sim names them, plus the usual HPC shapes.
enum class BlockKind : uint8_t {
  Ring,            // bidirectional ring (a ring of 2 is a single full-duplex pair)
  UniRing,         // unidirectional ring i -> i+1
  FullyConnected,  // a full-duplex link between every pair
  Switch,          // every NPU has a full-duplex link to one switch of this dimension
  Mesh,            // a line: i <-> i+1 without wrap-around
};

struct Dimension {
  BlockKind kind = BlockKind::Ring;
  uint32_t size = 0;  // NPUs along this dimension
  Bandwidth bandwidth;
  Time latency;
};

std::string to_string(BlockKind kind);

class Topology {
 public:
  const std::string& name() const { return name_; }
  uint32_t npu_count() const { return npu_count_; }
  uint32_t node_count() const { return static_cast<uint32_t>(kind_.size()); }
  uint32_t link_count() const { return static_cast<uint32_t>(link_src_.size()); }

  NodeKind kind(NodeId n) const { return kind_[n.value]; }
  bool is_npu(NodeId n) const { return n.value < npu_count_; }

  NodeId link_src(LinkId l) const { return NodeId{link_src_[l.value]}; }
  NodeId link_dst(LinkId l) const { return NodeId{link_dst_[l.value]}; }
  Bandwidth link_bandwidth(LinkId l) const { return link_bandwidth_[l.value]; }
  Time link_latency(LinkId l) const { return link_latency_[l.value]; }

  // Links leaving / entering a node, in the order they were added.
  std::span<const LinkId> out_links(NodeId n) const;
  std::span<const LinkId> in_links(NodeId n) const;

  // ASTRA-sim-style dimensions; empty if the topology is a plain graph (e.g. read from an edge list).
  const std::vector<Dimension>& dimensions() const { return dimensions_; }
  bool is_dimensional() const { return !dimensions_.empty(); }
  // Coordinate of an NPU along dimension `dim` (dimension 0 varies fastest).
  uint32_t coordinate(NodeId npu, size_t dim) const;

 private:
  friend class TopologyBuilder;
  std::string name_;
  uint32_t npu_count_ = 0;
  std::vector<NodeKind> kind_;
  std::vector<uint32_t> link_src_, link_dst_;
  std::vector<Bandwidth> link_bandwidth_;
  std::vector<Time> link_latency_;
  std::vector<uint32_t> out_offset_, in_offset_;  // CSR: node_count()+1 entries
  std::vector<LinkId> out_links_, in_links_;
  std::vector<Dimension> dimensions_;
  std::vector<uint32_t> dimension_stride_;
};

class TopologyBuilder {
 public:
  // 2^26 directed links (about 2 GiB with adjacency): far beyond any real system (a 4096-NPU full mesh has 2^24),
  // and a bound that keeps a typo such as fc:100000 from exhausting memory.
  static constexpr size_t kMaxLinks = size_t{1} << 26;

  // `source` names where the topology comes from (a file, a generator spec) for error messages.
  TopologyBuilder(std::string name, uint32_t npu_count, std::string source = "");

  NodeId add_switch();
  // Room for `links` links in all (a generator that knows its count saves the copies of growing).
  void reserve_links(size_t links);
  LinkId add_link(NodeId src, NodeId dst, Bandwidth bandwidth, Time latency);
  // Two links, a -> b and b -> a, with the same bandwidth and latency.
  void add_duplex(NodeId a, NodeId b, Bandwidth bandwidth, Time latency);
  void set_dimensions(std::vector<Dimension> dimensions);
  uint32_t node_count() const { return static_cast<uint32_t>(topology_.kind_.size()); }

  // Validates (ids in range, no self-loops, bandwidth > 0, latency >= 0, dimensions multiply to the NPU
  // count) and freezes. Throws chorus::Error naming `source`.
  Topology seal() &&;

 private:
  Topology topology_;
  std::string source_;
};

}  // namespace chorus
