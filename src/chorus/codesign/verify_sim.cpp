// The top designs through the simulator engine (see verify_sim.hpp).
#include "chorus/codesign/verify_sim.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "chorus/codesign/network_space.hpp"
#include "chorus/core/error.hpp"
#include "chorus/llm_engine/planned_spec.hpp"
#include "chorus/llm_engine/planner_network.hpp"
#include "chorus/llm_engine/sim_engine.hpp"

namespace chorus::codesign {

std::vector<SimCheck> verify_designs(const llm::Application& app, const llm::System& machine, const NetworkTemplate& t,
                                     const std::vector<Design>& top, size_t count, const std::string& model_name) {
  std::vector<SimCheck> checks;
  for (size_t i = 0; i < std::min(count, top.size()); ++i) {
    const Design& d = top[i];
    SimCheck check{d.time_s, 0, ""};
    const std::string name = fmt::format("design #{}", i + 1);
    try {
      const llm::System sys = network_system(machine, t, d.network);
      const LlmTrainingSpec spec = planned_training_spec(app, sys, d.execution, d.stats, name, model_name);
      const Topology topology = planner_topology(sys, d.execution.num_procs, name);
      check.sim_s = run_sim_engine(d.stats, spec, topology, SimEngineOptions{}).finish_s;
    } catch (const Error& e) {
      check.skipped = e.what();  // e.g. an offload the generated trace cannot carry: said, not fatal
    }
    checks.push_back(std::move(check));
  }
  return checks;
}

}  // namespace chorus::codesign
