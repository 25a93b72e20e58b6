// Orbits of NPU 0's stabiliser on composed dimensional topologies, and the Dinkelbach cut search on the quotient
// graph (see symmetric_bound.hpp for why both are exact).
#include "chorus/collective/symmetric_bound.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "chorus/collective/max_flow.hpp"
#include "chorus/core/error.hpp"
#include "chorus/topology/cluster_generators.hpp"
#include "chorus/topology/generators.hpp"

namespace chorus {

namespace {

// Orbit of coordinate c under the automorphisms of one dimension's block that fix coordinate 0.
uint32_t coordinate_class(const Dimension& dim, uint32_t c) {
  switch (dim.kind) {
    case BlockKind::Ring:
    case BlockKind::Mesh:                // only sizes <= 2 get here, where a mesh is a ring
      return std::min(c, dim.size - c);  // c = 0 gives 0
    case BlockKind::UniRing:
      return c;
    case BlockKind::FullyConnected:
    case BlockKind::Switch:
      return c == 0 ? 0 : 1;
  }
  return c;
}

uint32_t class_count(const Dimension& dim) {
  switch (dim.kind) {
    case BlockKind::Ring:
    case BlockKind::Mesh:
      return dim.size / 2 + 1;
    case BlockKind::UniRing:
      return dim.size;
    case BlockKind::FullyConnected:
    case BlockKind::Switch:
      return dim.size > 1 ? 2 : 1;
  }
  return dim.size;
}

// True if `topology` has exactly the nodes and links of `expected` (same ids, same order), so that symmetries
// derived from how `expected` was generated are automorphisms of this graph and not just of its description.
bool same_links(const Topology& topology, const Topology& expected) {
  if (expected.node_count() != topology.node_count() || expected.npu_count() != topology.npu_count() ||
      expected.link_count() != topology.link_count())
    return false;
  for (uint32_t l = 0; l < topology.link_count(); ++l) {
    const LinkId link{l};
    if (expected.link_src(link) != topology.link_src(link) || expected.link_dst(link) != topology.link_dst(link) ||
        expected.link_bandwidth(link) != topology.link_bandwidth(link) ||
        expected.link_latency(link) != topology.link_latency(link)) {
      return false;
    }
  }
  return true;
}

void count_npus(NpuOrbits& orbits, uint32_t npus) {
  orbits.npus.assign(orbits.classes, 0);
  for (uint32_t n = 0; n < npus; ++n)
    ++orbits.npus[orbits.class_of[n]];
}

// A fat-tree from fat_tree() (cluster_generators.hpp), recognised by its name and checked link by link. Host 0's
// stabiliser permutes the other hosts of its edge switch, the other edge switches of its pod, the other pods, the
// aggregation index (with the matching core groups) and the cores of a group; its orbits: host 0 / its edge's
// other hosts / its pod's other hosts / the rest; edge 0 / pod 0's other edges / other edges; pod 0's aggregations
// / other aggregations; the cores.
std::optional<NpuOrbits> fat_tree_orbits(const Topology& topology) {
  unsigned k = 0, oversub = 0;
  char tail = 0;
  if (std::sscanf(topology.name().c_str(), "fattree:k=%u,oversub=%u%c", &k, &oversub, &tail) != 2 ||
      topology.link_count() == 0) {
    return std::nullopt;
  }
  const uint32_t npus = topology.npu_count();
  if (k < 2 || k % 2 != 0 || uint64_t{k} * k * k / 4 * oversub != npus)
    return std::nullopt;  // checked before fat_tree() allocates anything
  const LinkId host_link{0}, fabric_link{std::min(2 * npus, topology.link_count() - 1)};
  std::optional<Topology> expected;
  try {
    expected = fat_tree({k, oversub}, {topology.link_bandwidth(host_link), topology.link_latency(host_link)},
                        {topology.link_bandwidth(fabric_link), topology.link_latency(fabric_link)});
  } catch (const Error&) {
    return std::nullopt;
  }
  if (!same_links(topology, *expected))
    return std::nullopt;
  const uint32_t half = k / 2, hosts_per_edge = half * oversub, edges = k * half;
  NpuOrbits orbits;
  orbits.classes = 10;
  orbits.class_of.resize(topology.node_count());
  for (uint32_t h = 0; h < npus; ++h) {
    const uint32_t edge = h / hosts_per_edge;
    orbits.class_of[h] = h == 0 ? 0 : edge == 0 ? 1 : edge < half ? 2 : 3;
  }
  for (uint32_t e = 0; e < edges; ++e)
    orbits.class_of[npus + e] = e == 0 ? 4 : e < half ? 5 : 6;
  for (uint32_t a = 0; a < edges; ++a)
    orbits.class_of[npus + edges + a] = a < half ? 7 : 8;
  for (uint32_t c = npus + 2 * edges; c < topology.node_count(); ++c)
    orbits.class_of[c] = 9;
  count_npus(orbits, npus);
  return orbits;
}

std::optional<NpuOrbits> dimensional_orbits(const Topology& topology) {
  if (!topology.is_dimensional())
    return std::nullopt;
  const std::vector<Dimension>& dims = topology.dimensions();
  for (const Dimension& dim : dims) {
    if (dim.kind == BlockKind::Mesh && dim.size > 2)
      return std::nullopt;  // a line is not vertex-transitive
  }
  if (!follows_dimensions(topology))
    return std::nullopt;
  std::vector<uint32_t> count(dims.size());
  for (size_t d = 0; d < dims.size(); ++d)
    count[d] = class_count(dims[d]);
  // Mixed-radix class number of an NPU over the dimensions, skipping dimension `skip` (switch classes).
  auto npu_class = [&](NodeId npu, size_t skip) {
    uint64_t id = 0, radix = 1;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (d == skip)
        continue;
      id += coordinate_class(dims[d], topology.coordinate(npu, d)) * radix;
      radix *= count[d];
    }
    return std::pair(id, radix);
  };
  NpuOrbits orbits;
  orbits.class_of.resize(topology.node_count());
  const uint32_t npus = topology.npu_count();
  uint64_t classes = npu_class(NodeId{0}, dims.size()).second;
  for (uint32_t n = 0; n < npus; ++n)
    orbits.class_of[n] = static_cast<uint32_t>(npu_class(NodeId{n}, dims.size()).first);
  // compose() adds one switch per group of every Switch dimension of size >= 2, dimension by dimension.
  uint32_t next_switch = npus;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d].kind != BlockKind::Switch || dims[d].size < 2)
      continue;
    const uint64_t offset = classes;
    for (uint32_t g = 0; g < npus / dims[d].size; ++g, ++next_switch) {
      const NodeId member = topology.link_dst(topology.out_links(NodeId{next_switch})[0]);
      const auto [id, radix] = npu_class(member, d);
      orbits.class_of[next_switch] = static_cast<uint32_t>(offset + id);
      if (g == 0)
        classes += radix;
    }
  }
  orbits.classes = static_cast<uint32_t>(classes);
  count_npus(orbits, npus);
  return orbits;
}

}  // namespace

std::optional<NpuOrbits> npu_orbits(const Topology& topology) {
  if (std::optional<NpuOrbits> orbits = dimensional_orbits(topology))
    return orbits;
  return fat_tree_orbits(topology);
}

QuotientCutSearch::QuotientCutSearch(const NpuOrbits& orbits, std::span<const uint32_t> src,
                                     std::span<const uint32_t> dst, std::span<const double> capacity, double epsilon)
    : orbits_(orbits), epsilon_(epsilon) {
  // Parallel quotient arcs summed: sort by (from, to), skipping arcs inside one orbit (never cut by a union).
  std::vector<std::pair<uint64_t, double>> keyed;
  keyed.reserve(src.size());
  for (size_t a = 0; a < src.size(); ++a) {
    const uint32_t from = orbits.class_of[src[a]], to = orbits.class_of[dst[a]];
    if (from != to)
      keyed.emplace_back(uint64_t{from} << 32 | to, capacity[a]);
  }
  std::sort(keyed.begin(), keyed.end());
  for (const auto& [key, cap] : keyed) {
    const auto from = static_cast<uint32_t>(key >> 32), to = static_cast<uint32_t>(key);
    if (!arcs_.empty() && arcs_.back().from == from && arcs_.back().to == to)
      arcs_.back().capacity += cap;
    else
      arcs_.push_back(Arc{from, to, cap});
  }
  // Orbit sums grow with the network; normalised again so that the solver's epsilon keeps its meaning.
  for (const Arc& arc : arcs_)
    scale_ = std::max(scale_, arc.capacity);
  for (Arc& arc : arcs_)
    arc.capacity /= scale_;
}

std::optional<std::vector<char>> QuotientCutSearch::improve(double lambda, double keep) {
  const uint32_t source = orbits_.classes, sink = orbits_.class_of[0];
  std::vector<FlowArc> arcs;
  arcs.reserve(arcs_.size() + orbits_.classes);
  uint64_t npus = 0;
  for (const Arc& arc : arcs_)
    arcs.push_back(FlowArc{arc.from, arc.to, arc.capacity});
  for (uint32_t c = 0; c < orbits_.classes; ++c) {
    npus += orbits_.npus[c];
    if (orbits_.npus[c] > 0)
      arcs.push_back(FlowArc{source, c, lambda * orbits_.npus[c] / scale_});
  }
  MaxFlow flow(orbits_.classes + 1, arcs, epsilon_);
  const double value = flow.run(source, sink) * scale_;
  if (value >= lambda * static_cast<double>(npus) * keep)
    return std::nullopt;
  std::vector<char> side = flow.source_side();
  side.resize(orbits_.classes);
  return side;
}

}  // namespace chorus
