// Sweeps over network shapes: every way to build a given NPU count from D dimensions (ordered factorisations
// with each factor >= min_size) times every choice of building block per dimension, each optimised and
// ranked by the objective.
//
// Shapes file (YAML):
//   npus: 4096
//   dimensions: [3, 4]                      # dimension counts to enumerate
//   blocks: [Ring, FullyConnected, Switch]  # candidate building blocks (default: all three)
//   min_size: 2                             # smallest dimension (default 2)
//   tensor_parallel: 16                     # Forward/InputGrad group, packed into the lowest dimensions;
//                                           # WeightGrad uses the rest (data parallel). Default 1: pure DP.
//   cost_dimensions: [InterChiplet, InterPackage, InterNode, InterPod]
//                                           # a D-dimensional shape prices its dims with the last D names,
//                                           # as LIBRA's 3D and 4D examples do
//
//   SweepResult r = run_sweep(load_sweep_spec("shapes.yml"), workload, costs, ModelOptions{}, Objective::Time, budget);
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "chorus/netopt/optimizer.hpp"

namespace chorus {
class Progress;
}

namespace chorus::netopt {

// Bounds on what a shapes file may ask for, so that a typo cannot exhaust memory or time; each is an option
// of `chorus netopt` (named in the error) and may be raised.
struct SweepLimits {
  size_t max_dimensions = 8;              // --sweep-max-dims
  uint64_t max_npus = uint64_t{1} << 24;  // --sweep-max-npus (the network reader's limit)
  size_t max_shapes = 100000;             // --sweep-max-shapes: factorisations x block choices, all counts
};

struct SweepSpec {
  std::string source;  // the shapes file, for errors
  SweepLimits limits;
  uint64_t npus = 0;
  std::vector<size_t> dimension_counts;
  std::vector<BlockKind> blocks{BlockKind::Ring, BlockKind::FullyConnected, BlockKind::Switch};
  uint32_t min_size = 2;
  uint32_t tensor_parallel = 1;
  std::vector<std::string> cost_dimensions;
};

// Throws chorus::Error(path, field, ...) for a malformed file or one beyond `limits` (naming the option).
SweepSpec load_sweep_spec(const std::string& path, const SweepLimits& limits = {});

// Throws chorus::Error(spec.source, "dimensions", ...) when there would be more than limits.max_shapes.
std::vector<NetworkShape> enumerate_shapes(const SweepSpec& spec);

// Tensor parallelism packed into the lowest dimensions (greatest common divisors), data parallelism on the
// rest; nullopt if `tensor_parallel` cannot be packed into the shape.
std::optional<Communicator> tensor_data_parallel(const NetworkShape& network, uint32_t tensor_parallel);

struct SweepRow {
  NetworkShape network;
  Design design;
  Design equal;
  double objective = 0;
  double solve_s = 0;
};

struct SweepResult {
  std::vector<SweepRow> rows;  // best objective first
  size_t shapes = 0;           // enumerated
  size_t skipped = 0;          // tensor parallelism does not fit, or the budget is infeasible for the shape
};

// Per-dimension bounds in `budget` must have one value (applied to every dimension of every shape). `progress`
// (optional) hears of each shape.
SweepResult run_sweep(const SweepSpec& spec, const Workload& workload, const CostModel& cost_model,
                      const ModelOptions& options, Objective objective, const Budget& budget,
                      Progress* progress = nullptr);

// One row per shape: rank, shape, blocks, sizes, bandwidth_GBps, time_ms, comm_ms, cost, objective,
// equal_time_ms, equal_cost, speedup_vs_equal, solve_s.
void write_csv(std::ostream& out, const SweepResult& result);

std::string shape_name(const NetworkShape& network);  // e.g. "Ring4_FullyConnected8_Ring4_Switch32"

}  // namespace chorus::netopt
