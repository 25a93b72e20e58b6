// `chorus codesign --verify sim`: the top designs simulated end to end (llm_engine/sim_engine.hpp), each on its own
// network as the planner's tiers, beside the planner's time that ranked it.
//
//   std::vector<SimCheck> checks = verify_designs(app, machine, t, result, 10, "llama3-70b", nccl_machine);
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
  // How the simulator timed the collectives: "simulated" (its own network model on the design's dimensions) or
  // "nccl" (NCCL's model, a network of two nccl dimensions); `note` says what the simulation did not carry over.
  std::string collectives = "simulated";
  std::string note;
};

// The first `count` designs of `top`, in order. `nccl_machine`: the preset whose NCCL model a design of two nccl
// dimensions is simulated with (nullptr: none).
std::vector<SimCheck> verify_designs(const llm::Application& app, const llm::System& machine, const NetworkTemplate& t,
                                     const CodesignResult& result, size_t count, const std::string& model_name,
                                     const machine::Machine* nccl_machine);

}  // namespace chorus::codesign
