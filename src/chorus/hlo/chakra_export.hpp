// Conversion of an analyzed HLO module to Chakra execution traces, one per replica, for `chorus sim`.
//
// Compute instructions become COMP nodes (duration_micros = the predicted time rounded to whole microseconds, as
// Chakra stores it; num_ops = FLOPs and tensor_size = bytes accessed, for a simulator's own roofline);
// all-reduce, all-gather, reduce-scatter and all-to-all become COMM_COLL nodes on their replica group; data
// dependencies follow operands through tuples, get-tuple-element and calls; while bodies are unrolled
// `iterations` times, or summarized as one COMP node of the loop's predicted time when iterations is 0.
// collective-permute, send and recv become COMP nodes of their predicted time (Chakra has no permute type).
//
//   std::string prefix = hlo::write_chakra_traces(module, analysis, "traces/dlrm", {.npus = 64});
//   // traces/dlrm/hlo.<rank>.et and traces/dlrm/comm_groups.json
#pragma once

#include <string>

#include "chorus/hlo/analysis.hpp"
#include "chorus/hlo/module.hpp"

namespace chorus::hlo {

struct ChakraExportOptions {
  int npus = 1;
  int iterations = 1;  // while-loop unrolling; 0: one summary node per loop
  bool gzip = false;
};

// Writes the traces and the communicator-group side-car; returns the rank-file prefix. Throws chorus::Error when
// replica groups do not fit npus or the directory cannot be written.
std::string write_chakra_traces(const Module& module, const Analysis& analysis, const std::string& directory,
                                const ChakraExportOptions& options);

}  // namespace chorus::hlo
