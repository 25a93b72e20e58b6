// chorus.Topology: a network loaded from an ASTRA-sim YAML, a generator spec ("torus2d:16x16") or an edge list.
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/topology/load.hpp"

namespace chorus::python {

namespace {

Topology load(const std::string& network, const std::string& spec, const std::vector<std::string>& bandwidths,
              const std::vector<std::string>& latencies) {
  TopologyRequest request;
  request.network_file = network;
  request.spec = spec;
  for (const std::string& b : bandwidths)
    request.bandwidths.push_back(parse_bandwidth(b, Argument{"bandwidth"}));
  for (const std::string& l : latencies)
    request.latencies.push_back(parse_time(l, Argument{"latency"}));
  return load_topology(request);
}

}  // namespace

void register_topology(py::module_& m) {
  py::class_<Topology>(m, "Topology")
      .def_static("_load", &load, "Load a topology (use chorus.Topology.load).", py::arg("network"), py::arg("spec"),
                  py::arg("bandwidths"), py::arg("latencies"))
      .def_property_readonly("name", &Topology::name, "The topology's name (its spec or file).")
      .def_property_readonly("npu_count", &Topology::npu_count, "Number of NPUs.")
      .def_property_readonly("node_count", &Topology::node_count, "Number of nodes (NPUs and switches).")
      .def_property_readonly("link_count", &Topology::link_count, "Number of directed links.")
      .def("__repr__", [](const Topology& t) {
        return "<chorus.Topology " + t.name() + ": " + std::to_string(t.npu_count()) + " NPUs, " +
               std::to_string(t.node_count()) + " nodes, " + std::to_string(t.link_count()) + " links>";
      });
}

}  // namespace chorus::python
