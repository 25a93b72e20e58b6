// Certificates for a synthesized collective, and its lower bound.
//
// check_synthesis() re-derives, from the Schedule alone, that the algorithm is correct and that its timing is
// feasible in the synthesizer's model:
//   - every transfer crosses one existing link and lasts latency + bytes / bandwidth;
//   - no link carries two transfers at once; no transfer starts before its dependencies end;
//   - data: a gathered chunk is sent only by a node that holds it (its origin, or a dependency delivered it) and
//     every member ends up holding every chunk; a reduced chunk carries each member's contribution exactly once
//     (counts, not sets, so a double-counted contribution is caught) and its owner ends with all of them;
//   - the aware network model (store-and-forward, one message per link) runs the Schedule in at most the
//     synthesizer's estimate (equal unless a transfer could start earlier than the synthesizer started it).
// synth_lower_bound() is lower_bound() (collective/lower_bound.hpp) on the graph the synthesis may use (a
// tenant's group, failures removed); for All-to-All also the concurrent-flow bound with the demand matrix
// (all_to_all_bound.hpp), the larger of the two.
#pragma once

#include <optional>
#include <string>

#include "chorus/synth/all_to_all_bound.hpp"
#include "chorus/synth/synthesize.hpp"

namespace chorus {

struct SynthCheck {
  bool ok = true;
  std::string problem;  // the first violation found
  Time aware_time;      // the aware model's makespan
};

SynthCheck check_synthesis(const Topology& topology, const SynthResult& result);

struct SynthBound {
  Time bound;
  double seconds = 0;                       // time spent computing it
  std::string kind;                         // which bound binds (All-to-All: "flow (hops)", "single-npu cut", ...)
  std::optional<AllToAllBound> all_to_all;  // All-to-All: the concurrent-flow bracket and its parts
};

SynthBound synth_lower_bound(const Topology& topology, const SynthOptions& options);

}  // namespace chorus
