// Maximum concurrent flow of an All-to-All demand matrix: the fastest any schedule can move every (source,
// destination) demand at once when links are pipes of their bandwidth, bracketed from both sides.
//
// - lower_s (the bound): for any link lengths l >= 0, T* >= sum_k D_k dist_l(s_k, t_k) / sum_e c_e l_e (LP
//   duality of the concurrent-flow LP; c_e = bandwidth). Lengths tried: one per link (the hop bound: exact on
//   tori and hypercubes), 1 / c_e, and the multiplicative-weights lengths of the solver below. The cut bound is the
//   special case l = 1 on the links leaving a cut, so this is at least as strong wherever the solver converges.
// - upper_s (the certificate that the bound is nearly exact): a fractional routing of every demand with this
//   congestion, from Garg-Koenemann / Fleischer phases (every demand routed once per phase on a shortest path
//   tree of its source under exponential lengths; the average of the phases is the routing).
// upper_s / lower_s is the gap; on small graphs the solver runs until the gap is within `gap` (default 1%).
// - exact: on graphs whose LP has at most `exact_variables` flow variables (sources with traffic x links), the LP
//   itself is solved first (concurrent_flow_lp.hpp: GLPK, rational simplex). Its routing's congestion and its dual
//   lengths' bound, both recomputed here, must agree to 1e-9; then lower_s and upper_s are that optimum and `exact`
//   is set. Otherwise (too large, or the check fails) the phases above run.
//
//   ConcurrentFlow f = concurrent_flow(graph, pair_bytes, {});
//   fmt::print("{} s <= T* <= {} s\n", f.lower_s, f.upper_s);
#pragma once

#include <cstdint>
#include <vector>

#include "chorus/synth/synth_graph.hpp"

namespace chorus {

struct ConcurrentFlowOptions {
  double epsilon = 0.05;              // step of the multiplicative length update
  double gap = 0.01;                  // stop once upper / lower <= 1 + gap
  uint64_t work = uint64_t{1} << 26;  // edge relaxations, summed; deterministic (never wall time)
  // Largest LP solved exactly, in flow variables: 2^14 takes an 8x8 torus (64 sources x 256 links, about 1 s) and
  // leaves a 6-cube (64 x 384, about 1.5 s) and a 4x4x4 torus (about 3 s) to the phases. 0: never.
  uint64_t exact_variables = uint64_t{1} << 14;
};

struct ConcurrentFlow {
  double lower_s = 0;        // valid lower bound on the time to route the demand (seconds)
  double upper_s = 0;        // a routing achieving this congestion exists (seconds); 0 when none finished
  uint32_t phases = 0;       // solver phases completed
  const char* binding = "";  // which lengths gave lower_s: "hops", "inverse-bandwidth", "flow", "exact"
  bool exact = false;        // lower_s and upper_s are the LP optimum, certified by primal and dual
};

// pair_bytes: member_count^2 entries, row-major by local rank (source, destination); the diagonal is ignored.
ConcurrentFlow concurrent_flow(const SynthGraph& graph, const std::vector<int64_t>& pair_bytes,
                               const ConcurrentFlowOptions& options);

}  // namespace chorus
