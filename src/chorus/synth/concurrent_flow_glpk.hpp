// The seam between the concurrent-flow LP (concurrent_flow_lp.hpp) and GLPK: the LP's input and output as plain
// arrays, and the table of the plugin libchorus_glpk.so (concurrent_flow_glpk_plugin.cpp, the one file that
// includes glpk.h). The library loads the plugin on the first exact bound (plugin/plugin.hpp), so that no other
// job maps GLPK.
//
//   const auto& glpk = load_plugin<GlpkPlugin>(kGlpkPlugin);
//   bool optimal = glpk.solve(problem, solution);
#pragma once

#include <cstdint>

#include "chorus/plugin/plugin.hpp"

namespace chorus {

// The LP of concurrent_flow_lp.hpp on a graph of `nodes` nodes, members first (0..members-1).
struct GlpkFlowProblem {
  uint32_t nodes = 0;
  uint32_t members = 0;
  uint32_t links = 0;
  const uint32_t* src = nullptr;      // per link: its source node
  const uint32_t* dst = nullptr;      // per link: its destination node
  const double* bandwidth = nullptr;  // per link, bytes per second
  const int64_t* demand = nullptr;    // members x members, row-major: bytes from s to t
  uint32_t source_count = 0;          // the members with traffic, in increasing order
  const uint32_t* sources = nullptr;
};

// Filled by solve(): arrays of `links` entries owned by the caller.
struct GlpkFlowSolution {
  double* load = nullptr;     // per link: bytes the optimal routing sends over it (all sources)
  double* lengths = nullptr;  // per link: the optimal dual's length (>= 0)
  double residual = 0;        // largest flow-conservation violation of the routing, in bytes
};

struct GlpkPlugin {
  PluginHeader header;
  // The exact optimum (GLPK's primal simplex, then its rational simplex from that basis); false when GLPK does not
  // report one.
  bool (*solve)(const GlpkFlowProblem& problem, GlpkFlowSolution& solution);
};

inline constexpr PluginSpec kGlpkPlugin{"glpk", "the exact All-to-All bound (GLPK's concurrent-flow LP)", 1};

}  // namespace chorus
