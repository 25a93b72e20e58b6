// Topology storage, validation and CSR adjacency.
#include "chorus/topology/topology.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "chorus/core/assert.hpp"
#include "chorus/core/error.hpp"

namespace chorus {

std::string to_string(BlockKind kind) {
  switch (kind) {
    case BlockKind::Ring:
      return "Ring";
    case BlockKind::UniRing:
      return "UniRing";
    case BlockKind::FullyConnected:
      return "FullyConnected";
    case BlockKind::Switch:
      return "Switch";
    case BlockKind::Mesh:
      return "Mesh";
  }
  return "?";
}

std::span<const LinkId> Topology::out_links(NodeId n) const {
  return {out_links_.data() + out_offset_[n.value], out_offset_[n.value + 1] - out_offset_[n.value]};
}

std::span<const LinkId> Topology::in_links(NodeId n) const {
  return {in_links_.data() + in_offset_[n.value], in_offset_[n.value + 1] - in_offset_[n.value]};
}

uint32_t Topology::coordinate(NodeId npu, size_t dim) const {
  CHORUS_ASSERT(dim < dimensions_.size(), "dimension {} of a {}-dimensional topology", dim, dimensions_.size());
  return (npu.value / dimension_stride_[dim]) % dimensions_[dim].size;
}

TopologyBuilder::TopologyBuilder(std::string name, uint32_t npu_count, std::string source)
    : source_(std::move(source)) {
  if (npu_count == 0)
    throw Error(source_, "npus", "a topology needs at least one NPU");
  topology_.name_ = std::move(name);
  topology_.npu_count_ = npu_count;
  topology_.kind_.assign(npu_count, NodeKind::Npu);
}

NodeId TopologyBuilder::add_switch() {
  topology_.kind_.push_back(NodeKind::Switch);
  return NodeId{static_cast<uint32_t>(topology_.kind_.size() - 1)};
}

void TopologyBuilder::reserve_links(size_t links) {
  links = std::min(links, kMaxLinks);
  topology_.link_src_.reserve(links);
  topology_.link_dst_.reserve(links);
  topology_.link_bandwidth_.reserve(links);
  topology_.link_latency_.reserve(links);
}

LinkId TopologyBuilder::add_link(NodeId src, NodeId dst, Bandwidth bandwidth, Time latency) {
  if (topology_.link_src_.size() >= kMaxLinks) {
    throw Error(source_, "links",
                fmt::format("'{}' has more than {} links; chorus keeps topologies below that size", topology_.name_,
                            kMaxLinks));
  }
  // Formatted only on failure: building a string per link dominated loading multi-million-link topologies.
  const auto field = [&] { return fmt::format("link {}->{}", src.value, dst.value); };
  if (src.value >= node_count() || dst.value >= node_count()) {
    throw Error(source_, field(), fmt::format("node id out of range; the topology has {} nodes", node_count()));
  }
  if (src == dst)
    throw Error(source_, field(), "a link may not connect a node to itself");
  if (!(bandwidth.bytes_per_second() > 0) || !std::isfinite(bandwidth.bytes_per_second())) {
    throw Error(source_, field(), fmt::format("bandwidth is {} B/s; must be > 0", bandwidth.bytes_per_second()));
  }
  if (latency < Time::zero())
    throw Error(source_, field(), fmt::format("latency is {}; must be >= 0", to_string(latency)));
  topology_.link_src_.push_back(src.value);
  topology_.link_dst_.push_back(dst.value);
  topology_.link_bandwidth_.push_back(bandwidth);
  topology_.link_latency_.push_back(latency);
  return LinkId{static_cast<uint32_t>(topology_.link_src_.size() - 1)};
}

void TopologyBuilder::add_duplex(NodeId a, NodeId b, Bandwidth bandwidth, Time latency) {
  add_link(a, b, bandwidth, latency);
  add_link(b, a, bandwidth, latency);
}

void TopologyBuilder::set_dimensions(std::vector<Dimension> dimensions) {
  topology_.dimensions_ = std::move(dimensions);
}

namespace {

void build_csr(uint32_t nodes, const std::vector<uint32_t>& key, std::vector<uint32_t>& offset,
               std::vector<LinkId>& out) {
  offset.assign(nodes + 1, 0);
  for (uint32_t k : key)
    ++offset[k + 1];
  for (uint32_t i = 0; i < nodes; ++i)
    offset[i + 1] += offset[i];
  out.resize(key.size());
  std::vector<uint32_t> cursor(offset.begin(), offset.end() - 1);
  for (uint32_t l = 0; l < key.size(); ++l)
    out[cursor[key[l]]++] = LinkId{l};
}

}  // namespace

Topology TopologyBuilder::seal() && {
  Topology& t = topology_;
  if (!t.dimensions_.empty()) {
    uint64_t product = 1;
    t.dimension_stride_.clear();
    for (size_t d = 0; d < t.dimensions_.size(); ++d) {
      const Dimension& dim = t.dimensions_[d];
      if (dim.size == 0)
        throw Error(source_, fmt::format("dimension {}", d), "has 0 NPUs");
      t.dimension_stride_.push_back(static_cast<uint32_t>(product));
      product *= dim.size;
      if (product > t.npu_count_)
        break;
    }
    if (product != t.npu_count_) {
      throw Error(
          source_, "dimensions",
          fmt::format("NPU counts per dimension multiply to {}, but the topology has {} NPUs", product, t.npu_count_));
    }
  }
  build_csr(t.node_count(), t.link_src_, t.out_offset_, t.out_links_);
  build_csr(t.node_count(), t.link_dst_, t.in_offset_, t.in_links_);
  return std::move(t);
}

}  // namespace chorus
