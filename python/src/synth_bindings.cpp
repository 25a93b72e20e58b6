// chorus.synth: a synthesized collective kept on the C++ side, so its MSCCL XML and its certificate are computed
// only when Python asks for them. The record has the keys of `chorus synth --json`.
#include <memory>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "chorus/collective/lower_bound.hpp"
#include "chorus/core/error.hpp"
#include "chorus/core/parse_units.hpp"
#include "chorus/sim/synth_msccl.hpp"
#include "chorus/synth/dimensional.hpp"
#include "chorus/synth/msccl_xml.hpp"
#include "chorus/synth/verify.hpp"

namespace chorus::python {

SynthOptions synth_options(CollectiveKind kind, Bytes size, std::optional<uint32_t> chunks, uint64_t seed,
                           const std::string& priority, const std::vector<uint32_t>& npus,
                           const std::vector<std::pair<uint32_t, uint32_t>>& fail_links,
                           const std::vector<uint32_t>& fail_npus, uint32_t root) {
  SynthOptions o;
  o.kind = kind;
  o.size = size;
  o.seed = seed;
  o.root = root;
  if (chunks) {
    if (*chunks == 0 || *chunks > 4096)
      throw Error("", Argument{"chunks"}, fmt::format("is {}; must be 1 to 4096 or None (chorus chooses)", *chunks));
    o.chunks_per_npu = *chunks;
  }
  if (priority != "auto") {
    for (ChunkPriority p :
         {ChunkPriority::Unique, ChunkPriority::Fresh, ChunkPriority::Scarce, ChunkPriority::Random}) {
      if (priority == to_string(p))
        o.priority = p;
    }
    if (!o.priority) {
      throw Error("", Argument{"priority"},
                  fmt::format("unknown priority '{}'; expected auto, unique, fresh, scarce or random", priority));
    }
  }
  o.graph.group = npus;
  o.graph.failed_links = fail_links;
  o.graph.failed_npus = fail_npus;
  return o;
}

namespace {

double ns(Time t) {
  return static_cast<double>(t.picoseconds()) / 1e3;
}

// One synthesis and the topology it was made for (shared: the Python Topology object may go away first).
struct SynthRun {
  std::shared_ptr<const Topology> topology;
  SynthOptions options;
  SynthResult result;
  SynthBound bound;
};

SynthRun run(const Topology& topology, const SynthOptions& options) {
  SynthRun r{std::make_shared<const Topology>(topology), options, {}, {}};
  if (dimensional_synthesis_needed(topology, options)) {
    throw Error("", Argument{"topology"},
                fmt::format("{} needs dimension-wise synthesis, which the Python module does not offer; use "
                            "`chorus synth --dimensional`",
                            topology.name()));
  }
  py::gil_scoped_release release;
  r.result = synthesize(*r.topology, options);
  r.bound = synth_lower_bound(*r.topology, options);
  return r;
}

nlohmann::json record(const SynthRun& run) {
  const SynthResult& r = run.result;
  nlohmann::json j;
  j["collective"] = to_string(r.kind);
  j["topology"] = run.topology->name();
  j["npus"] = r.members.size();
  j["size_bytes"] = r.size.count();
  j["time_ns"] = ns(r.time);
  j["bound_ns"] = ns(run.bound.bound);
  j["ratio"] = run.bound.bound > Time::zero()
                   ? static_cast<double>(r.time.picoseconds()) / static_cast<double>(run.bound.bound.picoseconds())
                   : 0.0;
  j["physically_feasible"] = physically_feasible(r.time, run.bound.bound);
  j["synthesis_s"] = r.synthesis_s;
  j["bound_s"] = run.bound.seconds;
  j["transfers"] = r.schedule.transfer_count();
  j["chunks_per_npu"] = r.chunks_per_npu;
  j["chunk_bytes"] = r.chunk_bytes.count();
  j["priority"] = to_string(r.priority);
  j["direct"] = r.direct;
  j["rails"] = r.rails;
  j["seed"] = run.options.seed;
  j["events"] = r.events;
  nlohmann::json tried = nlohmann::json::array();
  for (const SynthAttempt& a : r.attempts) {
    tried.push_back({{"chunks_per_npu", a.chunks_per_npu},
                     {"priority", to_string(a.priority)},
                     {"model_bound_ns", ns(a.model_bound)},
                     {"time_ns", a.time == Time::max() ? nlohmann::json(nullptr) : nlohmann::json(ns(a.time))},
                     {"skipped", a.skipped},
                     {"rails", a.rails}});
  }
  j["attempts"] = tried;
  return j;
}

}  // namespace

void register_synth(py::module_& m) {
  py::class_<SynthRun>(m, "_SynthRun")
      .def(
          "record", [](const SynthRun& r) { return to_python(record(r)); }, "The record of `chorus synth --json`.")
      .def(
          "msccl_xml",
          [](const SynthRun& r, const std::string& name) {
            py::gil_scoped_release release;
            return msccl_xml(r.result, name, choose_synth_msccl_layout(*r.topology, r.result).options);
          },
          "The algorithm as MSCCL XML text (through switches, the faster layout of `chorus synth --out`).")
      .def(
          "verify",
          [](const SynthRun& r) {
            SynthCheck check;
            {
              py::gil_scoped_release release;
              check = check_synthesis(*r.topology, r.result);
            }
            py::dict d;
            d["verified"] = check.ok;
            d["aware_ns"] = ns(check.aware_time);
            d["verify_error"] = check.ok ? py::object(py::none()) : py::object(py::str(check.problem));
            return d;
          },
          "Check the schedule: a dict with verified, aware_ns, verify_error.");
  m.def(
      "_synth",
      [](const Topology& topology, const std::string& kind, const std::string& size, std::optional<uint32_t> chunks,
         uint64_t seed, const std::string& priority, const std::vector<uint32_t>& npus,
         const std::vector<std::pair<uint32_t, uint32_t>>& fail_links, const std::vector<uint32_t>& fail_npus,
         uint32_t root) {
        return run(topology, synth_options(collective_kind_argument(kind), parse_size(size, Argument{"size"}), chunks,
                                           seed, priority, npus, fail_links, fail_npus, root));
      },
      "Synthesize a collective (use chorus.synth).");
}

}  // namespace chorus::python
