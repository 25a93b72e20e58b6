// The generated LLM training iteration as a symmetric workload (symmetric_workload.hpp): one rank class per
// pipeline stage (and, with context parallelism, per CP index of the stage), simulated through one representative
// (data-parallel index 0, tensor-parallel index 0), so a 98,304-GPU iteration is 16 traces and a classes.json
// instead of 98,304 rank files.
//
// Why the ranks of a stage are equivalent: every rank of stage p runs the same 1F1B program (llm_training.hpp);
// its TP group is a copy of the representative's shifted by a multiple of tp, its DP group one shifted by its TP
// index, and its pipeline peers the same shift of the representative's. Each group used by a representative gets
// as replicas its translated copies within the stage (llm_comm_groups), which must be evenly spaced.
//
//   write_llm_training_symmetric("traces/l405", spec, false);   // traces/l405/classes.json + class.<stage>.et
#pragma once

#include <string>

#include "chorus/generate/llm_training.hpp"

namespace chorus {

// Validates, then writes the class description and one trace per stage; returns the path of classes.json.
std::string write_llm_training_symmetric(const std::string& directory, const LlmTrainingSpec& spec, bool gzip);

}  // namespace chorus
