// Shared topology options (see topology_options.hpp).
#include "topology_options.hpp"

#include <sstream>

#include <fmt/format.h>

#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/machine/machine.hpp"
#include "chorus/topology/load.hpp"
#include "chorus/topology/machine_topology.hpp"

namespace chorus::cli {

void add_topology_options(CLI::App& command, TopologyOptions& options) {
  command.add_option("--network", options.network, "ASTRA-sim network YAML (topology/npus_count/bandwidth/latency)");
  command.add_option("--topology", options.topology,
                     "generator spec (ring:N, uniring:N, fc:N, switch:N, mesh2d:XxY, mesh3d:XxYxZ, torus2d:XxY, "
                     "torus3d:XxYxZ, hypercube:D, dgx:NODESxGPUS, dims:ring8,fc8,switch8, fattree:k=K,oversub=O, "
                     "rail:nodes=N,gpus=G,unit=U,spines=S,oversub=O, dragonfly:p=P,a=A,h=H; docs/network-models.md) "
                     "or an edge-list file");
  command.add_option("--bandwidth", options.bandwidth,
                     "link bandwidth per direction, e.g. 50GB/s or 50GiB/s; a list per dimension (a datasheet's "
                     "\"NVLink 900 GB/s\" counts both directions: 450GB/s; `chorus machines` lists per-direction "
                     "values)");
  command.add_option("--latency", options.latency, "link latency, e.g. 500ns or 0.5us; a list per dimension");
  command.add_option("--machine", options.machine,
                     "a machine preset (chorus machines: dgx-h100, mi300x, gb200-nvl72, ...): its GPUs on their "
                     "scale-up fabric and one NIC rail per GPU, bandwidths from the machine model");
  command.add_option("--nodes", options.nodes, "with --machine: how many nodes (default 1)");
}

namespace {

template <typename T, typename Parse>
std::vector<T> parse_list(const std::string& text, const std::string& flag, Parse parse) {
  std::vector<T> out;
  if (text.empty())
    return out;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ','))
    out.push_back(parse(item, flag));
  return out;
}

}  // namespace

Topology make_topology(const TopologyOptions& options, uint64_t max_npus, const std::string& max_npus_name) {
  if (!options.machine.empty()) {
    if (!options.network.empty() || !options.topology.empty())
      throw Error("", "--machine", "give one of --machine NAME, --network FILE.yml and --topology SPEC|FILE");
    if (!options.bandwidth.empty())
      throw Error("", "--bandwidth", "not allowed with --machine; the machine model sets the bandwidths");
    const machine::Machine& m = machine::machine(options.machine, "machine");
    if (static_cast<uint64_t>(m.gpus_per_node) * options.nodes > max_npus) {
      throw Error("", "--nodes",
                  fmt::format("is {}: {} GPUs; at most {} ({})", options.nodes,
                              static_cast<uint64_t>(m.gpus_per_node) * options.nodes, max_npus, max_npus_name));
    }
    return machine_topology(m, options.nodes, parse_list<Time>(options.latency, "--latency", parse_time));
  }
  if (options.nodes != 1)
    throw Error("", "--nodes", "applies only with --machine");
  if (options.network.empty() == options.topology.empty()) {
    throw Error("", "--network/--topology",
                "give exactly one of --network FILE.yml, --topology SPEC|FILE and --machine NAME");
  }
  TopologyRequest request;
  request.network_file = options.network;
  request.spec = options.topology;
  request.bandwidths = parse_list<Bandwidth>(options.bandwidth, "--bandwidth", parse_bandwidth);
  request.latencies = parse_list<Time>(options.latency, "--latency", parse_time);
  request.max_npus = max_npus;
  request.max_npus_name = max_npus_name;
  if (!options.network.empty() && (!request.bandwidths.empty() || !request.latencies.empty())) {
    throw Error("", "--bandwidth/--latency", "not allowed with --network; the network file sets them");
  }
  return load_topology(request);
}

}  // namespace chorus::cli
