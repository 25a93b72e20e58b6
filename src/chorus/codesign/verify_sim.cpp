// The top designs through the simulator engine (see verify_sim.hpp).
#include "chorus/codesign/verify_sim.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "chorus/codesign/dimension_tables.hpp"
#include "chorus/codesign/network_space.hpp"
#include "chorus/core/error.hpp"
#include "chorus/llm_engine/planned_spec.hpp"
#include "chorus/llm_engine/planner_network.hpp"
#include "chorus/llm_engine/sim_engine.hpp"

namespace chorus::codesign {
namespace {

// What the simulation of a network without NCCL passed through leaves out: its nccl and synth dimensions run as the
// simulator's own collectives on switches of the dimension's bandwidth.
std::string not_carried(const NetworkTemplate& t, const NetworkPoint& p) {
  std::string dims;
  for (size_t i = 0; i < p.dims.size(); ++i) {
    const Algorithm a = p.dims[i].algorithm;
    if (a == Algorithm::kNccl || a == Algorithm::kSynth)
      dims += fmt::format("{}{} {}", dims.empty() ? "" : ", ", t.dimensions[i].name, to_string(a));
  }
  return dims.empty() ? ""
                      : dims +
                            " not passed through (NCCL only for two nccl dimensions, synthesized schedules only when "
                            "every dimension is synth)";
}

bool every_dimension_synth(const NetworkPoint& p) {
  return !p.dims.empty() &&
         std::all_of(p.dims.begin(), p.dims.end(), [](const auto& d) { return d.algorithm == Algorithm::kSynth; });
}

}  // namespace

std::vector<SimCheck> verify_designs(const llm::Application& app, const llm::System& machine, const NetworkTemplate& t,
                                     const CodesignResult& result, size_t count, const std::string& model_name,
                                     const machine::Machine* nccl_machine) {
  std::vector<SimCheck> checks;
  for (size_t i = 0; i < std::min(count, result.top.size()); ++i) {
    const Design& d = result.top[i];
    SimCheck check{d.time_s, 0, "", "simulated", ""};
    const std::string name = fmt::format("design #{}", i + 1);
    try {
      const llm::System sys = network_system(machine, t, d.network, result.tables.get());
      const LlmTrainingSpec spec = planned_training_spec(app, sys, d.execution, d.stats, name, model_name);
      const Topology topology = planner_topology(sys, d.execution.num_procs, name);
      const std::optional<NcclNetwork> nccl = nccl_network(nccl_machine, d.network);
      SimEngineOptions options;
      if (nccl) {
        options.nccl = nccl::NcclContext{&nccl->machine, nccl->scales};
        check.collectives = "nccl";
      } else if (every_dimension_synth(d.network)) {
        // Each group's collective synthesized on the design's network (llm run --engine sim --collectives synth).
        options.synthesize = true;
        check.collectives = "synth";
      } else {
        check.note = not_carried(t, d.network);
      }
      check.sim_s = run_sim_engine(d.stats, spec, topology, options).finish_s;
    } catch (const Error& e) {
      check.skipped = e.what();  // e.g. an offload the generated trace cannot carry: said, not fatal
    }
    checks.push_back(std::move(check));
  }
  return checks;
}

}  // namespace chorus::codesign
