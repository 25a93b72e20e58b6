// chorus.collective and chorus.bound: one collective simulated (the record of `chorus collective --json`, built by
// run_collective_request) and its lower bounds (the keys of `chorus bound --json`).
#include <fmt/format.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "chorus/collective/lower_bound.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/sim/collective_request.hpp"

namespace chorus::python {

CollectiveKind collective_kind(const std::string& text) {
  const std::optional<CollectiveKind> kind = parse_collective_kind(text);
  if (!kind) {
    throw Error("", "collective",
                fmt::format("unknown collective '{}'; expected all_reduce, reduce_scatter, all_gather, all_to_all, "
                            "broadcast or reduce",
                            text));
  }
  return *kind;
}

namespace {

double ns(Time t) {
  return static_cast<double>(t.picoseconds()) / 1e3;
}

struct CollectiveArgs {
  std::string model, system, algorithm, composition;
  std::optional<uint32_t> splits;
  uint32_t active_chunks = 1;
  std::string endpoint_delay, reduction_bandwidth, evaluation, link_stats;
};

py::object collective(const Topology& topology, const std::string& kind, const std::string& size,
                      const CollectiveArgs& a, const SynthOptions* synth) {
  CollectiveRequest q;
  q.kind = collective_kind(kind);
  q.size = parse_size(size, "size");
  q.model = a.model;
  q.system = a.system;
  q.algorithm = a.algorithm;
  q.composition = a.composition;
  q.splits = a.splits;
  q.active_chunks = a.active_chunks;
  q.endpoint_delay = a.endpoint_delay;
  q.reduction_bandwidth = a.reduction_bandwidth;
  q.evaluation = a.evaluation;
  q.collect_link_stats = !a.link_stats.empty();
  q.flag_prefix = "";
  if (synth)
    q.synth = *synth;
  CollectiveOutcome outcome;
  {
    py::gil_scoped_release release;
    outcome = run_collective_request(topology, q);
  }
  if (!a.link_stats.empty()) {
    if (!outcome.links)
      throw Error("", "link_stats", "per-link statistics need model='aware' or 'flow'");
    write_link_stats_csv(a.link_stats, topology, *outcome.links, outcome.time);
  }
  return to_python(outcome.record);
}

py::object bound(const Topology& topology, const std::string& kind_text, const std::string& size_text,
                 const std::string& sinks, uint32_t root, const std::string& information_bound) {
  const CollectiveKind kind = collective_kind(kind_text);
  const Bytes size = parse_size(size_text, "size");
  BoundOptions options;
  const std::optional<BoundMethod> method = parse_bound_method(sinks);
  if (!method)
    throw Error("", "sinks", fmt::format("unknown value '{}'; expected auto, all, one, brute or symmetric", sinks));
  options.method = *method;
  options.root = NodeId{root};
  if (information_bound != "on" && information_bound != "off" && information_bound != "auto")
    throw Error("", "information_bound", fmt::format("is '{}'; expected auto, on or off", information_bound));
  // As `chorus bound`: the All-Reduce information bound costs 2(N-1) max-flows, skipped on large topologies.
  options.information_bound =
      information_bound == "on" || (information_bound == "auto" && topology.npu_count() <= 1024);
  LowerBound b;
  {
    py::gil_scoped_release release;
    b = lower_bound(topology, Collective{kind, size, topology.npu_count()}, options);
  }
  nlohmann::json j;
  j["collective"] = to_string(b.collective);
  j["topology"] = topology.name();
  j["size_bytes"] = b.size.count();
  j["npus"] = b.npus;
  j["method"] = to_string(b.method);
  j["bound_ns"] = ns(b.bound);
  j["bandwidth_bound_ns"] = ns(b.bandwidth_bound);
  j["latency_bound_ns"] = ns(b.latency_bound);
  j["worst_cut_npus"] = b.worst_cut_npus;
  j["worst_cut_nodes"] = b.worst_cut.size();
  if (b.all_gather)
    j["all_gather_bandwidth_bound_ns"] = ns(b.all_gather->time);
  if (b.reduce_scatter)
    j["reduce_scatter_bandwidth_bound_ns"] = ns(b.reduce_scatter->time);
  j["information_bound_ns"] = b.information_bound ? nlohmann::json(ns(*b.information_bound)) : nullptr;
  j["max_flows"] = b.max_flows;
  return to_python(j);
}

}  // namespace

void register_collectives(py::module_& m) {
  m.def(
      "_collective",
      [](const Topology& topology, const std::string& kind, const std::string& size, const std::string& model,
         const std::string& system, const std::string& algorithm, const std::string& composition,
         std::optional<uint32_t> splits, uint32_t active_chunks, const std::string& endpoint_delay,
         const std::string& reduction_bandwidth, const std::string& evaluation, const std::string& link_stats,
         std::optional<uint32_t> chunks, uint64_t seed, const std::string& priority, const std::vector<uint32_t>& npus,
         const std::vector<std::pair<uint32_t, uint32_t>>& fail_links, const std::vector<uint32_t>& fail_npus,
         uint32_t root) {
        const CollectiveArgs a{model,         system,         algorithm,           composition, splits,
                               active_chunks, endpoint_delay, reduction_bandwidth, evaluation,  link_stats};
        if (algorithm != "synth")
          return collective(topology, kind, size, a, nullptr);
        const SynthOptions s = synth_options(collective_kind(kind), parse_size(size, "size"), chunks, seed, priority,
                                             npus, fail_links, fail_npus, root);
        return collective(topology, kind, size, a, &s);
      },
      "Run one collective (use chorus.collective).");
  m.def("_bound", &bound, "Lower bounds of a collective (use chorus.bound).");
}

}  // namespace chorus::python
