// Generators of the usual synthetic topologies, each returning a sealed Topology.
//
// - Every link of a dimension gets that dimension's LinkParams (bandwidth, latency); a full-duplex
//   connection is two directed links.
// - NPU id = mixed-radix address, dimension 0 fastest (as in ASTRA-sim): in torus2d(4, 4, ...) NPU 6 sits at
//   x = 2, y = 1. All generators except dgx() record their dimensions (TopologyBuilder::set_dimensions) so
//   that hierarchical algorithms can use them.
// - A ring or torus dimension of size 2 is a single full-duplex pair (never two parallel links); a
//   dimension of size 1 has no links.
// - Switch nodes are numbered after the NPUs, in the order the generator creates them.
// - Bad sizes (0, more than max_npus NPUs in all) throw chorus::Error naming the topology.
//
//   Topology t = torus2d(16, 16, LinkParams{Bandwidth::gb_per_s(50), Time::ns(500)},
//                        LinkParams{Bandwidth::gb_per_s(25), Time::ns(500)});  // named "torus2d:16x16"
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chorus/core/units.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

// The largest NPU count any generator or loader accepts (2^24): far beyond today's clusters, and it keeps
// every node and link id comfortably inside 32 bits.
inline constexpr uint64_t max_npus = uint64_t{1} << 24;

struct LinkParams {
  Bandwidth bandwidth;
  Time latency;
};

// One-dimensional topologies, named "ring:N", "uniring:N", "fc:N", "switch:N".
Topology ring(uint32_t npus, LinkParams link);
Topology uniring(uint32_t npus, LinkParams link);
Topology fully_connected(uint32_t npus, LinkParams link);
// One switch node (id `npus`) with a full-duplex link to every NPU. ("switch" is a C++ keyword.)
Topology switch_star(uint32_t npus, LinkParams link);

// Grids without ("mesh") and with ("torus") wrap-around; one LinkParams per dimension.
Topology mesh2d(uint32_t x, uint32_t y, LinkParams x_link, LinkParams y_link);
Topology mesh3d(uint32_t x, uint32_t y, uint32_t z, LinkParams x_link, LinkParams y_link, LinkParams z_link);
Topology torus2d(uint32_t x, uint32_t y, LinkParams x_link, LinkParams y_link);
Topology torus3d(uint32_t x, uint32_t y, uint32_t z, LinkParams x_link, LinkParams y_link, LinkParams z_link);

// `dimensions` dimensions of size 2 (2^dimensions NPUs); `links` holds one entry per dimension.
Topology hypercube(uint32_t dimensions, const std::vector<LinkParams>& links);

// ASTRA-sim-style multi-dimensional composition, dimension 0 first. Per dimension and per group of NPUs
// that differ only in that dimension's coordinate: Ring links coordinates +-1 mod size, UniRing c -> c+1
// mod size, FullyConnected every pair, Mesh +-1 without wrap-around, Switch adds one switch node with a
// full-duplex link to every member. An empty `name` becomes "dims:ring8,fc8,switch8"-style. Errors name
// `source` (the input file, when there is one), else the name.
Topology compose(std::vector<Dimension> dimensions, std::string name = "", std::string source = "");

// Whether `topology`'s switches and links are exactly those compose() builds from its declared dimensions, in the
// same order (so symmetries of the composition are automorphisms of the graph). Compared link by link as the
// composition is generated, without building it.
bool follows_dimensions(const Topology& topology);

// DGX-like cluster of `nodes` x `gpus_per_node` GPUs (GPU id = node * gpus_per_node + g). Each node's GPUs
// have full-duplex `intra` links to the node's NVSwitch-style switch (switch ids npus .. npus+nodes-1);
// GPU g of every node has a full-duplex `inter` link (its NIC rail) to rail switch g (ids npus+nodes ..).
// Named "dgx:NODESxGPUS"; it records no dimensions (the rails do not form an ASTRA-sim dimension).
Topology dgx(uint32_t nodes, uint32_t gpus_per_node, LinkParams intra, LinkParams inter);

}  // namespace chorus
