// The maximum concurrent flow of an All-to-All demand solved exactly as a linear program, for small graphs: the
// source-aggregated multi-commodity flow LP
//
//   minimize T  subject to  for every source s and node v: out_s(v) - in_s(v) = supply of s at v
//                           for every link e:            sum_s f_s(e) <= c_e T,   f >= 0
//
// (supply: the row's total at s, minus D(s, v) at every other member, 0 at switches), solved by GLPK's simplex and
// then its rational simplex (glp_exact) from that basis, so the optimum is not a floating-point approximation. GLPK
// is in the plugin libchorus_glpk.so (concurrent_flow_glpk.hpp), loaded on the first solve. The
// result is handed back as a primal routing (per-link load) and a dual (per-link lengths, the capacity rows'
// multipliers); concurrent_flow() certifies both with its own shortest paths before it calls the bound exact.
//
//   std::optional<LpConcurrentFlow> lp = solve_concurrent_flow_lp(graph, pair_bytes, 1 << 15);
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "chorus/synth/synth_graph.hpp"

namespace chorus {

struct LpConcurrentFlow {
  std::vector<double> load;     // per link: bytes the optimal routing sends over it (all sources)
  std::vector<double> lengths;  // per link: the optimal dual's length (>= 0)
  double residual = 0;          // largest flow-conservation violation of the routing, in bytes
};

// The flow variables the LP of `graph` and `pair_bytes` needs: sources with traffic x links.
uint64_t concurrent_flow_lp_variables(const SynthGraph& graph, const std::vector<int64_t>& pair_bytes);

// nullopt when the LP would have more than `max_variables` flow variables, or when GLPK does not report an optimum
// (it cannot be infeasible: every member reaches every other in a SynthGraph). Throws chorus::Error when the GLPK
// plugin cannot be loaded.
std::optional<LpConcurrentFlow> solve_concurrent_flow_lp(const SynthGraph& graph,
                                                         const std::vector<int64_t>& pair_bytes,
                                                         uint64_t max_variables);

}  // namespace chorus
