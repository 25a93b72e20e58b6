// One entry point to get a Topology from what a user names on the command line or in a config:
// an ASTRA-sim network YAML, a generator spec ("torus2d:16x16"), or an edge-list file.
//
//   TopologyRequest r;
//   r.spec = "torus2d:16x16";
//   r.bandwidths = {Bandwidth::gb_per_s(50)};
//   r.latencies = {Time::ns(500)};
//   Topology t = load_topology(r);
//
// Generator specs (bandwidth/latency: one value for every dimension, or one per dimension):
//   ring:N  uniring:N  fc:N  switch:N  mesh2d:XxY  mesh3d:XxYxZ  torus2d:XxY  torus3d:XxYxZ  hypercube:D
//   dgx:NODESxGPUS (G GPUs per node behind an NVSwitch-style switch + one NIC rail per GPU to a leaf switch;
//                   bandwidths/latencies = {intra-node, inter-node})
//   dims:ring8,fc8,switch8 (an ASTRA-sim-style multi-dimensional composition, dimension 0 first)
// A spec that is not a generator name is a file: NCCL's topology XML when it ends in .xml (nccl_topo.hpp), else an
// edge list (edge_list.hpp).
#pragma once

#include <string>
#include <vector>

#include "chorus/core/limits.hpp"
#include "chorus/core/units.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

struct TopologyRequest {
  std::string network_file;  // ASTRA-sim network YAML; excludes `spec`
  std::string spec;          // generator spec or edge-list path
  std::vector<Bandwidth> bandwidths;
  std::vector<Time> latencies;
  // A command whose computation grows too fast for the general limit sets a lower one (e.g. `bound`), named in
  // the error; generator specs are checked against it before anything is built.
  uint64_t max_npus = limits::kMaxNpus;
  std::string max_npus_name = "kMaxNpus";
};

// Throws chorus::Error naming the file and field, or the Argument (network, topology, bandwidth, latency), on any
// inconsistency.
Topology load_topology(const TopologyRequest& request);

}  // namespace chorus
