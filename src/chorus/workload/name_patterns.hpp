// Node-name patterns: a name with every run of digits read as '#', so that the microbatches and layers of one
// operation ("mb3.L7.attn.fwd", "mb12.L95.attn.fwd") share one pattern ("mb#.L#.attn.fwd"). The blame of a run
// (runtime/critical_path.hpp) sums operations by pattern; each NPU graph interns its nodes' patterns when it is
// built, while their names are in cache, so that summing 850,000 nodes reads a number per node, not a string.
//
//   NpuGraph g = ...;  g.patterns[g.nodes[i].pattern]   // "mb#.L#.attn.fwd"
#pragma once

#include <string>
#include <string_view>

#include "chorus/workload/workload.hpp"

namespace chorus {

// `name` with every run of digits replaced by '#'.
std::string name_pattern(std::string_view name);

// Sets every node's `pattern` and fills g.patterns (distinct patterns, in order of first use).
void intern_name_patterns(NpuGraph& g);

}  // namespace chorus
