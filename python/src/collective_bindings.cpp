// chorus.collective and chorus.bound: one collective simulated (the record of `chorus collective --json`, built by
// run_collective_request) and its lower bounds (the keys of `chorus bound --json`).
#include <fmt/format.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "chorus/collective/bound_request.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/sim/collective_request.hpp"

namespace chorus::python {

namespace {

// `q` holds the keyword arguments as given (the same CollectiveRequest the CLI parses its options into);
// `link_stats` is the CSV path, "" for none.
py::object collective(const Topology& topology, CollectiveRequest q, const std::string& link_stats) {
  q.collect_link_stats = !link_stats.empty();
  CollectiveOutcome outcome;
  {
    py::gil_scoped_release release;
    outcome = run_collective_request(topology, q);
  }
  if (outcome.links)
    write_link_stats_csv(link_stats, topology, *outcome.links, outcome.summary.time);
  return to_python(to_json(outcome.summary));
}

py::object bound(const Topology& topology, const std::string& kind_text, const std::string& size_text,
                 const std::string& sinks, uint32_t root, const std::string& information_bound) {
  const CollectiveKind kind = collective_kind_argument(kind_text);
  const Bytes size = parse_size(size_text, Argument{"size"});
  const BoundOptions options = bound_options(sinks, root, information_bound, topology.npu_count());
  LowerBound b;
  {
    py::gil_scoped_release release;
    b = lower_bound(topology, Collective{kind, size, topology.npu_count()}, options);
  }
  return to_python(bound_record(b, topology.name()));
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
        CollectiveRequest q;
        q.kind = collective_kind_argument(kind);
        q.size = parse_size(size, Argument{"size"});
        q.model = model;
        q.system = system;
        q.algorithm = algorithm;
        q.composition = composition;
        q.splits = splits;
        q.active_chunks = active_chunks;
        q.endpoint_delay = endpoint_delay;
        q.reduction_bandwidth = reduction_bandwidth;
        q.evaluation = evaluation;
        if (algorithm == "synth")
          q.synth = synth_options(q.kind, q.size, chunks, seed, priority, npus, fail_links, fail_npus, root);
        return collective(topology, std::move(q), link_stats);
      },
      "Run one collective (use chorus.collective).");
  m.def("_bound", &bound, "Lower bounds of a collective (use chorus.bound).");
}

}  // namespace chorus::python
