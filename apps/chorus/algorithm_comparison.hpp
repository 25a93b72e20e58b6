// `chorus collective --algorithm ring,nccl,synth --size 1MiB:1GiB:x2`: several algorithms over the same sizes on the
// same machine or topology, printed side by side (nccl-tests' first columns, then time and busbw per algorithm,
// the fastest, the bound), as CSV or JSON lines (one row per algorithm and size), and drawn in one chart.
#pragma once

#include <string>
#include <vector>

#include "chorus/sweep/collective_sweep.hpp"
#include "size_sweep.hpp"

namespace chorus::cli {

// Whether an --algorithm value lists algorithms to compare rather than one algorithm per dimension: a comma list
// that names nccl or synth (each runs on the whole machine or topology, never on one dimension).
bool is_algorithm_comparison(const std::string& algorithm);

// The listed algorithms, in order; refuses an empty entry, a repeated one and msccl:FILE (its XML fixes one size).
std::vector<std::string> compared_algorithms(const std::string& algorithm);

struct ComparedSweep {
  std::string label;                 // as listed ("ring", "nccl", "synth")
  SizeSweep sweep;                   // the same sizes, in the same order, for every algorithm
  std::vector<std::string> details;  // per size, what ran (nccl: "NVLSTree/Simple/8"); empty when nothing to add
};

struct ComparisonHeading {
  CollectiveKind kind = CollectiveKind::AllReduce;
  std::string where;  // "dgx-h100 x 2 nodes (16 NPUs)"
  std::string model;  // the network model the simulated algorithms ran under
};

void print_algorithm_comparison(const std::vector<ComparedSweep>& sweeps, const ComparisonHeading& heading,
                                const SweepFlags& flags);

}  // namespace chorus::cli
