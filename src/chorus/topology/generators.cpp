// Synthetic topology generators (see generators.hpp): everything dimensional goes through compose(), so the
// link layout of a torus, a mesh or an ASTRA-sim network file is defined in exactly one place.
#include "chorus/topology/generators.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "chorus/core/assert.hpp"
#include "chorus/core/error.hpp"

namespace chorus {

namespace {

// The short block names used in "dims:" specs, so that compose() names round-trip through load_topology.
std::string spec_name(BlockKind kind) {
  switch (kind) {
    case BlockKind::Ring:
      return "ring";
    case BlockKind::UniRing:
      return "uniring";
    case BlockKind::FullyConnected:
      return "fc";
    case BlockKind::Switch:
      return "switch";
    case BlockKind::Mesh:
      return "mesh";
  }
  return "?";
}

std::string dims_name(const std::vector<Dimension>& dimensions) {
  std::string name = "dims:";
  for (size_t d = 0; d < dimensions.size(); ++d) {
    if (d > 0)
      name += ',';
    name += fmt::format("{}{}", spec_name(dimensions[d].kind), dimensions[d].size);
  }
  return name;
}

// Validates the sizes before anything is allocated: a typo such as 4096x4096x4096 must fail fast.
uint32_t checked_npu_count(const std::string& name, const std::vector<Dimension>& dimensions) {
  if (dimensions.empty())
    throw Error(name, "dimensions", "a composition needs at least one dimension");
  uint64_t product = 1;
  for (size_t d = 0; d < dimensions.size(); ++d) {
    if (dimensions[d].size == 0)
      throw Error(name, fmt::format("dimension {}", d), "has 0 NPUs; must be >= 1");
    product *= dimensions[d].size;
    if (product > max_npus) {
      throw Error(name, "npus", fmt::format("more than {} NPUs; at most {} are supported", max_npus, max_npus));
    }
  }
  return static_cast<uint32_t>(product);
}

// Directed links one group of dimension `dim` contributes (see link_group), in 64 bits: a 31,200-NPU fully
// connected dimension alone has 973 million, which must be refused before building, not after gigabytes.
uint64_t links_per_group(const Dimension& dim) {
  const uint64_t n = dim.size;
  if (n < 2)
    return 0;
  switch (dim.kind) {
    case BlockKind::Ring:
      return n == 2 ? 2 : 2 * n;
    case BlockKind::UniRing:
      return n;
    case BlockKind::FullyConnected:
      return n * (n - 1);
    case BlockKind::Mesh:
      return 2 * (n - 1);
    case BlockKind::Switch:
      return 2 * n;
  }
  return 0;
}

// Refuses a composition whose link count passes TopologyBuilder::kMaxLinks, naming the dimension that does it;
// returns the count.
uint64_t checked_link_count(const std::string& name, const std::vector<Dimension>& dimensions, uint32_t npus) {
  uint64_t links = 0;
  for (size_t d = 0; d < dimensions.size(); ++d) {
    links += (npus / dimensions[d].size) * links_per_group(dimensions[d]);  // <= npus x size <= 2^48
    if (links > TopologyBuilder::kMaxLinks) {
      throw Error(name, "links",
                  fmt::format("dimension {} (size {}) brings the topology to {} links or more; at most {} are "
                              "supported (TopologyBuilder::kMaxLinks)",
                              d, dimensions[d].size, links, TopologyBuilder::kMaxLinks));
    }
  }
  return links;
}

// Links the NPUs of one group (NPUs that differ only in this dimension's coordinate), in coordinate order. `Out` is
// a TopologyBuilder, or a LinkMatcher comparing with an existing topology: one definition of the layout for both.
template <class Out>
void link_group(Out& builder, const Dimension& dim, const std::vector<NodeId>& members) {
  const size_t n = members.size();
  if (n < 2)
    return;  // a dimension of size 1 has nobody to talk to
  const Bandwidth bw = dim.bandwidth;
  const Time lat = dim.latency;
  switch (dim.kind) {
    case BlockKind::Ring:
      // With two members, +1 and -1 are the same neighbour: one duplex pair, not two parallel ones.
      for (size_t k = 0; k < (n == 2 ? 1 : n); ++k)
        builder.add_duplex(members[k], members[(k + 1) % n], bw, lat);
      break;
    case BlockKind::UniRing:
      for (size_t k = 0; k < n; ++k)
        builder.add_link(members[k], members[(k + 1) % n], bw, lat);
      break;
    case BlockKind::FullyConnected:
      for (size_t i = 0; i < n; ++i) {
        for (size_t j = i + 1; j < n; ++j)
          builder.add_duplex(members[i], members[j], bw, lat);
      }
      break;
    case BlockKind::Mesh:
      for (size_t k = 0; k + 1 < n; ++k)
        builder.add_duplex(members[k], members[k + 1], bw, lat);
      break;
    case BlockKind::Switch: {
      const NodeId hub = builder.add_switch();
      for (NodeId member : members)
        builder.add_duplex(member, hub, bw, lat);
      break;
    }
  }
}

// Visits every group of dimension `dim`: groups are enumerated by their coordinate-0 member, ascending.
template <class Out>
void link_dimension(Out& builder, uint32_t npus, uint32_t stride, const Dimension& dim) {
  const uint64_t span = uint64_t{stride} * dim.size;
  std::vector<NodeId> members(dim.size);
  for (uint64_t outer = 0; outer < npus; outer += span) {
    for (uint32_t inner = 0; inner < stride; ++inner) {
      for (uint32_t k = 0; k < dim.size; ++k)
        members[k] = NodeId{static_cast<uint32_t>(outer + inner + uint64_t{k} * stride)};
      link_group(builder, dim, members);
    }
  }
}

template <class Out>
void link_dimensions(Out& builder, uint32_t npus, const std::vector<Dimension>& dimensions) {
  uint32_t stride = 1;
  for (const Dimension& dim : dimensions) {
    link_dimension(builder, npus, stride, dim);
    stride *= dim.size;
  }
}

// Takes the place of a TopologyBuilder in link_dimensions and checks each switch and link against `t`'s, in order.
class LinkMatcher {
 public:
  explicit LinkMatcher(const Topology& t) : t_(t), next_node_(t.npu_count()) {}

  NodeId add_switch() { return NodeId{next_node_++}; }
  void add_link(NodeId src, NodeId dst, Bandwidth bandwidth, Time latency) {
    const LinkId l{next_link_++};
    same_ = same_ && l.value < t_.link_count() && t_.link_src(l) == src && t_.link_dst(l) == dst &&
            t_.link_bandwidth(l) == bandwidth && t_.link_latency(l) == latency;
  }
  void add_duplex(NodeId a, NodeId b, Bandwidth bandwidth, Time latency) {
    add_link(a, b, bandwidth, latency);
    add_link(b, a, bandwidth, latency);
  }
  bool all_matched() const { return same_ && next_link_ == t_.link_count() && next_node_ == t_.node_count(); }

 private:
  const Topology& t_;
  uint32_t next_node_;
  uint32_t next_link_ = 0;
  bool same_ = true;
};

Dimension make_dimension(BlockKind kind, uint32_t size, LinkParams link) {
  return Dimension{kind, size, link.bandwidth, link.latency};
}

}  // namespace

Topology compose(std::vector<Dimension> dimensions, std::string name, std::string source) {
  if (name.empty())
    name = dims_name(dimensions);
  if (source.empty())
    source = name;
  const uint32_t npus = checked_npu_count(source, dimensions);
  const uint64_t links = checked_link_count(source, dimensions, npus);
  TopologyBuilder builder(name, npus, source);
  builder.reserve_links(links);
  link_dimensions(builder, npus, dimensions);
  builder.set_dimensions(std::move(dimensions));
  return std::move(builder).seal();
}

bool follows_dimensions(const Topology& topology) {
  if (!topology.is_dimensional())
    return false;
  LinkMatcher matcher(topology);
  link_dimensions(matcher, topology.npu_count(), topology.dimensions());
  return matcher.all_matched();
}

Topology ring(uint32_t npus, LinkParams link) {
  return compose({make_dimension(BlockKind::Ring, npus, link)}, fmt::format("ring:{}", npus));
}

Topology uniring(uint32_t npus, LinkParams link) {
  return compose({make_dimension(BlockKind::UniRing, npus, link)}, fmt::format("uniring:{}", npus));
}

Topology fully_connected(uint32_t npus, LinkParams link) {
  return compose({make_dimension(BlockKind::FullyConnected, npus, link)}, fmt::format("fc:{}", npus));
}

Topology switch_star(uint32_t npus, LinkParams link) {
  return compose({make_dimension(BlockKind::Switch, npus, link)}, fmt::format("switch:{}", npus));
}

Topology mesh2d(uint32_t x, uint32_t y, LinkParams x_link, LinkParams y_link) {
  return compose({make_dimension(BlockKind::Mesh, x, x_link), make_dimension(BlockKind::Mesh, y, y_link)},
                 fmt::format("mesh2d:{}x{}", x, y));
}

Topology mesh3d(uint32_t x, uint32_t y, uint32_t z, LinkParams x_link, LinkParams y_link, LinkParams z_link) {
  return compose({make_dimension(BlockKind::Mesh, x, x_link), make_dimension(BlockKind::Mesh, y, y_link),
                  make_dimension(BlockKind::Mesh, z, z_link)},
                 fmt::format("mesh3d:{}x{}x{}", x, y, z));
}

Topology torus2d(uint32_t x, uint32_t y, LinkParams x_link, LinkParams y_link) {
  return compose({make_dimension(BlockKind::Ring, x, x_link), make_dimension(BlockKind::Ring, y, y_link)},
                 fmt::format("torus2d:{}x{}", x, y));
}

Topology torus3d(uint32_t x, uint32_t y, uint32_t z, LinkParams x_link, LinkParams y_link, LinkParams z_link) {
  return compose({make_dimension(BlockKind::Ring, x, x_link), make_dimension(BlockKind::Ring, y, y_link),
                  make_dimension(BlockKind::Ring, z, z_link)},
                 fmt::format("torus3d:{}x{}x{}", x, y, z));
}

Topology hypercube(uint32_t dimensions, const std::vector<LinkParams>& links) {
  const std::string name = fmt::format("hypercube:{}", dimensions);
  // Checked before building the dimension list: a huge D must not allocate a huge vector first.
  if (dimensions == 0 || uint64_t{1} << std::min<uint32_t>(dimensions, 63) > max_npus) {
    throw Error(name, "dimensions", fmt::format("is {}; must be between 1 and 24", dimensions));
  }
  CHORUS_ASSERT(links.size() == dimensions, "hypercube of {} dimensions given {} link parameters", dimensions,
                links.size());
  std::vector<Dimension> dims;
  for (const LinkParams& link : links)
    dims.push_back(make_dimension(BlockKind::Ring, 2, link));
  return compose(std::move(dims), name);
}

Topology dgx(uint32_t nodes, uint32_t gpus_per_node, LinkParams intra, LinkParams inter) {
  const std::string name = fmt::format("dgx:{}x{}", nodes, gpus_per_node);
  if (nodes == 0)
    throw Error(name, "nodes", "is 0; must be >= 1");
  if (gpus_per_node == 0)
    throw Error(name, "gpus_per_node", "is 0; must be >= 1");
  const uint64_t npus = uint64_t{nodes} * gpus_per_node;
  if (npus > max_npus)
    throw Error(name, "npus", fmt::format("is {}; at most {} are supported", npus, max_npus));
  TopologyBuilder builder(name, static_cast<uint32_t>(npus), name);
  std::vector<NodeId> nvswitch(nodes), rail(gpus_per_node);
  for (NodeId& s : nvswitch)
    s = builder.add_switch();
  for (NodeId& s : rail)
    s = builder.add_switch();
  // Intra-node links first, so that each GPU's first out-link is its NVSwitch uplink.
  for (uint32_t node = 0; node < nodes; ++node) {
    for (uint32_t g = 0; g < gpus_per_node; ++g) {
      builder.add_duplex(NodeId{node * gpus_per_node + g}, nvswitch[node], intra.bandwidth, intra.latency);
    }
  }
  for (uint32_t g = 0; g < gpus_per_node; ++g) {
    for (uint32_t node = 0; node < nodes; ++node) {
      builder.add_duplex(NodeId{node * gpus_per_node + g}, rail[g], inter.bandwidth, inter.latency);
    }
  }
  return std::move(builder).seal();
}

}  // namespace chorus
