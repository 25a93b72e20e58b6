// The planner's execution (llm::Execution, the exec JSON of `chorus llm run`) as a trace generator spec: the same
// parallelism, microbatches, recompute, interleaving, DP overlap and sharding, and the planner's compute times.
//
//   LlmTrainingSpec spec = planned_training_spec(app, sys, exe, stats, "E.json", "llama3-70b");
//   chakra::ChakraTrace t = llm_rank_trace(spec, 0);
#pragma once

#include <string>

#include "chorus/generate/llm_training.hpp"
#include "chorus/llm/inputs.hpp"
#include "chorus/llm/iteration.hpp"

namespace chorus {

// Throws chorus::Error naming `exec_file` and the exec key when the execution asks for what the generator cannot
// express (inference). TP overlap (tensor_par_overlap, tp_gemm_overlap) runs each half's collectives beside its
// compute; offloading's exposed time (the planner's) lengthens the block's passes.
LlmTrainingSpec planned_training_spec(const llm::Application& app, const llm::System& sys, const llm::Execution& exe,
                                      const llm::Stats& stats, const std::string& exec_file,
                                      const std::string& model_name);

}  // namespace chorus
