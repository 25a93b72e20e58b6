// Cluster fabric generators (see cluster_generators.hpp). Sizes are checked before anything is allocated, so a
// typo such as k=100000 fails at once with the parameter named.
#include "chorus/topology/cluster_generators.hpp"

#include <fmt/format.h>

#include "chorus/core/error.hpp"

namespace chorus {

namespace {

uint32_t checked_npus(const std::string& name, uint64_t npus) {
  if (npus == 0)
    throw Error(name, "npus", "is 0; the fabric needs at least one NPU");
  if (npus > max_npus)
    throw Error(name, "npus", fmt::format("is {}; at most {} are supported", npus, max_npus));
  return static_cast<uint32_t>(npus);
}

void require(bool ok, const std::string& name, const char* field, uint64_t value, const char* rule) {
  if (!ok)
    throw Error(name, field, fmt::format("is {}; {}", value, rule));
}

}  // namespace

Topology fat_tree(FatTreeShape s, LinkParams host, LinkParams fabric) {
  const std::string name = fmt::format("fattree:k={},oversub={}", s.k, s.oversubscription);
  require(s.k >= 2 && s.k % 2 == 0 && s.k <= 1024, name, "k", s.k, "must be even, between 2 and 1024");
  require(s.oversubscription >= 1 && s.oversubscription <= 1024, name, "oversub", s.oversubscription,
          "must be between 1 and 1024");
  const uint32_t half = s.k / 2;
  const uint64_t hosts_per_edge = uint64_t{half} * s.oversubscription;
  const uint32_t npus = checked_npus(name, uint64_t{s.k} * half * hosts_per_edge);
  TopologyBuilder b(name, npus, name);
  std::vector<NodeId> edge(s.k * half), agg(s.k * half), core(half * half);
  for (NodeId& n : edge)
    n = b.add_switch();
  for (NodeId& n : agg)
    n = b.add_switch();
  for (NodeId& n : core)
    n = b.add_switch();
  for (uint32_t e = 0; e < edge.size(); ++e) {
    for (uint64_t h = 0; h < hosts_per_edge; ++h)
      b.add_duplex(NodeId{static_cast<uint32_t>(e * hosts_per_edge + h)}, edge[e], host.bandwidth, host.latency);
  }
  for (uint32_t pod = 0; pod < s.k; ++pod) {
    for (uint32_t e = 0; e < half; ++e) {
      for (uint32_t a = 0; a < half; ++a)
        b.add_duplex(edge[pod * half + e], agg[pod * half + a], fabric.bandwidth, fabric.latency);
    }
    for (uint32_t a = 0; a < half; ++a) {
      for (uint32_t c = 0; c < half; ++c)
        b.add_duplex(agg[pod * half + a], core[a * half + c], fabric.bandwidth, fabric.latency);
    }
  }
  return std::move(b).seal();
}

Topology rail_fabric(RailShape s, LinkParams nvlink, LinkParams nic) {
  const std::string name = fmt::format("rail:nodes={},gpus={},unit={},spines={},oversub={}", s.nodes, s.gpus, s.unit,
                                       s.spines, s.oversubscription);
  require(s.gpus >= 1 && s.gpus <= 1024, name, "gpus", s.gpus, "must be between 1 and 1024");
  require(s.unit >= 1 && s.nodes % s.unit == 0, name, "unit", s.unit, "must be >= 1 and divide nodes");
  require(s.spines >= 1 && s.spines <= 65536, name, "spines", s.spines, "must be between 1 and 65536");
  require(s.oversubscription >= 1 && s.oversubscription <= 1024, name, "oversub", s.oversubscription,
          "must be between 1 and 1024");
  const uint32_t npus = checked_npus(name, uint64_t{s.nodes} * s.gpus);
  const uint64_t leaves = uint64_t{s.nodes / s.unit} * s.gpus;
  if (leaves * s.spines * 2 + uint64_t{npus} * 4 >= TopologyBuilder::kMaxLinks)
    throw Error(name, "spines", fmt::format("is {}; leaves x spines gives more links than supported", s.spines));
  TopologyBuilder b(name, npus, name);
  std::vector<NodeId> nvswitch(s.nodes), leaf(leaves), spine(s.spines);
  for (NodeId& n : nvswitch)
    n = b.add_switch();
  for (NodeId& n : leaf)
    n = b.add_switch();
  for (NodeId& n : spine)
    n = b.add_switch();
  for (uint32_t node = 0; node < s.nodes; ++node) {
    for (uint32_t g = 0; g < s.gpus; ++g)
      b.add_duplex(NodeId{node * s.gpus + g}, nvswitch[node], nvlink.bandwidth, nvlink.latency);
  }
  for (uint32_t node = 0; node < s.nodes; ++node) {
    for (uint32_t g = 0; g < s.gpus; ++g)
      b.add_duplex(NodeId{node * s.gpus + g}, leaf[(node / s.unit) * s.gpus + g], nic.bandwidth, nic.latency);
  }
  // One link per leaf-spine pair stands for the parallel cables between them: its bandwidth is their sum.
  const Bandwidth uplink = Bandwidth::bytes_per_s(nic.bandwidth.bytes_per_second() * s.unit /
                                                  (static_cast<double>(s.spines) * s.oversubscription));
  for (NodeId l : leaf) {
    for (NodeId sp : spine)
      b.add_duplex(l, sp, uplink, nic.latency);
  }
  return std::move(b).seal();
}

Topology dragonfly(DragonflyShape s, LinkParams terminal, LinkParams local, LinkParams global) {
  const std::string name = fmt::format("dragonfly:p={},a={},h={}", s.p, s.a, s.h);
  require(s.p >= 1 && s.p <= 1024, name, "p", s.p, "must be between 1 and 1024");
  require(s.a >= 1 && s.a <= 1024, name, "a", s.a, "must be between 1 and 1024");
  require(s.h >= 1 && s.h <= 1024, name, "h", s.h, "must be between 1 and 1024");
  const uint32_t groups = s.a * s.h + 1;
  const uint32_t npus = checked_npus(name, uint64_t{groups} * s.a * s.p);
  TopologyBuilder b(name, npus, name);
  std::vector<NodeId> router(uint64_t{groups} * s.a);
  for (NodeId& n : router)
    n = b.add_switch();
  for (uint32_t r = 0; r < router.size(); ++r) {
    for (uint32_t t = 0; t < s.p; ++t)
      b.add_duplex(NodeId{r * s.p + t}, router[r], terminal.bandwidth, terminal.latency);
  }
  for (uint32_t g = 0; g < groups; ++g) {
    for (uint32_t i = 0; i < s.a; ++i) {
      for (uint32_t j = i + 1; j < s.a; ++j)
        b.add_duplex(router[g * s.a + i], router[g * s.a + j], local.bandwidth, local.latency);
    }
  }
  // Group G's port T - G - 1 meets group T's port g - (T - G) - 1: each pair once, added from the lower group.
  for (uint32_t from = 0; from < groups; ++from) {
    for (uint32_t to = from + 1; to < groups; ++to) {
      const uint32_t out_port = to - from - 1, in_port = groups - (to - from) - 1;
      b.add_duplex(router[from * s.a + out_port / s.h], router[to * s.a + in_port / s.h], global.bandwidth,
                   global.latency);
    }
  }
  return std::move(b).seal();
}

}  // namespace chorus
