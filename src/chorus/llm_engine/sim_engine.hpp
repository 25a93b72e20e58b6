// `chorus llm run --engine sim`: the planner's job generated as Chakra traces (planned_spec.hpp: the planner's
// compute times, its parallelism and schedule) and simulated on a network, beside the planner's own answer.
//
// Components are compared as each engine accounts for them: compute (forward, backward, recompute, LM head and
// optimizer step on the busiest stage), the exposed communication of each parallelism (the planner's exposed
// times; the simulator's exposed communication per NPU, charged to the collective or message that caused it,
// critical_path.hpp), and the rest of the iteration (the planner's pipeline bubble; the simulator's finish minus
// the rows above: waiting for peers, the bubble and its ripple).
//
//   SimEngineResult r = run_sim_engine(app, sys, exe, stats, spec, planner_topology(sys, 1024, "h100-80gb"), {});
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "chorus/generate/llm_training.hpp"
#include "chorus/llm/iteration.hpp"
#include "chorus/nccl/group_timing.hpp"
#include "chorus/network/network_model.hpp"
#include "chorus/topology/topology.hpp"

namespace chorus {

struct EngineComponent {
  std::string name;
  double planner_s = 0;
  double sim_s = 0;
};

struct SimEngineOptions {
  NetworkModelKind model = NetworkModelKind::Flow;
  std::string traces;  // keep the generated traces in this directory; "" writes them to a temporary one
  // Every collective timed by NCCL's model of this machine for its group (chorus sim --collectives nccl).
  std::optional<nccl::NcclContext> nccl;
  // Every collective timed by a schedule synthesized for its group (chorus sim --collectives synth).
  bool synthesize = false;
};

struct SimEngineResult {
  double finish_s = 0;
  std::vector<EngineComponent> components;  // the last is the total
  size_t simulated_npus = 0;                // traces simulated (one per stage when the job is symmetric)
  bool symmetric = false;
  std::string network;  // the topology's name
  size_t collectives = 0;
  size_t below_bound = 0;  // collectives that finished faster than the physical links allow (runtime/group_bound)
  std::string collective_timing = "simulated";  // or "nccl:MACHINE" (NCCL's cost model), or "synth"
};

SimEngineResult run_sim_engine(const llm::Stats& stats, const LlmTrainingSpec& spec, const Topology& topology,
                               const SimEngineOptions& options);

// The planner's JSON keys with the simulated iteration's time and throughputs, plus engine, sim_finish_ns,
// planner_total_time and components.
nlohmann::json sim_engine_json(nlohmann::json planner, const llm::Stats& stats, const llm::Application& app,
                               const llm::Execution& exe, const SimEngineResult& result);
std::string sim_engine_table(const SimEngineResult& result);

}  // namespace chorus
