// `chorus fuse`: a pass over a Chakra workload that marks every compute -> collective chain where fusion is legal
// (workload/fusion_marks.hpp), so that `chorus sim` runs it as one fused operator.
//
// Legal: a COMM_COLL node (All-Reduce, All-to-All, Reduce-Scatter) whose only dependency, data or control, is a GPU
// COMP node: the collective consumes that compute's output and nothing else. The operator is named from the pair:
// an All-to-All after a compute named "...embedding..." is embedding-all-to-all, otherwise All-to-All ->
// gemm-all-to-all, All-Reduce -> gemv-all-reduce, Reduce-Scatter -> gemm-reduce-scatter. A collective is fused on
// every member rank or on none: the k-th collective of a process group must be legal on every rank that issues it.
// Every collective left alone is reported with the reason.
//
//   FusePassResult r = fuse_workload("traces/dlrm", "traces/dlrm_fused", {});
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "chorus/fused/operators.hpp"

namespace chorus::fused {

struct FusePassOptions {
  std::optional<FusedOp> only;  // fuse only chains forming this operator
  uint32_t tiles = 8;           // fused_tiles written on each fused collective
  bool gzip = false;
};

struct FuseExample {
  uint32_t rank = 0;
  uint64_t node_id = 0;
  std::string name;
};

struct FusePassResult {
  std::string prefix;  // the rewritten workload's prefix path
  uint32_t ranks = 0;
  std::map<std::string, uint64_t> fused;  // operator -> collectives fused (counted per rank)
  struct Skip {
    uint64_t count = 0;
    FuseExample first;
  };
  std::map<std::string, Skip> skipped;  // reason -> collectives left alone (counted per rank)
};

// Reads every rank file of `workload` (prefix or directory), writes `<out>/<name>.<rank>.et`. Throws
// chorus::Error for unreadable input, tiles 0, or an output directory that cannot be created.
FusePassResult fuse_workload(const std::string& workload, const std::string& out, const FusePassOptions& options);

}  // namespace chorus::fused
