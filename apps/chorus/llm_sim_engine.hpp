// `chorus llm run --engine sim`: the planner's inputs generated as traces and simulated (llm_engine/), printed
// beside the planner's answer.
#pragma once

#include <string>

#include "chorus/llm/inputs.hpp"
#include "chorus/llm/iteration.hpp"

namespace chorus::cli {

struct LlmSimEngineOptions {
  std::string network;        // an ASTRA-sim network YAML, or "" for the system's own tiers
  std::string network_model;  // flow, aware, unaware
  std::string traces;         // keep the generated traces here
  std::string collectives;    // "" or simulated, or nccl: NCCL's model of `machine` for every collective
  std::string machine;        // with collectives nccl: a machine preset or calibrated machine JSON
  std::string model_file;
  std::string system_name;
  std::string exec_file;
  bool json = false;
};

void run_llm_sim_engine(const LlmSimEngineOptions& o, const llm::Application& app, const llm::System& sys,
                        const llm::Execution& exe, const llm::Stats& stats);

}  // namespace chorus::cli
