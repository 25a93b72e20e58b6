// `chorus codesign --verify sim`: the top designs simulated end to end (llm_engine/sim_engine.hpp), each on its own
// network as the planner's tiers, beside the planner's time that ranked it.
//
//   std::vector<SimCheck> checks = verify_designs(app, machine, t, result.top, 10, "llama3-70b");
#pragma once

#include <string>
#include <vector>

#include "chorus/codesign/network_template.hpp"
#include "chorus/codesign/solver.hpp"
#include "chorus/llm/inputs.hpp"

namespace chorus::codesign {

struct SimCheck {
  double planner_s = 0;
  double sim_s = 0;     // 0 when skipped
  std::string skipped;  // why the simulator engine could not run the design ("" when it ran)
};

// The first `count` designs of `top`, in order.
std::vector<SimCheck> verify_designs(const llm::Application& app, const llm::System& machine, const NetworkTemplate& t,
                                     const std::vector<Design>& top, size_t count, const std::string& model_name);

}  // namespace chorus::codesign
