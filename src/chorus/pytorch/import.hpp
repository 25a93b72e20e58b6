// `chorus import pytorch`: a set of per-rank PyTorch execution traces (and optional Kineto traces) turned into
// Chakra traces PREFIX.<rank>.et that `chorus sim --workload PREFIX` runs. Rank r is the r-th file. With Kineto
// traces, PREFIX.measured.json holds the measured timeline (runtime/measured_run.hpp) for `chorus sim --measured`.
//
//   ImportResult r = import_pytorch({.et = {"r0.json", "r1.json"}, .out_prefix = "traces/ddp"}, &std::cerr);
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "chorus/pytorch/recover.hpp"

namespace chorus::pytorch {

struct ImportOptions {
  std::vector<std::string> et;      // one per rank, in rank order
  std::vector<std::string> kineto;  // empty, or one per rank
  std::string out_prefix;           // "" : recover and summarize only
  bool gzip = false;
};

struct RankSummary {
  uint32_t rank = 0;
  std::string file;
  std::string schema;
  size_t et_nodes = 0;
  size_t nodes = 0;  // Chakra nodes written
  std::vector<RecoveredCollective> collectives;
  uint64_t comm_bytes = 0;
  Timing timing = Timing::None;
};

struct ImportResult {
  std::vector<RankSummary> ranks;
  std::vector<std::string> written;
  std::string measured;  // PREFIX.measured.json (with --kineto and an output prefix): chorus sim --measured reads it
};

std::string to_string(Timing timing);

// Throws chorus::Error naming the file and node for bad input: not an execution trace, a bad tensor descriptor,
// a parent that names no node, a Kineto trace of another rank or world size, a group or peer outside the ranks
// given, ranks whose collectives on every rank do not line up (a rank of another run, or one missing).
ImportResult import_pytorch(const ImportOptions& options, std::ostream* warnings);

}  // namespace chorus::pytorch
